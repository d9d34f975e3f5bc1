// The row finish of the float AVX2 / AVX-512 lane kernel (LaneFinishFn, parallel/list_gather.hpp):
// the selections a row's cells staged (stage_group, parallel/list_lanes_multi_impl.hpp), 8
// boids of the row at a time, whatever cell or group they came from (a group's own end on 4
// lanes, as the tenth session's kernel had, left lanes empty for cells of 1, 2, 5 or 6 boids
// and cost about a fifth of the step). Included by parallel/list_gather_impl.hpp only (the
// same anonymous namespace).
//
// Lane by lane the operations of lane_cell's end (parallel/list_lanes_impl.hpp) on the same
// operands: the ids of a boid's k nearest (every id of the store is below 0x7f800000, so they
// order as float bit patterns) sorted across the lanes by odd-even transposition, then
// sum_staged's loop in that order, d recomputed from the row copy as the scan computed it (the
// minimum image on the axes the boid's cell took it, a blend elsewhere, so the plain d is kept
// bit for bit). The candidates' values are read lane by lane: with AVX2's gathers this finish
// cost about a third more (perf).
#pragma once

#if defined(__AVX2__)

#include <cstdint>
#include <limits>

namespace boids::list_detail {
namespace {

// Element idx[l] of `base` in lane l: scalar loads (faster here than AVX2's gathers). Every
// index is valid.
template <class T>
__m256i load8i(const T* base, const std::uint32_t* ix) {
  return _mm256_setr_epi32(int(base[ix[0]]), int(base[ix[1]]), int(base[ix[2]]), int(base[ix[3]]),
                           int(base[ix[4]]), int(base[ix[5]]), int(base[ix[6]]), int(base[ix[7]]));
}
inline __m256 load8(const float* base, const std::uint32_t* ix) {
  return _mm256_setr_ps(base[ix[0]], base[ix[1]], base[ix[2]], base[ix[3]], base[ix[4]],
                        base[ix[5]], base[ix[6]], base[ix[7]]);
}

// BS: the ids by slot (LaneCell::slot_id; the copy has none): the sort carries the slots, not
// the copy indices, and the positions come from the store (the same values: the lane kernel's
// copy never shifts images).
template <int D, WrapMode WM, int S, int KC, bool BS>
void row_finish8(const GatherInput<float>& in, const LaneCell<float>& c, const LaneStage& st,
                 std::uint32_t row_first, std::uint32_t count, int k_in,
                 const KindParams<float>& kp, FlockSums<float>* out) {
  const int k = KC > 0 ? KC : k_in < S ? k_in : S - 1;  // k < S always
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 tiny = _mm256_set1_ps(std::numeric_limits<float>::min());
  const __m256 sr2 = _mm256_set1_ps(kp.sep_radius2), one = _mm256_set1_ps(1.0f);
  [[maybe_unused]] const __m256 size = _mm256_set1_ps(in.size), inv = _mm256_set1_ps(in.inv_size);
  [[maybe_unused]] const __m256 half = _mm256_set1_ps(0.5f), mhalf = _mm256_set1_ps(-0.5f);
  const __m256 zero = _mm256_setzero_ps();
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
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (int t = 0; t < k; ++t) {
      const __m256i in_n = _mm256_cmpgt_epi32(n, _mm256_set1_epi32(t));
      qv[t] = _mm256_and_si256(in_n, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                         st.q + std::size_t(t) * st.stride + b)));
      alignas(32) std::uint32_t qa[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(qa), qv[t]);
      __m256i id;
      if constexpr (BS) {
        alignas(32) std::uint32_t ja[8];
        for (int l = 0; l < 8; ++l) ja[l] = c.cslot[qa[l]];
        qv[t] = _mm256_load_si256(reinterpret_cast<const __m256i*>(ja));
        id = load8i(c.slot_id, ja);
      } else {
        id = load8i(c.id, qa);
      }
      iv[t] = _mm256_blendv_ps(inf, _mm256_castsi256_ps(id), _mm256_castsi256_ps(in_n));
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (int r = 0; r < k; ++r) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
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
    __m256 pi[3], sd[3], sv[3], ss[3];
    [[maybe_unused]] __m256 wa[3];
    [[maybe_unused]] const __m256i wrap =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(st.wrap + b));
    for (int a = 0; a < D; ++a) {
      pi[a] = _mm256_loadu_ps(in.p[a] + row_first + b);
      sd[a] = sv[a] = ss[a] = zero;
      if constexpr (WM == WrapMode::min_image) {
        const __m256i bit = _mm256_set1_epi32(1 << a);
        wa[a] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(wrap, bit), bit));
      }
    }
    // The sums over places t < tmax; WR: some lane's cell takes the minimum image on some axis
    // (a block of 8 boids of cells whose stencil crosses no seam skips that arithmetic: its
    // blend would keep the plain d anyway).
    auto sums = [&]<bool WR>() {
      for (int t = 0; t < tmax; ++t) {
        const __m256i vi = _mm256_cmpgt_epi32(n, _mm256_set1_epi32(t));
        const __m256 valid = _mm256_castsi256_ps(vi);
        alignas(32) std::uint32_t qa[8], ja[8];
        if constexpr (BS) {
          _mm256_store_si256(reinterpret_cast<__m256i*>(ja), qv[t]);
        } else {
          _mm256_store_si256(reinterpret_cast<__m256i*>(qa), qv[t]);
          for (int l = 0; l < 8; ++l) ja[l] = c.cslot[qa[l]];
        }
        __m256 d[3], vj[3];
        for (int a = 0; a < D; ++a) {
          __m256 x = _mm256_sub_ps(BS ? load8(in.p[a], ja) : load8(c.cp[a], qa), pi[a]);
          if constexpr (WM == WrapMode::min_image && WR) {
            const __m256 tt = _mm256_mul_ps(x, inv);
            const __m256 w = _mm256_add_ps(
                _mm256_sub_ps(x, _mm256_and_ps(_mm256_cmp_ps(tt, half, _CMP_GT_OQ), size)),
                _mm256_and_ps(_mm256_cmp_ps(tt, mhalf, _CMP_LT_OQ), size));
            x = _mm256_blendv_ps(x, w, wa[a]);
          }
          d[a] = x;
          vj[a] = load8(in.v[a], ja);
        }
        __m256 dist2 = _mm256_mul_ps(d[0], d[0]);
        for (int a = 1; a < D; ++a) dist2 = _mm256_add_ps(dist2, _mm256_mul_ps(d[a], d[a]));
        for (int a = 0; a < D; ++a) {
          sd[a] = _mm256_blendv_ps(sd[a], _mm256_add_ps(sd[a], d[a]), valid);
          sv[a] = _mm256_blendv_ps(sv[a], _mm256_add_ps(sv[a], vj[a]), valid);
        }
        const __m256 sm =
            _mm256_and_ps(valid, _mm256_and_ps(_mm256_cmp_ps(dist2, tiny, _CMP_GE_OQ),
                                               _mm256_cmp_ps(dist2, sr2, _CMP_LT_OQ)));
        if (kp.sep_linear) {
          for (int a = 0; a < D; ++a)
            ss[a] = _mm256_blendv_ps(ss[a], _mm256_sub_ps(ss[a], d[a]), sm);
        } else {
          const __m256 r = _mm256_div_ps(one, dist2);
          for (int a = 0; a < D; ++a)
            ss[a] = _mm256_blendv_ps(ss[a], _mm256_sub_ps(ss[a], _mm256_mul_ps(d[a], r)), sm);
        }
      }
    };
    if (WM == WrapMode::min_image && !_mm256_testz_si256(wrap, wrap))
      sums.template operator()<true>();
    else
      sums.template operator()<false>();
    alignas(32) float ld[3][8], lv[3][8], ls[3][8];
    for (int a = 0; a < D; ++a) {
      _mm256_store_ps(ld[a], sd[a]);
      _mm256_store_ps(lv[a], sv[a]);
      _mm256_store_ps(ls[a], ss[a]);
    }
    for (unsigned m = live; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      FlockSums<float>& f = out[b + std::uint32_t(l)];
      f = FlockSums<float>();
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
void lane_row_finish(const GatherInput<float>& in, const LaneCell<float>& c, const LaneStage& st,
                     std::uint32_t row_first, std::uint32_t count, int k,
                     const KindParams<float>& kp, FlockSums<float>* out) {
  if (c.slot_id) {
    if (k == S - 1)
      row_finish8<D, WM, S, S - 1, true>(in, c, st, row_first, count, k, kp, out);
    else
      row_finish8<D, WM, S, 0, true>(in, c, st, row_first, count, k, kp, out);
  } else if (k == S - 1) {
    row_finish8<D, WM, S, S - 1, false>(in, c, st, row_first, count, k, kp, out);
  } else {
    row_finish8<D, WM, S, 0, false>(in, c, st, row_first, count, k, kp, out);
  }
}

}  // namespace
}  // namespace boids::list_detail

#endif
