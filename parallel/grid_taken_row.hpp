// The grid engine's side of the flock metrics (parallel/grid_engine.hpp: grid_shared_cells,
// grid_request_row, grid_taken_row; parallel/metrics.cpp, MetricsCalculator::defer): the
// interface the metrics reach the engine by (the hooks in parallel/grid_taken_row.cpp cast the
// world's engine to it), the shape test of the engine's cell list, and the bookkeeping of a
// row taken from a step. Used by parallel/grid_engine.cpp only.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernels.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/grid_engine.hpp"
#include "parallel/huge_alloc.hpp"

namespace boids {

/// What the grid engine offers the metrics hooks.
template <class Real>
class GridRowSource {
 public:
  /// grid_shared_cells(): the next step's cell list, built now if need be (and `build`).
  virtual bool shared_cells(SharedCells<Real>& out, bool build) = 0;
  /// grid_request_row(): keep the next step's input (and its counts, where it can).
  virtual bool request_row() = 0;
  /// grid_taken_row(): what the last step kept.
  virtual bool taken_row(TakenRow<Real>& out) const = 0;

 protected:
  GridRowSource() = default;
  GridRowSource(const GridRowSource&) = default;
  GridRowSource& operator=(const GridRowSource&) = default;
  ~GridRowSource() = default;
};

/// out <- `cells` and `in` when their shape is the metrics' (cubic cells >= the radius, one
/// cell out); false, and `out` untouched, otherwise.
template <class Real>
bool cells_shape(const CellList<Real>& cells, const BoidStore<Real>& in, int dims,
                 SharedCells<Real>& out) {
  const GridPlan& g = cells.plan();
  for (int a = 0; a < dims; ++a) {
    if (g.reach[a] != 1 || g.inv_cell[a] != g.inv_cell[0]) return false;
  }
  for (int c = 0; c < 3; ++c) {
    out.p[c] = in.p[c].data();
    out.v[c] = in.v[c].data();
    out.n[c] = g.n[c];
    out.lo[c] = g.lo[c];
  }
  out.readable = in.p[0].size();
  out.cell_start = cells.cell_start();
  out.edge = 1 / g.inv_cell[0];
  return true;
}

/// The metrics' row of one step: asked for the next step (request), kept by that step (its
/// input stays in the engine until the next build); with the row_nn kernel (begin) each kind 0
/// boid's count and nearest |d|^2 over its stencil too.
template <class Real>
class TakenRowKeeper {
 public:
  /// Asks the next step for a row when `possible` (its step has a row kernel); returns it.
  bool request(bool possible) {
    requested_ = requested_ || possible;
    return possible;
  }
  /// The state or the def was replaced: nothing asked, nothing kept.
  void drop() { requested_ = valid_ = false; }
  /// The kept input is rewritten (a new cell list).
  void invalidate() { valid_ = false; }

  /// A step of the state at step count `step` starts, over `cells` and `in`. When a row was
  /// asked for it, its input is kept and, when `fusable` (the step runs the row kernel) and the
  /// cells have the metrics' shape, the row_nn kernel is returned for the step to run instead
  /// of its own, with nearest() for GridView::nearest2; else null.
  RowKernel<Real> begin(std::uint64_t step, bool fusable, Isa isa, const CellList<Real>& cells,
                        const BoidStore<Real>& in, int dims, bool full_view) {
    valid_ = requested_;
    requested_ = false;
    fused_ = false;
    step_ = step;
    SharedCells<Real> shape;
    if (!valid_ || !fusable || !cells_shape(cells, in, dims, shape)) return nullptr;
    const RowKernel<Real> kernel =
        select_row_kernel_nn<Real>(isa, dims, cells.plan().wrap, full_view);
    fused_ = kernel != nullptr;
    if (fused_) {
      nn_.resize(in.n);
      k_.resize(cells.boid_end());
    }
    return kernel;
  }
  /// The nearest |d|^2 array row_nn writes (GridView::nearest2), after begin().
  Real* nearest() { return nn_.data(); }
  /// The counts of slots [first, last) from their row's sums.
  void keep_counts(std::uint32_t first, std::uint32_t last, const FlockSums<Real>* sums) {
    for (std::uint32_t j = first; j < last; ++j) k_[j] = sums[j - first].k;
  }

  /// grid_taken_row(): `cells` and `in` are the engine's, unchanged since the step.
  bool fill(TakenRow<Real>& out, const CellList<Real>& cells, const BoidStore<Real>& in,
            int dims) const {
    if (!valid_) return false;
    out = TakenRow<Real>{};
    const bool shaped = cells_shape(cells, in, dims, out.cells);
    out.fused = fused_ && shaped;
    out.in = &in;
    out.shift = cells.plan().wrap == WrapMode::shift;
    out.k = k_.data();
    out.nearest2 = nn_.data();
    out.step = step_;
    return true;
  }

 private:
  bool requested_ = false, valid_ = false, fused_ = false;
  std::uint64_t step_ = 0;
  HugeVector<std::int32_t> k_;  // huge pages where allowed (parallel/huge_alloc.hpp)
  HugeVector<Real> nn_;
};

}  // namespace boids
