// The fast engine: cell-list neighbour search, SIMD kernels, TBB threads. docs/engine.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/engine.hpp"

namespace boids {

/// Creates the grid engine for def.precision.
std::unique_ptr<EngineBase> make_grid_engine(const WorldDef& def);

// The benchmark hooks grid_build_cells() and grid_neighbour_pass() are public
// (boids/engine_info.hpp).

/// The grid engine's cell list of the current state, shared with the flock metrics
/// (parallel/metrics.cpp): kind 0's boids in cell order, cell c holding [cell_start[c],
/// cell_start[c + 1]), cubic cells of edge `edge` >= kind 0's radius searched one cell out.
template <class Real>
struct SharedCells {
  const Real* p[3] = {nullptr, nullptr, nullptr};
  const Real* v[3] = {nullptr, nullptr, nullptr};
  std::size_t readable = 0;                   ///< elements of p and v that may be read
  const std::uint32_t* cell_start = nullptr;  ///< n[0] * n[1] * n[2] + 1 entries
  int n[3] = {1, 1, 1};
  double lo[3] = {0, 0, 0};
  double edge = 0;
};

/// Fills `out` with the cell list the next step() will use, building it now from the current
/// state if it is not built yet (the step then reuses it instead of building its own: the
/// state is the same, so are the bits). False, and `out` untouched, when `w` has no grid engine
/// of this precision or its cells are not that shape (cluster order, cells_per_radius 2, an
/// axis collapsed to one cell). Valid until the world is stepped or changed, or a view of it is
/// taken (the id-order views reuse the cell order's id column).
template <class Real>
bool grid_shared_cells(const World& w, SharedCells<Real>& out);

/// Test hook (tests/test_engine_equality.cpp): the neighbour count of every boid, in id order
/// (as World::ids()), that the next step would use, found by the kernel step() runs (SIMD,
/// scalar or generic) over a fresh cell list of the current state, and for kinds 1/2 by their
/// own loop. The state is unchanged.
std::vector<std::int32_t> grid_neighbour_counts(World& w);

}  // namespace boids
