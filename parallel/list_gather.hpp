// The grid engine's neighbour-list gather (parallel/list_step.cpp) compiled once per
// instruction set, like the metrics pair pass (parallel/metrics_pairs.hpp) and chosen the same
// way (dispatched_isa, BOIDS_MAX_ISA): the visible candidates of one boid among the cell's
// stencil runs, compacted into arrays.
//
// Each batch of W candidates gives W displacements and squared distances with nlist::offer's
// arithmetic (d = p_j - p_i, the per-pair minimum image under wrap, |d|^2 summed in component
// order, the same view test), and the lanes that pass are left-packed into the output with no
// data-dependent branch (a permutation from a table on AVX2, a fixed-count loop elsewhere).
// With WrapMode::shift the minimum image is the run's image shift: for every candidate within
// the radius it is the same operation on the same operands ((d - size) + 0, (d - 0) + size or
// (d - 0) + 0), since such a candidate of a run shifted by -size has d / size > 1 - r / size
// >= 3/5, and one of an unshifted run |d| < r <= 2 size / 5 (at least 2 * reach + 1 cells of
// at least r / reach per axis, reach <= 2); a candidate whose run image is not its minimum
// image is at least r away in that one too. So the list holds the candidates nlist::gather keeps
// from the same slots, with the same d and |d|^2, on every instruction set (in the source's order,
// which the selection by (|d|^2, id) and the id order of the sums do not depend on).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/kernels.hpp"

