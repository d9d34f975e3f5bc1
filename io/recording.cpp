// boids::Recording (include/boids/recording.hpp): the format dispatch and the BOIDSREC reader.
//
// BOIDSREC (docs/formats.md): a 32-byte header, then frames (u64 step, u64 n, u32 ids, u8
// kinds, positions and velocities one component array after another, float32 or float64).
// Opening scans the frame headers once and keeps their offsets, so a jump is one seek.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "io/recording_impl.hpp"

namespace boids {

namespace io_detail {

template <class Real>
void check_rows(const Recording::Impl& r, const std::string& where,
                const std::vector<std::uint32_t>& id, const std::vector<std::uint8_t>& kind,
                std::vector<Real>* const comps[6], int dims) {
  const std::size_t n = id.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && id[i] <= id[i - 1])
      r.fail(where, "ids not strictly increasing (row " + std::to_string(i) + ")");
    if (kind[i] > 2)
      r.fail(where, "kind " + std::to_string(int(kind[i])) + " is not 0, 1 or 2 (row " +
                        std::to_string(i) + ")");
  }
  for (int c = 0; c < 6; ++c) {
    if (c % 3 >= dims) continue;
    const Real* v = comps[c]->data();
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(v[i]))
        r.fail(where, std::string("non-finite ") + (c < 3 ? "position" : "velocity") + " (row " +
                          std::to_string(i) + ")");
  }
}
template void check_rows<float>(const Recording::Impl&, const std::string&,
                                const std::vector<std::uint32_t>&, const std::vector<std::uint8_t>&,
                                std::vector<float>* const[6], int);
template void check_rows<double>(const Recording::Impl&, const std::string&,
                                 const std::vector<std::uint32_t>&,
                                 const std::vector<std::uint8_t>&, std::vector<double>* const[6],
                                 int);

namespace {

class BoidsRec final : public Recording::Impl {
 public:
  explicit BoidsRec(const std::string& p) {
    path = p;
    format = RecordingFormat::boidsrec;
    f_ = std::fopen(p.c_str(), "rb");
    if (!f_) throw Error(p + ": cannot open");
    unsigned char head[32];
    if (std::fread(head, 1, 32, f_) != 32) fail("header", "truncated (shorter than 32 bytes)");
    const std::uint32_t version = u32(head + 8), d = u32(head + 12), width = u32(head + 16);
    if (version != 1) fail("header", "format version " + std::to_string(version) + ", expected 1");
    if (d != 2 && d != 3) fail("header", "dims " + std::to_string(d) + ", expected 2 or 3");
    if (width != 4 && width != 8)
      fail("header", std::to_string(width) + " bytes per value, expected 4 or 8");
    dims = int(d);
    width_ = int(width);
    precision = width == 8 ? Precision::f64 : Precision::f32;
    every = u64(head + 24);
    std::fseek(f_, 0, SEEK_END);
    const long long size = std::ftell(f_);
    long long at = 32;
    while (at < size) {
      unsigned char fh[16];
      const std::string frame = "frame " + std::to_string(offsets_.size());
      if (std::fseek(f_, long(at), SEEK_SET) != 0 || std::fread(fh, 1, 16, f_) != 16)
        fail(frame, "truncated frame header at byte " + std::to_string(at));
      const std::uint64_t n = u64(fh + 8);
      const long long bytes = 16 + (long long)n * (5 + 2LL * dims * width_);
      if (n > 0x7fffffffull || at + bytes > size)
        fail(frame, "truncated at byte " + std::to_string(at) + " (needs " + std::to_string(bytes) +
                        " bytes for " + std::to_string(n) + " boids, " + std::to_string(size - at) +
                        " left)");
      offsets_.push_back(at);
      steps.push_back(u64(fh));
      counts_.push_back(std::size_t(n));
      at += bytes;
    }
    if (offsets_.empty()) fail("frames", "the recording holds no frame");
  }
  ~BoidsRec() override {
    if (f_) std::fclose(f_);
  }

  void read_f(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<float>* comps[6]) override {
    read_t(k, id, kind, comps);
  }
  void read_d(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<double>* comps[6]) override {
    read_t(k, id, kind, comps);
  }

