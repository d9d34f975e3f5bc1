// Double on AVX-512: lane_cell's end staged (stage_d4) and summed per x-row, 8 boids at a time
// (row_finish8d), as the float groups kernel does (parallel/list_lanes_finish_impl.hpp), where
// lane_cell sorted, staged and summed each cell's 4 lanes itself, mostly in scalar code.
// Included by parallel/list_gather_impl.hpp only (the same anonymous namespace), after
// parallel/list_lanes_finish_impl.hpp.
//
// stage_d4 applies lane_cell's exactness rule to the 4 lanes' S smallest keys (kl, from
// lane_scan_d8) and stages each settled boid's count and its k nearest's row-copy indices.
// row_finish8d sorts the ids across 8 lanes exactly as row_finish8 does (every id below
// 0x7f800000, so they order as float bit patterns, as lane_cell's double patterns order them),
// then forms sum_staged's sums in that order with sum_staged's operations in double, d
// recomputed from the row copy as lane_cell's end computed it: the same bits.
#pragma once

#if defined(__AVX512F__)

#include <bit>
#include <cstdint>
#include <limits>

#include <immintrin.h>

namespace boids::list_detail {
namespace {

// Boids g0 .. g0 + lanes (kl[t][l]: lane l's t-th smallest key); returns how many were not
// settled (out[g0 + l].k = -1 and n = -1 in the stage for those).
template <WrapMode WM>
std::uint32_t stage_d4(const LaneCell<double>& c, int k, std::uint32_t g0, int lanes,
                       const double (*kl)[4], FlockSums<double>* out) {
  constexpr std::uint32_t kIdx = kLaneMaxRange - 1;
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  const __m256i high = _mm256_set1_epi64x(std::int64_t(~std::uint64_t(kIdx)));
  const __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);  // each lane's low half
  auto halves = [&](__m256i x) {  // 4 x 64 bits -> their low 32 bits
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, low));
  };
  __m256i n = _mm256_setzero_si256();
  for (int t = 0; t < k; ++t)
    n = _mm256_sub_epi64(
        n, _mm256_castpd_si256(_mm256_cmp_pd(_mm256_loadu_pd(kl[t]), inf, _CMP_NEQ_OQ)));
  const __m256d kk = _mm256_loadu_pd(kl[k]);
  const __m256i tie = _mm256_andnot_si256(
      _mm256_castpd_si256(_mm256_cmp_pd(kk, inf, _CMP_EQ_OQ)),
      _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_castpd_si256(_mm256_loadu_pd(kl[k - 1])), high),
                         _mm256_and_si256(_mm256_castpd_si256(kk), high)));
  alignas(16) std::int32_t nl[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(nl), halves(_mm256_or_si256(n, tie)));  // -1: tie
  const LaneStage& st = *c.stage;
  const std::int32_t wrap = WM == WrapMode::min_image
                                ? std::int32_t(c.wrap_axis[0]) | std::int32_t(c.wrap_axis[1]) << 1 |
                                      std::int32_t(c.wrap_axis[2]) << 2
                                : 0;
  const std::uint32_t rb = c.row_off + g0;
  std::uint32_t unsettled = 0;
  for (int l = 0; l < lanes; ++l) {
    st.n[rb + std::uint32_t(l)] = nl[l];
    st.wrap[rb + std::uint32_t(l)] = wrap;
    out[g0 + std::uint32_t(l)].k = nl[l];
    unsettled += nl[l] < 0 ? 1u : 0u;
  }
  // All 4 lanes' indices at once (as the float kernel's stage_group stores them: the places
  // past `lanes` belong to boids later in the row, overwritten or masked).
  const __m128i idx = _mm_set1_epi32(int(kIdx)), base = _mm_set1_epi32(int(c.begin));
  for (int t = 0; t < k; ++t)
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(st.q + std::size_t(t) * st.stride + rb),
        _mm_add_epi32(_mm_and_si128(halves(_mm256_castpd_si256(_mm256_loadu_pd(kl[t]))), idx),
                      base));
  return unsettled;
}