namespace boids::list_detail {

/// What the gather reads: plain data, so the per-ISA units share no inline code.
template <class Real>
struct GatherInput {
  const Real* p[3] = {nullptr, nullptr, nullptr};  ///< readable kPadElems - 1 past the end
  const Real* v[3] = {nullptr, nullptr, nullptr};
  Real size = 0, inv_size = 0, radius2 = 0, cos_half_view = 0;
  bool full_view = true;
};

/// Where the gather writes: the visible candidates' d (D arrays), |d|^2 and slot. Each array
/// needs room for the runs' total length plus kGatherSlack.
template <class Real>
struct GatherOut {
  Real* d[3] = {nullptr, nullptr, nullptr};
  Real* dist2 = nullptr;
  std::uint32_t* slot = nullptr;
};

/// Elements a compacting store may write past the last kept candidate.
inline constexpr std::uint32_t kGatherSlack = 64;

/// Where the candidates' positions are: the step's store (slot = index; self = i) or a row's
/// copy of its stencil (list_step.cpp), with each element's slot and the index of boid i's
/// own copy. Readable W - 1 elements past every run's end.
template <class Real>
struct GatherSource {
  const Real* p[3] = {nullptr, nullptr, nullptr};
  const std::uint32_t* slot = nullptr;  ///< nullptr: the index is the slot
  std::uint32_t self = 0;               ///< index of boid i, never a candidate
};

/// Writes the visible candidates of boid i among the runs of `src` (every candidate but self
/// within the radius and, for a moving boid with a view cone, inside it) to `out` in run
/// order and returns their number. With k > 0 (at most kGatherMaxK; topological) the list is
/// pruned as it grows: only candidates not farther than the k-th nearest of those found so far
/// stay (ties included), a superset of the k nearest by (|d|^2, id).
template <class Real>
using GatherFn = int (*)(const GatherInput<Real>& in, std::uint32_t i,
                         const GatherSource<Real>& src, const CandidateRun<Real>* runs, int nr,
                         int k, const GatherOut<Real>& out);

/// Largest k the gather prunes for.
inline constexpr int kGatherMaxK = 12;

/// Topological steps 2-3 (core/neighbour_list.hpp) for a gather of n <= N candidates
/// (N = 8 or 16): the min(n, k) smallest by (|d|^2, id) among dist2[0 .. n) (ids id[slot[t]]),
/// written to order[] as indices into the gather's arrays in increasing id order. Returns
/// min(n, k). Every element's rank is counted over all N (padded) places: no data-dependent
/// branch, and the same set and order as nlist::select.
template <class Real>
using OrderFn = int (*)(const Real* dist2, const std::uint32_t* slot, const std::uint32_t* id,
                        int n, int k, std::uint32_t* order);

/// The selected neighbours of a run of boids, staged by list_step.cpp for the sums: boid b's
/// cnt[b] neighbours, in id order, at d[c][t * stride + b] and v[c][t * stride + b] (t <
/// cnt[b]; their offsets and velocities). cnt holds the counts as Real, 0 past the last boid;
/// every array is readable up to a whole SIMD batch past the last boid.
template <class Real>
struct SumStage {
  const Real* d[3] = {nullptr, nullptr, nullptr};
  const Real* v[3] = {nullptr, nullptr, nullptr};
  const Real* cnt = nullptr;
  std::size_t stride = 0;
};

/// The FlockSums of boids [0, count) of a SumStage into out[0 .. count): for each boid,
/// accumulate_pair over its neighbours in the staged (id) order, with SIMD lanes across boids,
/// so every boid's own additions keep their operands and order: the same bits. Every staged
/// neighbour is visible (the gather's test) and kp.track_nearest is off (list_step.cpp keeps
/// the scalar sums otherwise); kp gives the separation radius and sep_linear.
template <class Real>
using SumFn = void (*)(const SumStage<Real>& s, std::uint32_t count, const KindParams<Real>& kp,
                       FlockSums<Real>* out);

/// The float AVX2 / AVX-512 lane kernel's selections of one x-row, staged for the row's finish
/// (LaneFinishFn; parallel/list_lanes_multi_impl.hpp): boid rb of the row has n[rb] neighbours
/// (-1: the kernel did not settle it) at row-copy indices q[t * stride + rb], t < n[rb], in no
/// particular order; wrap[rb] has bit a set where the boid's cell takes the minimum image on
/// axis a. n is -1 from the row's end to stride.
struct LaneStage {
  std::int32_t* n = nullptr;
  std::uint32_t* q = nullptr;
  std::int32_t* wrap = nullptr;
  std::size_t stride = 0;
};

/// The topological lane kernel's cell (parallel/list_lanes_impl.hpp): boids b < count (slots
/// bslot[b], or first + b when bslot is null; at copy index self0 + b) against the candidates
/// [begin, end) of a row copy (positions cp, slots cslot and ids id, each by copy index;
/// readable as GatherSource). r2: each boid's radius^2, or null for GatherInput's.
template <class Real>
struct LaneCell {
  const Real* cp[3] = {nullptr, nullptr, nullptr};
  const std::uint32_t* cslot = nullptr;
  const std::uint32_t* id = nullptr;
  const std::uint32_t* bslot = nullptr;
  const Real* r2 = nullptr;
  std::uint32_t begin = 0, end = 0, self0 = 0, first = 0, count = 0;
  /// The minimum-image flavour's axes (read by every lane kernel): false where the cell's
  /// stencil crosses no seam of a shift grid (list_step.cpp) or of the own grid's wrapped
  /// axes of 5 or more cells (list_fine_step.hpp), so the plain d is every visible
  /// candidate's minimum image there.
  bool wrap_axis[3] = {true, true, true};
  /// Where the float AVX2 / AVX-512 kernel counts its groups of 4, 2 and 1 boids, and in [3]
  /// those whose insertion ran short (null: not counted; parallel/list_lanes_multi_impl.hpp);
  /// in [4] the double kernel's staged groups on AVX-512 (parallel/list_lanes_dz_impl.hpp).
  std::uint64_t* groups = nullptr;
  /// Where the float AVX2 / AVX-512 kernel and double on AVX-512 stage their selections (required
  /// there; the others sum them themselves), the cell's first boid at row index row_off. Only when
  /// every id of the store is below 0x7f800000 (ids then order as float bit patterns; it does not
  /// check).
  const LaneStage* stage = nullptr;
  std::uint32_t row_off = 0;
  /// Float on AVX2 / AVX-512 with a stage: the ids by slot (cslot's index space), for the row
  /// finish, which then needs no ids in the copy (`id` unused); null: the copy's ids.
  const std::uint32_t* slot_id = nullptr;
};

/// Candidates a lane kernel's range may hold (a candidate's index is kept in a key's low bits).
inline constexpr std::uint32_t kLaneMaxRange = 1024;
/// Largest k of the lane kernel (it keeps k + 1 keys per lane, at most 16).
inline constexpr int kLaneMaxK = 15;

/// Topological steps 2-3 and the sums for a cell's boids at once, the boids in SIMD lanes:
/// the visible candidates (gather_visible's test and arithmetic), the k nearest by (|d|^2, id)
/// and their FlockSums in id order into out[0 .. count), as sum_staged would give them (kp as
/// SumFn's). A boid whose selection the keys cannot settle exactly (ties in |d|^2 at the k-th
/// place, parallel/list_lanes_impl.hpp) gets out[b].k = -1 and must take the gather and
/// topo_order; returns how many did. k <= kLaneMaxK, end - begin <= kLaneMaxRange.
template <class Real>
using LaneFn = std::uint32_t (*)(const GatherInput<Real>& in, const LaneCell<Real>& c, int k,
                                 const KindParams<Real>& kp, FlockSums<Real>* out);

/// The sums of the boids a LaneFn staged (LaneCell::stage) in one x-row of `count` boids, slots
/// row_first + rb: each boid's n[rb] >= 0 neighbours sorted by id and summed as sum_staged sums
/// them, into out[rb]; the other boids' out[rb] untouched. c gives the row copy (cp, cslot, id).
template <class Real>
using LaneFinishFn = void (*)(const GatherInput<Real>& in, const LaneCell<Real>& c,
                              const LaneStage& st, std::uint32_t row_first, std::uint32_t count,
                              int k, const KindParams<Real>& kp, FlockSums<Real>* out);

/// Per-ISA tables: gathers [dims - 2][wrap mode]; orders for N = 8 and 16; sums [dims - 2];
/// lane kernels [dims - 2][0: plain d, 1: minimum image][k < 4, 8, 16].
template <class Real>
struct GatherTable {
  GatherFn<Real> fn[2][3] = {};
  OrderFn<Real> order[2] = {};
  SumFn<Real> sum[2] = {};
  LaneFn<Real> lane[2][2][3] = {};
  LaneFinishFn<Real> lane_finish[2][2][3] = {};  // where the lane kernels stage (float only)
};
void list_gather_scalar(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_sse42(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_avx2(GatherTable<float>& f, GatherTable<double>& d);
void list_gather_avx512(GatherTable<float>& f, GatherTable<double>& d);

/// The gather for isa (at most dispatched_isa()), a dimension and the grid's wrap mode.
template <class Real>
GatherFn<Real> select_gather_fn(Isa isa, int dims, WrapMode wrap);

/// The OrderFn for isa (at most dispatched_isa()) and N = 8 (small = true) or 16.
template <class Real>
OrderFn<Real> select_order_fn(Isa isa, bool small);

/// The SumFn for isa (at most dispatched_isa()) and a dimension.
template <class Real>
SumFn<Real> select_sum_fn(Isa isa, int dims);

/// The LaneFn for isa (at most dispatched_isa()), a dimension, the minimum image (true) or the
/// plain difference, and k <= kLaneMaxK; nullptr where that instruction set's unit has none (its
/// packs are wider than a cell's boids, parallel/list_gather_impl.hpp).
template <class Real>
LaneFn<Real> select_lane_fn(Isa isa, int dims, bool min_image, int k);

/// The LaneFinishFn of the table select_lane_fn takes its kernel from, or nullptr where that
/// kernel does not stage.
template <class Real>
LaneFinishFn<Real> select_lane_finish_fn(Isa isa, int dims, bool min_image, int k);

}  // namespace boids::list_detail
