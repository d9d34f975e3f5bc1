// The cluster engine's pair count (engine.kind = "cluster"; the design is in
// core/cluster_kernels.hpp). Its layout is the cell list's (GridSettings::subcell_order: every
// kind-0 cell in the Morton order of 4 sub-cells per axis, then id, so that the kernels' groups
// of 4 consecutive boids are compact and their bounding boxes prune well; a pure function of
// the state, so any thread count gives the same slots).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"

namespace boids {

/// The x-row (y + n1 z) the cluster engine visits at place `at` of its sweep: blocks of
/// kSweepBlock y-rows, z by z through a block, then the next block. A row's stencil reads the
/// rows y - 1 .. y + 1 of the planes z - 1 .. z + 1; in plain order (y fastest) a plane's rows
/// were last used a whole plane (~20 MB at 1M boids) earlier and come from memory again; in
/// blocks the (kSweepBlock + 2) x 3 rows in use (~0.3 MB at the default density) stay in L2
/// from z to z + 1. A row's sums do not depend on when it runs: any order, the same bits.
inline constexpr std::size_t kSweepBlock = 8;
inline std::size_t cluster_sweep_row(std::size_t at, int n1, int n2) {
  const std::size_t ny = std::size_t(n1), nz = std::size_t(n2);
  const std::size_t full = ny / kSweepBlock * kSweepBlock;  // y-rows in whole blocks
  std::size_t y, z;
  if (at < full * nz) {
    const std::size_t r = at % (kSweepBlock * nz);
    z = r / kSweepBlock;
    y = at / (kSweepBlock * nz) * kSweepBlock + r % kSweepBlock;
  } else {
    const std::size_t r = at - full * nz, rest = ny - full;
    z = r / rest;
    y = full + r % rest;
  }
  return y + ny * z;
}

/// Pairs the cluster kernel examines for the kind-0 boids of `g` (for each boid, every boid of
/// every group its i-pair keeps by the box test, self excluded; padding lanes not counted)
/// and, through the model's scalar accumulate_pair, the neighbours found. Scalar and
/// independent of the SIMD kernels.
template <class Real>
PairCounts cluster_count_pairs(const GridView<Real>& g, Executor& ex);

}  // namespace boids