inline __m512d load8d(const double* base, const std::uint32_t* ix) {
  return _mm512_setr_pd(base[ix[0]], base[ix[1]], base[ix[2]], base[ix[3]], base[ix[4]],
                        base[ix[5]], base[ix[6]], base[ix[7]]);
}

template <int D, WrapMode WM, int S, int KC>
void row_finish8d(const GatherInput<double>& in, const LaneCell<double>& c, const LaneStage& st,
                  std::uint32_t row_first, std::uint32_t count, int k_in,
                  const KindParams<double>& kp, FlockSums<double>* out) {
  const int k = KC > 0 ? KC : k_in < S ? k_in : S - 1;  // k < S always
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m512d tiny = _mm512_set1_pd(std::numeric_limits<double>::min());
  const __m512d sr2 = _mm512_set1_pd(kp.sep_radius2), one = _mm512_set1_pd(1.0);
  [[maybe_unused]] const __m512d size = _mm512_set1_pd(in.size), inv = _mm512_set1_pd(in.inv_size);
  [[maybe_unused]] const __m512d half = _mm512_set1_pd(0.5), mhalf = _mm512_set1_pd(-0.5);
  const __m512d zero = _mm512_setzero_pd();
  for (std::uint32_t b = 0; b < count; b += 8) {
    const __m256i n = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(st.n + b));
    const unsigned live = ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(n))) & 0xffu;
    if (!live) continue;
    __m256 iv[S];
    __m256i qv[S];
    for (int t = 0; t < S; ++t) {  // (places k .. S - 1 unused)
      iv[t] = inf;
      qv[t] = _mm256_setzero_si256();
    }
    for (int t = 0; t < k; ++t) {
      const __m256i in_n = _mm256_cmpgt_epi32(n, _mm256_set1_epi32(t));
      qv[t] = _mm256_and_si256(in_n, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                         st.q + std::size_t(t) * st.stride + b)));
      alignas(32) std::uint32_t qa[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(qa), qv[t]);
      const __m256i id = load8i(c.id, qa);
      iv[t] = _mm256_blendv_ps(inf, _mm256_castsi256_ps(id), _mm256_castsi256_ps(in_n));
    }
    for (int r = 0; r < k; ++r) {
      for (int t = r & 1; t + 1 < k; t += 2) {
        const __m256 lt = _mm256_cmp_ps(iv[t + 1], iv[t], _CMP_LT_OQ);
        const __m256 lo = _mm256_min_ps(iv[t], iv[t + 1]);
        iv[t + 1] = _mm256_max_ps(iv[t], iv[t + 1]);
        iv[t] = lo;
        const __m256i qa = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(qv[t]), _mm256_castsi256_ps(qv[t + 1]), lt));
        qv[t + 1] = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(qv[t + 1]), _mm256_castsi256_ps(qv[t]), lt));
        qv[t] = qa;
      }
    }
    alignas(32) std::int32_t nl[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(nl), n);
    int tmax = 0;
    for (int l = 0; l < 8; ++l) tmax = nl[l] > tmax ? nl[l] : tmax;
    __m512d pi[3], sd[3], sv[3], ss[3];
    [[maybe_unused]] __mmask8 wa[3] = {0, 0, 0};
    const __m256i wrap = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(st.wrap + b));
    for (int a = 0; a < D; ++a) {
      pi[a] = _mm512_loadu_pd(in.p[a] + row_first + b);
      sd[a] = sv[a] = ss[a] = zero;
      if constexpr (WM == WrapMode::min_image) {
        const __m256i bit = _mm256_set1_epi32(1 << a);
        wa[a] = __mmask8(_mm256_movemask_ps(
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(wrap, bit), bit))));
      }
    }
    for (int t = 0; t < tmax; ++t) {
      const __mmask8 valid = __mmask8(
          _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(n, _mm256_set1_epi32(t)))));
      alignas(32) std::uint32_t qa[8], ja[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(qa), qv[t]);
      for (int l = 0; l < 8; ++l) ja[l] = c.cslot[qa[l]];
      __m512d d[3], vj[3];
      for (int a = 0; a < D; ++a) {
        __m512d x = _mm512_sub_pd(load8d(c.cp[a], qa), pi[a]);
        if constexpr (WM == WrapMode::min_image) {
          if (wa[a]) {  // lane_cell's scalar minimum image, on the lanes of wa[a]
            const __m512d tt = _mm512_mul_pd(x, inv);
            const __m512d w = _mm512_add_pd(
                _mm512_sub_pd(x,
                              _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(tt, half, _CMP_GT_OQ), size)),
                _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(tt, mhalf, _CMP_LT_OQ), size));
            x = _mm512_mask_blend_pd(wa[a], x, w);
          }
        }
        d[a] = x;
        vj[a] = load8d(in.v[a], ja);
      }
      __m512d dist2 = _mm512_mul_pd(d[0], d[0]);
      for (int a = 1; a < D; ++a) dist2 = _mm512_add_pd(dist2, _mm512_mul_pd(d[a], d[a]));
      for (int a = 0; a < D; ++a) {
        sd[a] = _mm512_mask_add_pd(sd[a], valid, sd[a], d[a]);
        sv[a] = _mm512_mask_add_pd(sv[a], valid, sv[a], vj[a]);
      }
      const __mmask8 sm = __mmask8(valid & _mm512_cmp_pd_mask(dist2, tiny, _CMP_GE_OQ) &
                                   _mm512_cmp_pd_mask(dist2, sr2, _CMP_LT_OQ));
      if (kp.sep_linear) {
        for (int a = 0; a < D; ++a) ss[a] = _mm512_mask_sub_pd(ss[a], sm, ss[a], d[a]);
      } else {
        const __m512d r = _mm512_div_pd(one, dist2);
        for (int a = 0; a < D; ++a)
          ss[a] = _mm512_mask_sub_pd(ss[a], sm, ss[a], _mm512_mul_pd(d[a], r));
      }
    }
    alignas(64) double ld[3][8], lv[3][8], ls[3][8];
    for (int a = 0; a < D; ++a) {
      _mm512_store_pd(ld[a], sd[a]);
      _mm512_store_pd(lv[a], sv[a]);
      _mm512_store_pd(ls[a], ss[a]);
    }
    for (unsigned m = live; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      FlockSums<double>& f = out[b + std::uint32_t(l)];
      f = FlockSums<double>();
      f.k = nl[l];
      for (int a = 0; a < D; ++a) {
        f.d[a] = ld[a][l];
        f.v[a] = lv[a][l];
        f.sep[a] = ls[a][l];
      }
    }
  }
}

