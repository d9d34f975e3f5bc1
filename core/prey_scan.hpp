// One predator's look at the prey near it, over an engine's slot ranges (NearSlots,
// core/model.hpp), compiled once per instruction set (prey_scan_<isa>.cpp, chosen at run time
// like the row kernels: dispatched_isa, BOIDS_MAX_ISA). Used by prepare_behaviours()
// (core/behaviour_prepare.cpp) for the grid engine; the results are bit-identical to a scalar
// loop over the same slots in ascending order, on every instruction set.
//
// Design. Candidates are tested W at a time (the minimum image with the comparisons and the
// rounding of min_image(), the squared distance and the view cone in the scalar code's
// operation order), so the masks equal the scalar tests lane for lane. What the chase needs
// from the prey in view:
//  - their count and the nearest (smallest d², ties to the lower id): the same in any order;
//  - the sum of their offsets in double, which the scalar definition adds in slot order.
//    In float worlds every offset is a float; when each is a multiple of 2^-30 and their
//    count times the radius stays below 2^22, every partial sum in any order is exact (a
//    multiple of 2^-30 below 2^23 fits a double's 53 bits), so W double lanes summed in any
//    order give the slot-order sum's bits. Each visible offset's multiple-of-2^-30 property
//    is tested in the lanes (positions at least 2^-7 from the origin planes always pass);
//    when the test or the bound fails the predator is summed again lane by lane in slot
//    order. Double worlds always sum lane by lane in slot order (a double's offsets have no
//    such common grid).
// Besides, when `flee` is set, the scan marks in `seen` every prey slot that sees this
// predator (its own radius and view cone, the offset from the prey as offset() computes it):
// the grid engine then finishes only those prey on the behaviour path. Distinct predators
// may mark one slot at once, so the marks are relaxed atomic byte stores of 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/kernels.hpp"

