// boids::Recorder (boids/io.hpp). Frames are read from the engine's store in id order a chunk
// at a time (core/id_rows.hpp) and written through a large stdio buffer. The file is an AtomicFile
// (core/files.hpp), renamed into place by finish(), so an interrupted run never leaves a truncated
// recording behind.
#include "core/record.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "core/files.hpp"
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

struct Recorder::Impl {
  template <class Real>
  void frame_binary(const World& w);
  template <class Real>
  void frame_csv(const World& w);
  void write(const void* data, std::size_t bytes);

  std::string path;
  std::unique_ptr<AtomicFile> file;  // null once finished
  bool csv = false;
  int dims = 3;
  Precision precision = Precision::f32;
  std::uint64_t every = 1;
  std::uint64_t frames = 0;
  std::string line;
};

Recorder::Recorder(const std::string& path, const World& w, std::uint64_t every)
    : impl_(std::make_unique<Impl>()) {
  if (every == 0) throw Error("--every: must be at least 1");
  Impl& m = *impl_;
  m.path = path;
  m.csv = ends_with(path, ".csv");
  m.dims = w.dims();
  m.precision = w.precision();
  m.every = every;
  m.file = std::make_unique<AtomicFile>(path, kBufferBytes);
  if (m.csv) {
    m.line = m.dims == 3 ? "step,id,x,y,z,vx,vy,vz,kind\n" : "step,id,x,y,vx,vy,kind\n";
    m.write(m.line.data(), m.line.size());
  } else {
    char h[32] = {};
    const std::uint32_t u32[4] = {kRecordVersion, std::uint32_t(m.dims),
                                  m.precision == Precision::f64 ? 8u : 4u, 0u};
    std::memcpy(h, kRecordMagic, 8);
    std::memcpy(h + 8, u32, sizeof(u32));
    std::memcpy(h + 24, &every, 8);
    m.write(h, sizeof(h));
  }
}

Recorder::~Recorder() = default;  // an unfinished AtomicFile removes its temporary file
Recorder::Recorder(Recorder&&) noexcept = default;
Recorder& Recorder::operator=(Recorder&&) noexcept = default;

std::uint64_t Recorder::frames() const noexcept { return impl_ ? impl_->frames : 0; }
std::uint64_t Recorder::every() const noexcept { return impl_ ? impl_->every : 0; }
bool Recorder::finished() const noexcept { return !impl_ || !impl_->file; }

void Recorder::Impl::write(const void* data, std::size_t bytes) {
  if (!file) throw Error(path + ": recording already finished");
  file->write(data, bytes);
}

void Recorder::frame(const World& w) {
  if (!impl_) throw Error("recording moved from");
  Impl& m = *impl_;
  if (!m.file) throw Error(m.path + ": recording already finished");
  if (w.dims() != m.dims || w.precision() != m.precision)
    throw Error(m.path + ": recording a world of another shape");
  if (m.precision == Precision::f64) {
    m.csv ? m.frame_csv<double>(w) : m.frame_binary<double>(w);
  } else {
    m.csv ? m.frame_csv<float>(w) : m.frame_binary<float>(w);
  }
  ++m.frames;
}

// Both formats read the state in id order a chunk at a time (core/id_rows.hpp): a frame
// costs a few kilobytes of memory, not an id-order copy of the flock.
template <class Real>
void Recorder::Impl::frame_binary(const World& w) {
  const IdRows rows(w);
  const std::uint64_t head[2] = {w.step_count(), rows.count()};
  write(head, sizeof(head));
  rows.write_columns([&](const void* data, std::size_t bytes) { write(data, bytes); });
}

template <class Real>
void Recorder::Impl::frame_csv(const World& w) {
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
      for (int c = 0; c < dims; ++c)
        rows.gather(3 * pv + c, first, n, comps.data() + (3 * pv + c) * IdRows::kChunk);
    }
    line.clear();
    for (std::size_t i = 0; i < n; ++i) {
      line += step;
      line += ',';
      append_number(line, ids[i]);
      for (int pv = 0; pv < 2; ++pv) {
        for (int c = 0; c < dims; ++c) {
          line += ',';
          append_number(line, comps[(3 * pv + c) * IdRows::kChunk + i]);
        }
      }
      line += ',';
      append_number(line, int(kinds[i]));
      line += '\n';
    }
    write(line.data(), line.size());
  }
}

void Recorder::finish() {
  if (!impl_ || !impl_->file) return;
  std::unique_ptr<AtomicFile> f = std::move(impl_->file);
  f->commit();
}

}  // namespace boids
