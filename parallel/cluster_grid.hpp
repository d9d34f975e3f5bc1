// The cluster engine's layout pass and its pair count (engine.kind = "cluster"; the design is
// in core/cluster_kernels.hpp). After the cell list's sort (cell, then id), every kind-0 cell
// is re-sorted by a Morton order of 4 sub-cells per axis (then id), so that the kernels' groups
// of 4 consecutive boids are compact and their bounding boxes prune well. The order stays a
// pure function of the state: any thread count gives the same slots.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"

namespace boids {

template <class Real>
class ClusterOrder {
 public:
  /// Re-sorts the kind-0 cells of `in` (cell list `cl` just built into it, so each cell is in
  /// id order) into sub-cell order, then id. Holds no memory per boid.
  static void apply(const CellList<Real>& cl, BoidStore<Real>& in, Executor& ex);
};

/// Pairs the cluster kernel examines for the kind-0 boids of `g` (for each boid, every boid of
/// every group its i-pair keeps by the box test, self excluded; padding lanes not counted)
/// and, through the model's scalar accumulate_pair, the neighbours found. Scalar and
/// independent of the SIMD kernels.
template <class Real>
PairCounts cluster_count_pairs(const GridView<Real>& g, Executor& ex);

extern template class ClusterOrder<float>;
extern template class ClusterOrder<double>;

}  // namespace boids
