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

#include "core/kernels.hpp"

namespace boids {

template <class Real>
struct PreyScanArgs {
  const Real* p[3] = {nullptr, nullptr, nullptr};  // the store's positions
  const Real* v[3] = {nullptr, nullptr, nullptr};  // and velocities
  std::size_t readable = 0;  // slots [0, readable) of p may be read (the store's padding)
  const std::uint8_t* kind = nullptr;
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

template <class Real>
struct PreyScanTable {
  PreyScanFn<Real> fn[2][2] = {};  // [dims 2/3][wrap]
};

/// The scan for dispatched_isa(), a dimension and whether the box wraps.
template <class Real>
PreyScanFn<Real> select_prey_scan(int dims, bool wrap);

void prey_scan_scalar(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_sse42(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_avx2(PreyScanTable<float>& f, PreyScanTable<double>& d);
void prey_scan_avx512(PreyScanTable<float>& f, PreyScanTable<double>& d);

}  // namespace boids
