// The cell list of the grid engine, rebuilt every step.
//
//   1. plan   : cell size from the kind-0 radius (cell = r / cells_per_radius, a hair larger so
//               rounding never loses a pair), cells per axis, stencil reach per axis. In a
//               wrapping world the cells tile the box exactly; an axis with fewer than 2*reach+1
//               cells falls back to reach 1, then collapses to one cell (min-image mode). In an
//               open world the grid spans the flock's bounding box (fixed-block reduction). The
//               cell count is capped at about 2 per boid: past it cells grow, so a spread-out
//               flock costs candidates, never memory.
//   2. keys   : the cell of every kind-0 boid; kinds 1 and 2 (predators, leaders: few) go to one
//               extra bucket after the last cell. Computed in both passes of the sort, not
//               stored (memory: docs/engine.md, "Memory").
//   3. sort   : a counting sort over the src slots, split in fixed blocks of slots: per-block
//               histograms, one prefix sum, a scatter that moves each boid's positions,
//               velocities, kind and id straight to its bucket in dst (no map, no gather
//               pass), so every x-row of neighbour cells is one contiguous run for the kernels.
//   4. order  : inside every bucket the boids are sorted by id (a cell's boids come in a few
//               runs already in id order). One block (one thread): the scatter itself moves a
//               boid back past larger ids of its bucket, while the bucket is in cache. Several
//               blocks: a pass over the buckets checks each and permutes the few out of order.
//               The order is therefore canonical —
//               cell, then id — a pure function of the state, independent of the thread count
//               and of the previous slot order; no id rank map is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/aligned.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "parallel/threading.hpp"

namespace boids {

/// The geometry of one step's grid.
struct GridPlan {
  int dims = 3;
  int n[3] = {1, 1, 1};      ///< cells per axis
  int reach[3] = {0, 0, 0};  ///< stencil half-width per axis
  double lo[3] = {0, 0, 0};  ///< grid origin
  double inv_cell[3] = {0, 0, 0};
  WrapMode wrap = WrapMode::none;
  std::size_t ncells = 1;
};

/// What the plan depends on besides the flock's bounding box.
struct GridSettings {
  int dims = 3;
  Boundary boundary = Boundary::wrap;
  double size = 100;
  double radius = 9;  ///< kind 0's perception radius
  int cells_per_radius = 1;
  /// When set, build() uses this plan instead of planning from its own store: the
  /// distributed engine's global plan over a rank's slab and ghosts (mpi/distributed_grid.cpp).
  const GridPlan* plan = nullptr;
  /// The cluster engine's order (engine.kind = "cluster", core/cluster_kernels.hpp): inside a
  /// kind-0 cell by the Morton key of the boid's sub-cell (4 per axis, subcell_key), then by
  /// id, instead of by id alone. Still a pure function of the state.
  bool subcell_order = false;
};

/// Plans the grid; lo/hi is the kind-0 bounding box (used in open worlds only).
GridPlan plan_grid(const GridSettings& s, const double lo[3], const double hi[3],
                   std::size_t boids);

template <class Real>
class CellList {
 public:
  /// Sorts `src` (any slot order) into `dst` in cell order, then id order inside a cell (with
  /// gs.subcell_order: sub-cell key, then id).
  void build(const GridSettings& gs, const BoidStore<Real>& src, BoidStore<Real>& dst,
             Executor& ex);

  /// The kernels' view of `dst` as last built.
  GridView<Real> view(const BoidStore<Real>& dst, const ModelParams<Real>& m) const;

  const GridPlan& plan() const noexcept { return plan_; }
  /// ncells + 2 entries: cell c holds [start[c], start[c + 1]); the extra bucket ncells holds
  /// the kind 1/2 agents, [boid_end(), n).
  const std::uint32_t* cell_start() const noexcept { return cell_start_.data(); }
  std::uint32_t boid_end() const noexcept { return cell_start_[plan_.ncells]; }
  std::uint32_t max_occupancy() const noexcept { return max_occupancy_; }
  /// The id sort's work in the last build: boids moved back into id order as they were
  /// scattered (one block: one thread), or buckets re-sorted after a parallel scatter. Zero
  /// when no boid changed cell since the last build (src already in cell, id order).
  std::uint64_t sort_fixups() const noexcept { return sort_fixups_; }
  /// Bytes held by the cell list's arrays.
  std::size_t bytes() const noexcept;

 private:
  GridPlan plan_;
  AlignedVector<std::uint32_t> cell_start_{0, 0};
  std::vector<std::uint32_t> hist_;  // per-block histograms, then per-block offsets
  std::uint32_t max_occupancy_ = 0;
  std::uint64_t sort_fixups_ = 0;
  std::vector<std::uint32_t> large_;  // one-block build: large buckets to sort after the scatter
  std::vector<std::uint8_t> sub_;     // subcell_order: each dst slot's sub-cell key
};

/// Makes `dst` hold `n` boids with at least kPadElems readable slots past the end, so the
/// kernels' full-width loads at a run's tail stay inside the arrays.
template <class Real>
void reserve_padded(BoidStore<Real>& dst, int dims, std::size_t n);

extern template class CellList<float>;
extern template class CellList<double>;

}  // namespace boids
