#include "core/record.hpp"

#include <charconv>
#include <cstring>

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

template <class Real>
void Recorder::frame_binary(const World& w) {
  const std::uint64_t head[2] = {w.step_count(), w.count()};
  write(head, sizeof(head));
  const auto ids = w.ids();
  const auto kinds = w.kinds();
  write(ids.data(), ids.size_bytes());
  write(kinds.data(), kinds.size_bytes());
  const ComponentsView<Real> p = w.positions<Real>();
  const ComponentsView<Real> v = w.velocities<Real>();
  const std::span<const Real> comps[6] = {p.x, p.y, p.z, v.x, v.y, v.z};
  for (int pv = 0; pv < 2; ++pv) {
    for (int c = 0; c < dims_; ++c) write(comps[3 * pv + c].data(), comps[3 * pv + c].size_bytes());
  }
}

template <class Real>
void Recorder::frame_csv(const World& w) {
  const auto ids = w.ids();
  const auto kinds = w.kinds();
  const ComponentsView<Real> p = w.positions<Real>();
  const ComponentsView<Real> v = w.velocities<Real>();
  const std::span<const Real> comps[6] = {p.x, p.y, p.z, v.x, v.y, v.z};
  std::string step;
  append_number(step, w.step_count());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    line_ = step;
    line_ += ',';
    append_number(line_, ids[i]);
    for (int pv = 0; pv < 2; ++pv) {
      for (int c = 0; c < dims_; ++c) {
        line_ += ',';
        append_number(line_, comps[3 * pv + c][i]);
      }
    }
    line_ += ',';
    append_number(line_, int(kinds[i]));
    line_ += '\n';
    write(line_.data(), line_.size());
  }
}

void Recorder::finish() {
  if (!file_) return;
  std::unique_ptr<AtomicFile> f = std::move(file_);
  f->commit();
}

}  // namespace boids
