#include "core/record.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "core/id_rows.hpp"

namespace boids {

namespace {
constexpr std::size_t kBufferBytes = std::size_t(1) << 20;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

template <class T>
void append_number(std::string& out, T v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form
  out.append(buf, r.ptr);
}
}  // namespace

Recorder::Recorder(const std::string& path, const World& w, std::uint64_t every)
    : path_(path), csv_(ends_with(path, ".csv")), dims_(w.dims()), precision_(w.precision()) {
  if (every == 0) throw Error("--every: must be at least 1");
  file_ = std::make_unique<AtomicFile>(path, kBufferBytes);
  if (csv_) {
    line_ = dims_ == 3 ? "step,id,x,y,z,vx,vy,vz,kind\n" : "step,id,x,y,vx,vy,kind\n";
    write(line_.data(), line_.size());
  } else {
    char h[32] = {};
    const std::uint32_t u32[4] = {kRecordVersion, std::uint32_t(dims_),
                                  precision_ == Precision::f64 ? 8u : 4u, 0u};
    std::memcpy(h, kRecordMagic, 8);
    std::memcpy(h + 8, u32, sizeof(u32));
    std::memcpy(h + 24, &every, 8);
    write(h, sizeof(h));
  }
}

Recorder::~Recorder() = default;  // an unfinished AtomicFile removes its temporary file

void Recorder::write(const void* data, std::size_t bytes) {
  if (!file_) throw Error(path_ + ": recording already finished");
  file_->write(data, bytes);
}

void Recorder::frame(const World& w) {
  if (w.dims() != dims_ || w.precision() != precision_)
    throw Error(path_ + ": recording a world of another shape");
  if (precision_ == Precision::f64) {
    csv_ ? frame_csv<double>(w) : frame_binary<double>(w);
  } else {
    csv_ ? frame_csv<float>(w) : frame_binary<float>(w);
  }
  ++frames_;
}

// Both formats read the state in id order a chunk at a time (core/id_rows.hpp): a frame
// costs a few kilobytes of memory, not an id-order copy of the flock.
template <class Real>
void Recorder::frame_binary(const World& w) {
  const IdRows rows(w);
  const std::uint64_t head[2] = {w.step_count(), rows.count()};
  write(head, sizeof(head));
  std::vector<char> buf(IdRows::kChunk * sizeof(Real));
  const int cols[8] = {IdRows::id, IdRows::kind,       0, 1, dims_ == 3 ? 2 : -1, 3,
                       4,          dims_ == 3 ? 5 : -1};
  for (int col : cols) {
    if (col < 0) continue;
    for (std::size_t first = 0; first < rows.count(); first += IdRows::kChunk) {
      const std::size_t n = std::min(IdRows::kChunk, rows.count() - first);
      rows.gather(col, first, n, buf.data());
      write(buf.data(), n * rows.elem_bytes(col));
    }
  }
}

template <class Real>
void Recorder::frame_csv(const World& w) {
  const IdRows rows(w);
  std::vector<std::uint32_t> ids(IdRows::kChunk);
  std::vector<std::uint8_t> kinds(IdRows::kChunk);
  std::vector<Real> comps(6 * IdRows::kChunk);
  std::string step;
  append_number(step, w.step_count());
  for (std::size_t first = 0; first < rows.count(); first += IdRows::kChunk) {
    const std::size_t n = std::min(IdRows::kChunk, rows.count() - first);
    rows.gather(IdRows::id, first, n, ids.data());
    rows.gather(IdRows::kind, first, n, kinds.data());
    for (int pv = 0; pv < 2; ++pv) {
      for (int c = 0; c < dims_; ++c)
        rows.gather(3 * pv + c, first, n, comps.data() + (3 * pv + c) * IdRows::kChunk);
    }
    line_.clear();
    for (std::size_t i = 0; i < n; ++i) {
      line_ += step;
      line_ += ',';
      append_number(line_, ids[i]);
      for (int pv = 0; pv < 2; ++pv) {
        for (int c = 0; c < dims_; ++c) {
          line_ += ',';
          append_number(line_, comps[(3 * pv + c) * IdRows::kChunk + i]);
        }
      }
      line_ += ',';
      append_number(line_, int(kinds[i]));
      line_ += '\n';
    }
    write(line_.data(), line_.size());
  }
}

void Recorder::finish() {
  if (!file_) return;
  std::unique_ptr<AtomicFile> f = std::move(file_);
  f->commit();
}

}  // namespace boids
