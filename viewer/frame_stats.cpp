#include "viewer/frame_stats.hpp"

#include <algorithm>

namespace boids::view {

Spread spread(std::vector<double> v) {
  Spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v[v.size() / 2];
  s.p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
  return s;
}

Spread FrameStats::intervals(int moving, bool work) const {
  std::vector<double> v;
  for (const FrameSample& s : samples_)
    if (moving < 0 || s.moving == (moving == 1)) v.push_back(work ? s.work_ms : s.interval_ms);
  return spread(std::move(v));
}

void FrameStats::print(std::FILE* out, const std::string& buffers, std::size_t flock) const {
  const Spread all = intervals(-1), work = intervals(-1, true);
  std::fprintf(out,
               "boids-view: UI frame time median %.1f ms, 90th percentile %.1f ms over %zu "
               "frames (work before the swap: median %.1f ms; %s instance buffers)\n",
               all.median, all.p90, all.n, work.median, buffers.c_str());
  const char* names[2] = {"still", "moving"};
  for (int m = 0; m < 2; ++m) {
    const Spread s = intervals(m), w = intervals(m, true);
    if (s.n == 0) continue;
    std::fprintf(out,
                 "boids-view: UI frame time, camera %s: median %.1f ms (%.1f fps), 90th "
                 "percentile %.1f ms, over %zu frames (work median %.1f ms)\n",
                 names[m], s.median, 1000.0 / std::max(s.median, 1e-3), s.p90, s.n, w.median);
  }
  if (chunk_boids_ > 0) {
    const double us = 1000.0 * chunk_ms_ / chunk_boids_;
    std::fprintf(out,
                 "boids-view: density splats drawn in chunks: %.0f boids in %.0f ms, %.3f us a "
                 "boid (%.0f ms for the whole flock of %zu)\n",
                 chunk_boids_, chunk_ms_, us, us * double(flock) / 1000.0, flock);
  }
}

}  // namespace boids::view