 private:
  template <class Real>
  void read_t(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<Real>* comps[6]) {
    const std::size_t n = counts_[k];
    const std::string where =
        "frame " + std::to_string(k) + " (byte " + std::to_string(offsets_[k]) + ")";
    if (std::fseek(f_, long(offsets_[k] + 16), SEEK_SET) != 0) fail(where, "cannot seek");
    id.resize(n);
    kind.resize(n);
    get(id.data(), 4 * n, where);
    get(kind.data(), n, where);
    for (int c = 0; c < 6; ++c) {
      if (c % 3 >= dims) continue;
      std::vector<Real>& v = *comps[c];
      v.resize(n);
      if (sizeof(Real) == std::size_t(width_)) {
        get(v.data(), std::size_t(width_) * n, where);
      } else if (width_ == 4) {
        f32_.resize(n);
        get(f32_.data(), 4 * n, where);
        for (std::size_t i = 0; i < n; ++i) v[i] = Real(f32_[i]);
      } else {
        f64_.resize(n);
        get(f64_.data(), 8 * n, where);
        // Out of float's range the cast would be undefined: such a value becomes inf.
        constexpr double top = double(std::numeric_limits<Real>::max());
        for (std::size_t i = 0; i < n; ++i) {
          const double x = f64_[i];
          v[i] = std::fabs(x) > top
                     ? std::copysign(std::numeric_limits<Real>::infinity(), Real(x > 0 ? 1 : -1))
                     : Real(x);
        }
      }
    }
    // A float64 value beyond float32's range reads as inf and is refused like a NaN.
    check_rows<Real>(*this, where, id, kind, comps, dims);
  }

  void get(void* dst, std::size_t bytes, const std::string& where) {
    if (bytes && std::fread(dst, 1, bytes, f_) != bytes)
      fail(where, "read error (file changed while open?)");
  }
  static std::uint32_t u32(const unsigned char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static std::uint64_t u64(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }

  std::FILE* f_ = nullptr;
  int width_ = 4;
  std::vector<long long> offsets_;
  std::vector<std::size_t> counts_;
  std::vector<float> f32_;
  std::vector<double> f64_;
};

}  // namespace

std::unique_ptr<Recording::Impl> open_boidsrec(const std::string& path) {
  return std::make_unique<BoidsRec>(path);
}

}  // namespace io_detail

Recording::Recording(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Recording::Recording(Recording&&) noexcept = default;
Recording& Recording::operator=(Recording&&) noexcept = default;
Recording::~Recording() = default;

Recording Recording::open(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path + ": is a directory, not a recording");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot open (missing or not readable)");
  char head[8] = {};
  const std::size_t got = std::fread(head, 1, 8, f);
  std::fclose(f);
  static const char kHdf5[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  if (got < 8)
    throw Error(path + ": truncated (" + std::to_string(got) +
                " bytes, shorter than the start of any recording)");
  if (std::memcmp(head, "BOIDSREC", 8) == 0) return Recording(io_detail::open_boidsrec(path));
  if (std::memcmp(head, kHdf5, 8) == 0) return Recording(io_detail::open_h5md(path));
  throw Error(path + ": not a recording (neither BOIDSREC nor HDF5/H5MD)");
}

const std::string& Recording::path() const noexcept { return impl_->path; }
RecordingFormat Recording::format() const noexcept { return impl_->format; }
int Recording::dims() const noexcept { return impl_->dims; }
Precision Recording::precision() const noexcept { return impl_->precision; }
std::size_t Recording::frames() const noexcept { return impl_->steps.size(); }
std::uint64_t Recording::every() const noexcept { return impl_->every; }
const std::string& Recording::scenario_text() const noexcept { return impl_->scenario; }

std::uint64_t Recording::step_of(std::size_t k) const {
  if (k >= impl_->steps.size())
    throw Error(impl_->path + ": frame " + std::to_string(k) + " out of range (the recording has " +
                std::to_string(impl_->steps.size()) + " frames)");
  return impl_->steps[k];
}

std::size_t Recording::frame_at_step(std::uint64_t step) const noexcept {
  std::size_t best = 0;
  for (std::size_t i = 0; i < impl_->steps.size(); ++i)
    if (impl_->steps[i] <= step) best = i;
  return best;
}

void Recording::read(std::size_t k, RecordingFrame& out) {
  step_of(k);  // range check
  std::vector<float>* comps[6] = {&out.x, &out.y, &out.z, &out.vx, &out.vy, &out.vz};
  impl_->read_f(k, out.id, out.kind, comps);
  out.step = impl_->steps[k];
  if (impl_->dims == 2) {
    out.z.assign(out.id.size(), 0.0f);
    out.vz.assign(out.id.size(), 0.0f);
  }
}

void Recording::read(std::size_t k, State& out) {
  step_of(k);
  std::vector<double>* comps[6] = {&out.x, &out.y, &out.z, &out.vx, &out.vy, &out.vz};
  impl_->read_d(k, out.id, out.kind, comps);
  if (impl_->dims == 2) {
    out.z.clear();
    out.vz.clear();
  }
}

}  // namespace boids
