// Shared piece of the metrics tests that compare two rows bit for bit (test_metrics_exact.cpp,
// test_metrics_shared.cpp, test_metrics_fused.cpp).
#pragma once

#include "boids/metrics.hpp"

namespace boids::test {

/// Every field of the two rows equal: counts exactly, the figures bit for bit (== on doubles,
/// which no metric leaves NaN).
inline bool same_metrics(const FlockMetrics& a, const FlockMetrics& b) {
  return a.count == b.count && a.moving == b.moving && a.polarization == b.polarization &&
         a.milling == b.milling && a.mean_speed == b.mean_speed && a.mean_nnd == b.mean_nnd &&
         a.mean_neighbours == b.mean_neighbours && a.clusters == b.clusters &&
         a.largest_cluster == b.largest_cluster;
}

}  // namespace boids::test
