// The grid engine's topological gather (parallel/list_step.cpp) compiled once per instruction
// set, like the metrics pair pass (parallel/metrics_pairs.hpp) and chosen the same way
// (dispatched_isa, BOIDS_MAX_ISA): the k nearest visible candidates of one boid by
// (|d|^2, id), from the cell's stencil runs.
//
// Each batch of W candidates gives W squared distances with nlist::offer's arithmetic (d = p_j
// - p_i, the per-pair minimum image under wrap, |d|^2 summed in component order); only the
// lanes within the radius and not farther than the current k-th nearest leave the batch, as
// bits of a mask, for the view test and the insertion into a sorted array of k. So most of
// the stencil costs a few vector operations. The set kept is the k smallest (|d|^2, id) among
// the visible candidates, the same as nlist::select on the full list, on every path.
#pragma once

#include <cstdint>

#include "core/kernels.hpp"
#include "core/neighbour_list.hpp"

namespace boids::list_detail {

/// What the gather reads: plain data, so the per-ISA units share no inline code.
template <class Real>
struct GatherInput {
  const Real* p[3] = {nullptr, nullptr, nullptr};  ///< readable kPadElems - 1 past the end
  const Real* v[3] = {nullptr, nullptr, nullptr};
  const std::uint32_t* id = nullptr;
  Real size = 0, inv_size = 0, radius2 = 0, cos_half_view = 0;
  bool full_view = true;
};

/// Fills best[0 .. *count) with the at most k nearest visible candidates of boid i among the
/// runs, sorted by (|d|^2, id).
template <class Real>
using GatherFn = void (*)(const GatherInput<Real>& in, std::uint32_t i,
                          const CandidateRun<Real>* runs, int nr, int k,
                          nlist::Neighbour<Real>* best, int* count);

/// Per-ISA tables: [dims - 2][wrap].
template <class Real>
struct GatherTable {
  GatherFn<Real> fn[2][2] = {};
};
void list_gather_scalar(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_sse42(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_avx2(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_avx512(GatherTable<float>& f, GatherTable<double>& d);

/// The gather for dispatched_isa(), a dimension and whether the box wraps.
template <class Real>
GatherFn<Real> select_gather_fn(int dims, bool wrap);

}  // namespace boids::list_detail
