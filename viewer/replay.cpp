#include "viewer/replay.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "boids/world.hpp"

namespace boids::view {

namespace {

// The binary trajectory format of `boids run --record` (docs/formats.md): a 32-byte header,
// then frames (u64 step, u64 n, u32 ids, u8 kinds, positions and velocities per component in
// float32 or float64). Opening scans the frame headers once and keeps their offsets, so a jump
// on the timeline is one seek.
class BoidsRecSource final : public ReplaySource {
 public:
  explicit BoidsRecSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail("is a directory, not a recording");
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) fail("cannot open");
    char head[32];
    if (std::fread(head, 1, 32, f_) != 32) fail("not a boids recording (shorter than its header)");
    if (std::memcmp(head, "BOIDSREC", 8) != 0) fail("not a boids recording (no BOIDSREC magic)");
    const std::uint32_t version = u32(head + 8), dims = u32(head + 12), width = u32(head + 16);
    if (version != 1) fail("recording format version " + std::to_string(version) + ", expected 1");
    if ((dims != 2 && dims != 3) || (width != 4 && width != 8))
      fail("bad header (dims " + std::to_string(dims) + ", value bytes " + std::to_string(width) +
           ")");
    dims_ = int(dims);
    width_ = int(width);
    std::fseek(f_, 0, SEEK_END);
    const long long size = std::ftell(f_);
    long long at = 32;
    while (at < size) {
      char fh[16];
      std::fseek(f_, at, SEEK_SET);
      if (std::fread(fh, 1, 16, f_) != 16)
        fail("truncated frame header at byte " + std::to_string(at));
      const std::uint64_t n = u64(fh + 8);
      const long long bytes = 16 + (long long)n * (5 + 2LL * dims_ * width_);
      if (n > (1ull << 32) || at + bytes > size)
        fail("truncated frame " + std::to_string(offsets_.size()) + " at byte " +
             std::to_string(at));
      offsets_.push_back(at);
      steps_.push_back(u64(fh));
      counts_.push_back(n);
      at += bytes;
    }
    if (offsets_.empty()) fail("holds no frame");
  }
  ~BoidsRecSource() override {
    if (f_) std::fclose(f_);
  }

  int dims() const override { return dims_; }
  std::size_t frames() const override { return offsets_.size(); }
  std::uint64_t step_of(std::size_t i) const override { return steps_[i]; }

  void read(std::size_t i, RecordedState& out) override {
    const std::size_t n = std::size_t(counts_[i]);
    std::fseek(f_, long(offsets_[i] + 16), SEEK_SET);
    out.step = steps_[i];
    out.id.resize(n);
    out.kind.resize(n);
    get(out.id.data(), 4 * n);
    get(out.kind.data(), n);
    std::vector<float>* comps[6] = {&out.x, &out.y, &out.z, &out.vx, &out.vy, &out.vz};
    for (int q = 0; q < 2; ++q) {
      for (int c = 0; c < 3; ++c) {
        std::vector<float>& v = *comps[3 * q + c];
        v.assign(n, 0.0f);
        if (c >= dims_) continue;
        if (width_ == 4) {
          get(v.data(), 4 * n);
        } else {
          scratch_.resize(n);
          get(scratch_.data(), 8 * n);
          for (std::size_t k = 0; k < n; ++k) v[k] = float(scratch_[k]);
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }
  void get(void* dst, std::size_t bytes) {
    if (std::fread(dst, 1, bytes, f_) != bytes) fail("read error (file changed while open?)");
  }
  static std::uint32_t u32(const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static std::uint64_t u64(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }

  std::string path_;
  std::FILE* f_ = nullptr;
  int dims_ = 3, width_ = 4;
  std::vector<long long> offsets_;
  std::vector<std::uint64_t> steps_, counts_;
  std::vector<double> scratch_;
};

}  // namespace

std::unique_ptr<ReplaySource> open_recording(const std::string& path) {
  return std::make_unique<BoidsRecSource>(path);
}

std::size_t frame_at_step(const ReplaySource& src, std::uint64_t step) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < src.frames(); ++i)
    if (src.step_of(i) <= step) best = i;
  return best;
}

}  // namespace boids::view
