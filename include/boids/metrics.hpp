// boids: flock metrics (order parameters) of a world's state. docs/metrics.md has every
// definition with its formula.
//
// The metrics describe the boids of one kind (kind 0, the ordinary boids, by default):
// polarization, milling, mean speed, mean nearest-neighbour distance, mean neighbour count as
// the model sees them, the number of clusters and the share of the largest. They are computed
// in O(n) with a cell list, in parallel, and are bit-identical for any thread count: every sum
// runs over fixed blocks of boids combined in a fixed order, never a thread-dependent
// reduction.
#pragma once

#include <cstdint>
#include <memory>

#include "boids/world.hpp"

namespace boids {

/// The metrics of one kind at one instant. Every field is finite; with no boid of the kind
/// all are 0.
struct FlockMetrics {
  std::uint64_t count = 0;     ///< boids of the kind (n)
  std::uint64_t moving = 0;    ///< of those, boids with |v| > 0 (m)
  double polarization = 0;     ///< |sum v_i/|v_i|| / m, in [0, 1]; 0 when m = 0
  double milling = 0;          ///< |sum r_i/|r_i| x v_i/|v_i|| / m, in [0, 1]; 0 when m = 0
  double mean_speed = 0;       ///< mean |v_i| over the n boids
  double mean_nnd = 0;         ///< mean distance to the nearest other boid of the kind
  double mean_neighbours = 0;  ///< mean neighbour count (radius, view cone, same kind)
  std::uint64_t clusters = 0;  ///< connected groups, linked when closer than rules.radius
  double largest_cluster = 0;  ///< boids in the largest group / n, in [0, 1]
};

/// Computes the metrics of the boids of `kind` (0, 1 or 2) in `world`, on the world's own
/// thread setting (def().threads or its host parallel-for). Throws Error for a bad kind.
BOIDS_API FlockMetrics compute_metrics(const World& world, int kind = 0);

/// The same, reusing its worker threads and buffers across calls: for computing the metrics
/// of a running world every few steps. One calculator must not be used from two threads at
/// once.
class BOIDS_API MetricsCalculator {
 public:
  /// threads: 0 = all cores, 1 = the calling thread only (as WorldDef::threads).
  /// host_parallel_for / host_context: as in WorldDef (then `threads` is ignored).
  explicit MetricsCalculator(int threads = 0, HostParallelFor host_parallel_for = nullptr,
                             void* host_context = nullptr);
  ~MetricsCalculator();
  MetricsCalculator(MetricsCalculator&&) noexcept;
  MetricsCalculator& operator=(MetricsCalculator&&) noexcept;

  FlockMetrics compute(const World& world, int kind = 0);
  /// compute() for a state no step will follow (the last row of a run): the same bits, but
  /// the grid engine's cell list is not built for a next step that never comes (compute()
  /// builds it, and the next step reuses it; here the metrics sort the boids themselves, which
  /// is cheaper when no step reuses the list). Any later step still runs correctly.
  FlockMetrics compute_final(const World& world, int kind = 0);

  /// The fused row (docs/metrics.md): asks the world's next step to measure this state as it
  /// goes (the neighbour counts and nearest distances from the step's own kernel), for
  /// compute_deferred() after it. Returns false, asking nothing, when the world cannot (another
  /// kind than 0, an engine or rule whose step has no row kernel): then call compute() now.
  bool defer(World& world, int kind = 0);
  /// After defer() returned true and then exactly one step: the metrics of the state defer()
  /// saw, bit for bit what compute() gave then. Throws Error when that state is gone (no
  /// defer(), more than one step, or the world's state or def replaced in between).
  FlockMetrics compute_deferred(const World& world, int kind = 0);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace boids
