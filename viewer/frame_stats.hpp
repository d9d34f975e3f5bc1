// The render loop's timing for --stats: every UI frame's interval (what a user sees), its
// work (the time from the frame's start to the buffer swap, without any wait for the next
// frame), and whether the camera moved in it, so the still and the moving camera are
// reported apart. Reported, never asserted: timings are not tests.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace boids::view {

struct FrameSample {
  double interval_ms = 0;  // since the previous frame's swap
  double work_ms = 0;      // from the frame's start to its swap
  bool moving = false;     // the camera (view or projection) changed in this frame
};

/// Median and 90th percentile of a list (0 when empty).
struct Spread {
  double median = 0, p90 = 0;
  std::size_t n = 0;
};
Spread spread(std::vector<double> v);

class FrameStats {
 public:
  void add(const FrameSample& s) { samples_.push_back(s); }
  /// A budgeted chunk of density splats: `boids` drawn in `ms`.
  void add_chunk(std::size_t boids, double ms) {
    chunk_boids_ += double(boids);
    chunk_ms_ += ms;
  }
  std::size_t size() const { return samples_.size(); }
  /// Intervals (work when `work`) of the frames with the camera still, moving, or all.
  Spread intervals(int moving /* 0 still, 1 moving, -1 all */, bool work = false) const;
  /// The "UI frame time" lines of --stats; `flock`: boids in the flock, for the splats' cost.
  void print(std::FILE* out, const std::string& buffers, std::size_t flock) const;

 private:
  std::vector<FrameSample> samples_;
  double chunk_boids_ = 0, chunk_ms_ = 0;
};

}  // namespace boids::view
