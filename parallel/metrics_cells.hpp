// The cell grid, block sums, scratch and union-find root of the flock metrics
// (parallel/metrics.cpp has the design; the pair pass is parallel/metrics_pairs.hpp).
// Internal: included only by parallel/metrics.cpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "boids/world_def.hpp"
#include "core/model.hpp"
#include "parallel/huge_alloc.hpp"
#include "parallel/metrics_pairs.hpp"

namespace boids::metrics_detail {

struct Grid {
  int n[3] = {1, 1, 1};
  double lo[3] = {0, 0, 0};
  double edge = 1;  // cubic cells of this edge, >= radius / reach
  int reach = 1;    // the neighbour search covers cell offsets -reach..reach
  bool wrap = false;
  std::size_t cells() const { return std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]); }
  int coord(double x, int a) const {
    const double c = (x - lo[a]) / edge;  // truncation is floor here: c >= 0
    if (!(c >= 0)) return 0;
    return c >= double(n[a]) ? n[a] - 1 : int(c);
  }
};

template <class Real>
struct Scratch {
  // The per-boid arrays in huge pages where the system allows (parallel/huge_alloc.hpp): a
  // run's first row touches them all for the first time.
  HugeVector<Real> sp[3], sv[3];    // the selected boids in cell order, kPairPad longer
  std::vector<std::size_t> offset;  // selected boids per block of slots
  HugeVector<std::uint32_t> cell;   // the cell of every slot of the store (or another kind)
  std::vector<std::uint32_t> start;
  HugeArray<std::atomic<std::uint32_t>> parent;
  std::size_t parent_cap = 0;
  HugeVector<std::uint32_t> size;
  std::vector<std::uint8_t> uniform;  // per cell, the link pass's
  std::vector<Partial> part;
  std::vector<PairSums> sums;
  std::vector<std::uint8_t> fallback;  // per cell: the fused row's pair pass (metrics.cpp)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // and its runs of boids
};

inline Grid make_grid(const WorldDef& def, double radius, std::size_t n, const double* lo,
                      const double* hi) {
  Grid g;
  g.wrap = def.boundary == Boundary::wrap;
  const double extent = g.wrap ? def.size : std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  // Cells of one radius searched one cell out. (Half-radius cells searched two out examine
  // (2.5 r)^D instead of (3 r)^D candidates, but their rows are so short that they measured
  // slower.) A margin above the radius covers the rounding of positions to the world's
  // precision.
  g.reach = 1;
  double edge = (radius * (1 + 1e-5) + extent * 1e-6) / g.reach;
  const double cap = 2.0 * double(n) + 64.0;
  for (;;) {
    double total = 1;
    for (int a = 0; a < def.dims; ++a) {
      if (g.wrap) {
        g.n[a] = std::max(1, int(std::min(1e6, std::floor(def.size / edge))));
      } else {
        g.lo[a] = lo[a];
        g.n[a] = int(std::min(1e6, std::floor((hi[a] - lo[a]) / edge))) + 1;
      }
      total *= g.n[a];
    }
    if (total <= cap) break;
    edge *= 1.25;
  }
  g.edge = g.wrap ? def.size / g.n[0] : edge;
  return g;
}

}  // namespace boids::metrics_detail
