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
/// taken (the id-order views reuse the cell order's id column). With `build` false the list is
/// only returned when it is built already (false otherwise): for a state no step will follow
/// (MetricsCalculator::compute_final), whose own sort is cheaper than the engine's build.
template <class Real>
bool grid_shared_cells(const World& w, SharedCells<Real>& out, bool build = true);

/// The flock metrics' row taken from a step (parallel/metrics.cpp, MetricsCalculator::defer):
/// after grid_request_row(), the next step keeps its input (the state the request saw, in cell
/// order) and, where its row kernel allows (`fused`), each kind 0 boid's neighbour count and
/// smallest |d|^2 over its stencil, both from that kernel.
template <class Real>
struct TakenRow {
  SharedCells<Real> cells;              ///< the step's input cell list (kind 0)
  const BoidStore<Real>* in = nullptr;  ///< the step's input, every kind (1, 2 after kind 0)
  bool fused = false;                   ///< k and nearest2 are filled
  bool shift = false;                   ///< the kernel added image shifts (wrap)
  const std::int32_t* k = nullptr;      ///< per cell-order slot of kind 0: the kernel's count
  const Real* nearest2 = nullptr;       ///< per slot: the smallest |d|^2 over the stencil
  std::uint64_t step = 0;               ///< the step count of that state
};

/// Asks the next step of `w` to keep its input for the metrics (TakenRow). False, and nothing
/// asked, when `w` has no grid engine or its step has no row kernel (topological neighbours,
/// the couzin profile, the cluster engine, engine.cells_per_radius 2).
bool grid_request_row(World& w);

/// The row the last step kept (grid_request_row), while it is still there: false once the
/// world is stepped again, its state or def replaced, or its cells rebuilt.
template <class Real>
bool grid_taken_row(const World& w, TakenRow<Real>& out);

/// Test hook (tests/test_engine_equality.cpp): the neighbour count of every boid, in id order
/// (as World::ids()), that the next step would use, found by the kernel step() runs (SIMD,
/// scalar or generic) over a fresh cell list of the current state, and for kinds 1/2 by their
/// own loop. The state is unchanged.
std::vector<std::int32_t> grid_neighbour_counts(World& w);

}  // namespace boids