namespace boids {

template <class Real>
struct PreyScanArgs {
  const Real* p[3] = {nullptr, nullptr, nullptr};  // the store's positions
  const Real* v[3] = {nullptr, nullptr, nullptr};  // and velocities
  std::size_t readable = 0;  // slots [0, readable) of p may be read (the store's padding)
  const std::uint8_t* kind = nullptr;
  std::uint32_t kind0_end = 0;  // slots [0, kind0_end) are all of kind 0 (may be 0: unknown)
  const std::uint32_t* id = nullptr;
  Real size = 0, inv_size = 0;
  Real ap[3] = {0, 0, 0}, av[3] = {0, 0, 0}, av_len = 0;  // the predator
  // The chase: prey within the predator's radius and view cone.
  bool chase = false, full_view = true;
  Real radius2 = 0, cos_half_view = 0;
  // The prey's side: prey whose own radius and view cone hold the predator.
  bool flee = false, prey_full_view = true;
  Real prey_radius2 = 0, prey_cos_half_view = 0;
  std::uint8_t* seen = nullptr;  // per slot: set to 1 when that prey sees the predator
  // The highest instruction set prey_views may use (ModelParams::isa; the default: the best
  // this binary and CPU have).
  Isa isa = Isa::avx512;
};

/// What the chase needs: the count, the slot-order double sum of the offsets, the nearest.
template <class Real>
struct PreyScanResult {
  std::int32_t prey = 0;
  double sum[3] = {0, 0, 0};
  Real best2 = 0;
  std::uint32_t best_id = 0;
  std::uint32_t best_slot = 0;  // valid when prey > 0
  Real nearest_d[3] = {0, 0, 0};
};

/// Asks the cache for the positions (D coordinates) and kinds of slots [begin, end) of each
/// range, without waiting. The scan of one predator touches a few short slot ranges far apart
/// in memory (a cell row each), nearly all cache misses; the caller issues this for the next
/// predator before scanning the current one, so those misses overlap the scan instead of
/// stalling it one range at a time. A hint only: it changes no result.
template <class Real>
inline void prefetch_prey(const PreyScanArgs<Real>& a, int dims,
                          const std::pair<std::uint32_t, std::uint32_t>* ranges,
                          std::size_t count) {
  constexpr std::uint32_t kLine = 64 / sizeof(Real);  // slots per cache line
  for (std::size_t r = 0; r < count; ++r) {
    const std::uint32_t begin = ranges[r].first, end = ranges[r].second;
    if (begin >= end) continue;
    for (int c = 0; c < dims; ++c) {
      // Every line [begin, end) touches: from begin's line to end - 1's.
      for (std::uint32_t i = begin; i < end; i += kLine) __builtin_prefetch(a.p[c] + i);
      __builtin_prefetch(a.p[c] + (end - 1));
    }
    __builtin_prefetch(a.kind + begin);
    __builtin_prefetch(a.kind + (end - 1));
  }
}

/// Scans ranges [begin, end) (ascending, disjoint) of slots for one predator.
template <class Real>
using PreyScanFn = void (*)(const PreyScanArgs<Real>& a,
                            const std::pair<std::uint32_t, std::uint32_t>* ranges,
                            std::size_t count, PreyScanResult<Real>& out);

// Many predators at once in slot order (the sweep). The scan above runs predator by predator:
// each one's few dozen ranges (a cell row each) lie far apart in memory, and its first loads of
// a range were most of its time (cache misses). The sweep takes every (range, predator) pair
// of a block of predators, sorted by the range's first slot, so the predators that share a
// cell row scan it one after another while it is in the L1 cache, and the rows stream through
// memory once per block. Each predator's count, nearest and double sum are the same in any
// order of its ranges where the unordered scan's exact-lane argument holds (the top of this
// file); a predator where it may not (an offset off the 2^-30 grid, too many prey, another
// kind in a range) is flagged, and prey_views() scans it again with the scan above.
struct PreySweepTask {
  std::uint32_t begin = 0, end = 0;  // a slot range of predator `pred`
  std::uint32_t pred = 0;
};

template <class Real>
struct PreySweepPred {
  Real p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, v_len = 0;
};

/// Runs `count` tasks in their order, accumulating into out[pred] (initialised by the caller:
/// prey 0, sums 0, best2 +inf); sets bad[pred] where the predator must be scanned again.
/// Reads a's position, kind, id and view fields, and marks a.seen like the scan; a.ap, a.av
/// and a.av_len are taken from preds[pred].
template <class Real>
using PreySweepFn = void (*)(const PreyScanArgs<Real>& a, const PreySweepPred<Real>* preds,
                             const PreySweepTask* tasks, std::size_t count,
                             PreyScanResult<Real>* out, std::uint8_t* bad);

template <class Real>
struct PreyScanTable {
  PreyScanFn<Real> fn[2][2] = {};  // [dims 2/3][wrap]
  PreySweepFn<Real> sweep[2][2] = {};
};

/// The scan for isa (at most dispatched_isa()), a dimension and whether the box wraps.
template <class Real>
PreyScanFn<Real> select_prey_scan(Isa isa, int dims, bool wrap);

/// The sweep for isa (at most dispatched_isa()) (float only; nullptr for double, whose offsets have
/// no common grid: the caller scans predator by predator).
template <class Real>
PreySweepFn<Real> select_prey_sweep(Isa isa, int dims, bool wrap);

/// The views of predators preds[0, np) given the tasks of all their ranges (each predator's
/// ranges disjoint; any order): out[k] gets what the scan of predator k's ranges in ascending
/// order gives (the same bits), and a.seen its marks. Sorts `tasks` by their first slot, runs
/// the sweep, then scans the flagged predators (all of them for double) one by one. Returns
/// how many it scanned so.
template <class Real>
std::size_t prey_views(const PreyScanArgs<Real>& a, int dims, bool wrap,
                       const PreySweepPred<Real>* preds, std::size_t np,
                       const std::vector<PreySweepTask>& tasks, PreyScanResult<Real>* out);

void prey_scan_scalar(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_sse42(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_avx2(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_avx512(PreyScanTable<float>& f, PreyScanTable<double>& d);

}  // namespace boids
