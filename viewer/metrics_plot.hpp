// A small plot of flock metrics over time for the panel, with an SVG export.
//
// The metrics themselves (polarization, milling, number of clusters) come from the library's
// MetricsCalculator (include/boids/metrics.hpp): SimRunner::publish() computes them for every
// published state on the simulation thread into Frame::metrics, and the render loop push()es
// each new frame's sample here. Nothing here computes a metric.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace boids::view {

struct MetricsSample {
  std::uint64_t step = 0;
  double polarization = 0;  // |mean heading|, 0..1
  double milling = 0;       // |mean angular momentum about the centre| / (r v), 0..1
  double clusters = 0;      // number of clusters
};

class MetricsPlot {
 public:
  static constexpr std::size_t kMaxSamples = 600;
  void push(const MetricsSample& s);
  void clear() { samples_.clear(); }
  bool empty() const { return samples_.empty(); }
  /// The panel section: one line plot per metric, and the export button's result.
  void draw_panel();
  /// Writes the plot as SVG; returns an error message, empty on success.
  std::string write_svg(const std::string& path) const;

 private:
  std::deque<MetricsSample> samples_;
  std::string note_;
};

}  // namespace boids::view
