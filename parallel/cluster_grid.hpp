// The cluster engine's pair count (engine.kind = "cluster"; the design is in
// core/cluster_kernels.hpp). Its layout is the cell list's (GridSettings::subcell_order: every
// kind-0 cell in the Morton order of 4 sub-cells per axis, then id, so that the kernels' groups
// of 4 consecutive boids are compact and their bounding boxes prune well; a pure function of
// the state, so any thread count gives the same slots).
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"

namespace boids {

/// Pairs the cluster kernel examines for the kind-0 boids of `g` (for each boid, every boid of
/// every group its i-pair keeps by the box test, self excluded; padding lanes not counted)
/// and, through the model's scalar accumulate_pair, the neighbours found. Scalar and
/// independent of the SIMD kernels.
template <class Real>
PairCounts cluster_count_pairs(const GridView<Real>& g, Executor& ex);

}  // namespace boids