template <int D, WrapMode WM, int S>
void lane_row_finish_d(const GatherInput<double>& in, const LaneCell<double>& c,
                       const LaneStage& st, std::uint32_t row_first, std::uint32_t count, int k,
                       const KindParams<double>& kp, FlockSums<double>* out) {
  if (k == S - 1)
    row_finish8d<D, WM, S, S - 1>(in, c, st, row_first, count, k, kp, out);
  else
    row_finish8d<D, WM, S, 0>(in, c, st, row_first, count, k, kp, out);
}

template <int D, WrapMode WM>
void fill_lane_finish_d_row(LaneFinishFn<double>* fin) {
  fin[0] = &lane_row_finish_d<D, WM, 4>;
  fin[1] = &lane_row_finish_d<D, WM, 8>;
  fin[2] = &lane_row_finish_d<D, WM, 16>;
}

inline void fill_lane_finish_d(GatherTable<double>& t) {
  fill_lane_finish_d_row<2, WrapMode::none>(t.lane_finish[0][0]);
  fill_lane_finish_d_row<2, WrapMode::min_image>(t.lane_finish[0][1]);
  fill_lane_finish_d_row<3, WrapMode::none>(t.lane_finish[1][0]);
  fill_lane_finish_d_row<3, WrapMode::min_image>(t.lane_finish[1][1]);
}

}  // namespace
}  // namespace boids::list_detail

#endif
