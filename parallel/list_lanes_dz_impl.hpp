// The scan of the double lane kernel on AVX-512 (lane_cell over AVX2's 4-lane packs,
// parallel/list_lanes_impl.hpp): a group of up to 4 boids x 2 candidates per 8-lane register,
// where lane_cell's one boid per lane took 4 lanes per candidate. Included by
// parallel/list_gather_impl.hpp only (the same anonymous namespace), before
// parallel/list_lanes_impl.hpp.
//
// Lane l is boid l / 2 of the group and candidate q + l % 2 of the range. Each lane computes
// d, |d|^2, the visibility and the key exactly as lane_cell does (the same operations on the
// same operands, in the same order) and keeps the S smallest keys of its own candidates in the
// same min/max insertion network; a boid's two lists are then merged (min(A[t], B[S - 1 - t])
// is bitonic and holds the S smallest of the union, sorted by log2(S) half-cleaners; keys are
// distinct within a boid, their low bits being the candidate's index). So each boid ends with
// the S smallest keys of all its candidates in ascending order, as lane_cell's own network
// leaves them, and lane_cell's end runs on them unchanged: the same bits.
#pragma once

#if defined(__AVX512F__)

#include <bit>
#include <cstdint>
#include <limits>

#include <immintrin.h>

namespace boids::list_detail {
namespace {

// Boids g0 .. g0 + lanes of the cell (lp, lv, lr2: lane_cell's 4-lane arrays, lanes past the
// group holding boid g0 with radius^2 -1); kl[t][b]: boid b's t-th smallest key.
template <int D, WrapMode WM, int S>
void lane_scan_d8(const GatherInput<double>& in, const LaneCell<double>& c, std::uint32_t g0,
                  const double (*lp)[4], const double (*lv)[4], const double* lr2, bool any_cone,
                  double (*kl)[4]) {
  constexpr std::uint64_t kIdx = kLaneMaxRange - 1;
  const __m512i spread = _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3);
  auto two = [&](const double* x) {  // lane l: x[l / 2]
    return _mm512_permutexvar_pd(spread, _mm512_castpd256_pd512(_mm256_loadu_pd(x)));
  };
  const __m512d binf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  const __m512d zero = _mm512_setzero_pd();
  const __m512i high = _mm512_set1_epi64(std::int64_t(~kIdx));
  [[maybe_unused]] const __m512d size = _mm512_set1_pd(in.size), inv = _mm512_set1_pd(in.inv_size);
  [[maybe_unused]] const __m512d half = _mm512_set1_pd(0.5), mhalf = _mm512_set1_pd(-0.5);
  const __m512d cosv = _mm512_set1_pd(in.cos_half_view);
  [[maybe_unused]] bool wa[3] = {false, false, false};
  if constexpr (WM == WrapMode::min_image) {
    for (int a = 0; a < D; ++a) wa[a] = c.wrap_axis[a];
  }
  __m512d pi[D], vv[D];
  for (int a = 0; a < D; ++a) {
    pi[a] = two(lp[a]);
    vv[a] = two(lv[a]);
  }
  __m512d vi2 = _mm512_mul_pd(vv[0], vv[0]);
  for (int a = 1; a < D; ++a) vi2 = _mm512_add_pd(vi2, _mm512_mul_pd(vv[a], vv[a]));
  const __m512d vlen = _mm512_sqrt_pd(vi2);
  const __mmask8 no_cone = _mm512_cmp_pd_mask(vlen, zero, _CMP_LE_OQ);
  const __m512d r2 = two(lr2);
  const std::uint32_t range = c.end - c.begin;
  // A lane's own boid, by its index in the range: never its own neighbour.
  const __m512i self =
      _mm512_add_epi64(_mm512_set1_epi64(std::int64_t(c.self0 + g0 - c.begin)), spread);
  const __m512i endv = _mm512_set1_epi64(std::int64_t(range)), step = _mm512_set1_epi64(2);
  __m512i rel = _mm512_setr_epi64(0, 1, 0, 1, 0, 1, 0, 1);
  alignas(64) double kept[(kLaneMaxRange / 2 + 1) * 8];
  std::uint32_t nk = 0;
  const double* cp[D];
  for (int a = 0; a < D; ++a) cp[a] = c.cp[a] + c.begin;
  for (std::uint32_t q = 0; q < range; q += 2, rel = _mm512_add_epi64(rel, step)) {
    __m512d d[D];
    for (int a = 0; a < D; ++a) {
      // Candidates q, q + 1 in every pair of lanes (readable past the range's end: LaneCell).
      __m512d x = _mm512_sub_pd(
          _mm512_castps_pd(_mm512_broadcast_f32x4(_mm_castpd_ps(_mm_loadu_pd(cp[a] + q)))), pi[a]);
      if constexpr (WM == WrapMode::min_image) {
        if (wa[a]) {
          const __m512d t = _mm512_mul_pd(x, inv);
          x = _mm512_add_pd(
              _mm512_sub_pd(x, _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(t, half, _CMP_GT_OQ), size)),
              _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(t, mhalf, _CMP_LT_OQ), size));
        }
      }
      d[a] = x;
    }
    __m512d d2 = _mm512_mul_pd(d[0], d[0]);
    for (int a = 1; a < D; ++a) d2 = _mm512_add_pd(d2, _mm512_mul_pd(d[a], d[a]));
    __mmask8 m = _mm512_cmp_pd_mask(d2, r2, _CMP_LT_OQ);
    if (any_cone) {
      __m512d dot = _mm512_mul_pd(d[0], vv[0]);
      for (int a = 1; a < D; ++a) dot = _mm512_add_pd(dot, _mm512_mul_pd(d[a], vv[a]));
      const __m512d bound = _mm512_mul_pd(_mm512_mul_pd(_mm512_sqrt_pd(d2), vlen), cosv);
      m = __mmask8(m & (no_cone | _mm512_cmp_pd_mask(dot, bound, _CMP_GE_OQ)));
    }
    m = __mmask8(m & _mm512_cmpneq_epi64_mask(rel, self) & _mm512_cmplt_epi64_mask(rel, endv));
    const __m512i key =
        _mm512_ternarylogic_epi64(_mm512_castpd_si512(d2), high, rel, 0xEA);  // d2 & high | rel
    _mm512_store_pd(kept + std::size_t(nk) * 8,
                    _mm512_mask_blend_pd(m, binf, _mm512_castsi512_pd(key)));
    nk += std::uint32_t(m != 0);
  }
  __m512d key[S];
  for (int t = 0; t < S; ++t) key[t] = binf;
  for (std::uint32_t e = 0; e < nk; ++e) {
    __m512d x = _mm512_load_pd(kept + std::size_t(e) * 8);
    for (int t = 0; t < S; ++t) {
      const __m512d lo = _mm512_min_pd(key[t], x);
      x = _mm512_max_pd(key[t], x);
      key[t] = lo;
    }
  }
  // The boid's two lists (lanes 2b and 2b + 1) merged: both end with the same S keys.
  __m512d mk[S];
  for (int t = 0; t < S; ++t)
    mk[t] = _mm512_min_pd(key[t], _mm512_permute_pd(key[S - 1 - t], 0x55));
  for (int h = S / 2; h >= 1; h /= 2) {
    for (int t = 0; t < S; ++t) {
      if (t & h) continue;
      const __m512d lo = _mm512_min_pd(mk[t], mk[t + h]);
      mk[t + h] = _mm512_max_pd(mk[t], mk[t + h]);
      mk[t] = lo;
    }
  }
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 0, 0, 0, 0);
  for (int t = 0; t < S; ++t)
    _mm256_storeu_pd(kl[t], _mm512_castpd512_pd256(_mm512_permutexvar_pd(even, mk[t])));
}

}  // namespace
}  // namespace boids::list_detail

#endif
