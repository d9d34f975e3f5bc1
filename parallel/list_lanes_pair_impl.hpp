// The topological lane kernel for float on AVX2 (LaneFn, parallel/list_gather.hpp): 4 boids x
// 2 candidates per register. Included by parallel/list_gather_impl.hpp only (the same anonymous
// namespace), after parallel/list_lanes_impl.hpp.
//
// A cell holds about 4 boids at the radius's cells (docs/bench.md), so one boid per lane leaves
// half of AVX2's 8 float lanes empty. Here lane 2b + j is boid b of a group of 4 and the
// candidates come in pairs: candidate q + j of the range, the pair broadcast by one 64-bit load
// (positions of consecutive copy indices are adjacent). Each lane computes d, |d|^2 and the key
// exactly as lane_cell does (parallel/list_lanes_impl.hpp) and keeps the S = k + 1 smallest keys
// of its own candidates (those of parity j) in the same min/max insertion network. At the end
// the two lists of a boid are merged: min(A[t], B[S - 1 - t]) is bitonic and holds the S
// smallest of the union (a boid's k + 1 nearest are among its lanes' k + 1 nearest), sorted by
// log2(S) half-cleaners; keys are distinct within a boid (their low bits are the candidate's
// index), so nothing is lost. pair_finish then applies lane_cell's exactness rule, id sort
// and sums on 4 lanes (VEX-encoded SSE), reading the selected candidates' d, slot and v_j lane by
// lane (scalar loads: faster here than AVX2's gathers) instead of staging them for sum_staged: the
// same operations on the same operands, so the same bits.
#pragma once

#if defined(__AVX2__)

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace boids::list_detail {
namespace {

// A group's end, lane_cell's rule and arithmetic on 4 lanes without staging: kv[t] holds
// every lane's t-th smallest key (boid g0 + l in lane l < lanes, positions lp). The settled
// lanes' k nearest are sorted by id across the lanes (odd-even transposition on the id bit
// patterns) and summed in that order as sum_staged sums them (the same operations on the same
// d, v_j), their offsets, slots and velocities read lane by lane; the others get k = -1.
template <int D, WrapMode WM, int S>
std::uint32_t pair_finish(const GatherInput<float>& in, const LaneCell<float>& c, int k,
                          const KindParams<float>& kp, std::uint32_t g0, int lanes,
                          const float (*lp)[4], const __m128* kv, FlockSums<float>* out) {
  constexpr std::uint32_t kIdx = kLaneMaxRange - 1;
  constexpr std::uint32_t kIdLimit = 0x7f800000u;  // an id below orders as its float pattern
  const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  const __m128i idx = _mm_set1_epi32(int(kIdx)), high = _mm_set1_epi32(int(~kIdx));
  const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
  // Count, tie at the k-th place (lane_cell's test), and the lanes past the cell's boids.
  __m128i n = _mm_setzero_si128();
  for (int t = 0; t < k; ++t) n = _mm_sub_epi32(n, _mm_castps_si128(_mm_cmpneq_ps(kv[t], inf)));
  const __m128i kk = _mm_castps_si128(kv[k]);
  __m128i bad = _mm_andnot_si128(
      _mm_castps_si128(_mm_cmpeq_ps(kv[k], inf)),
      _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(kv[k - 1]), high), _mm_and_si128(kk, high)));
  bad = _mm_or_si128(bad, _mm_cmpgt_epi32(lane, _mm_set1_epi32(lanes - 1)));
  const __m128i base = _mm_set1_epi32(int(c.begin));
  const __m128i sign = _mm_set1_epi32(int(0x80000000u));
  const __m128i limit = _mm_set1_epi32(int(kIdLimit ^ 0x80000000u));
  __m128 iv[S];
  __m128i qv[S];
  for (int t = 0; t < k; ++t) {
    qv[t] = _mm_add_epi32(_mm_and_si128(_mm_castps_si128(kv[t]), idx), base);
    alignas(16) std::uint32_t qa[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(qa), qv[t]);
    const __m128i id =
        _mm_setr_epi32(int(c.id[qa[0]]), int(c.id[qa[1]]), int(c.id[qa[2]]), int(c.id[qa[3]]));
    const __m128i in_n = _mm_cmpgt_epi32(n, _mm_set1_epi32(t));
    // id >= kIdLimit (unsigned) at a place within the count: not settled.
    bad =
        _mm_or_si128(bad, _mm_andnot_si128(_mm_cmpgt_epi32(limit, _mm_xor_si128(id, sign)), in_n));
    iv[t] = _mm_blendv_ps(inf, _mm_castsi128_ps(id), _mm_castsi128_ps(in_n));
  }
  n = _mm_andnot_si128(bad, n);
  for (int t = 0; t < k; ++t) iv[t] = _mm_blendv_ps(iv[t], inf, _mm_castsi128_ps(bad));
  for (int r = 0; r < k; ++r) {
    for (int t = r & 1; t + 1 < k; t += 2) {
      const __m128 lt = _mm_cmplt_ps(iv[t + 1], iv[t]);
      const __m128 lo = _mm_min_ps(iv[t], iv[t + 1]);
      iv[t + 1] = _mm_max_ps(iv[t], iv[t + 1]);
      iv[t] = lo;
      const __m128i qa =
          _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(qv[t]), _mm_castsi128_ps(qv[t + 1]), lt));
      qv[t + 1] =
          _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(qv[t + 1]), _mm_castsi128_ps(qv[t]), lt));
      qv[t] = qa;
    }
  }
  alignas(16) std::int32_t nl[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(nl), n);
  const int tmax = std::max(std::max(nl[0], nl[1]), std::max(nl[2], nl[3]));
  // sum_staged's loop, the staged values read directly.
  const __m128 tiny = _mm_set1_ps(std::numeric_limits<float>::min());
  const __m128 sr2 = _mm_set1_ps(kp.sep_radius2), one = _mm_set1_ps(1.0f);
  [[maybe_unused]] const __m128 size = _mm_set1_ps(in.size), inv = _mm_set1_ps(in.inv_size);
  [[maybe_unused]] const __m128 half = _mm_set1_ps(0.5f), mhalf = _mm_set1_ps(-0.5f);
  const __m128 zero = _mm_setzero_ps(), cn = _mm_cvtepi32_ps(n);
  __m128 pi[3], sd[3], sv[3], ss[3];
  for (int a = 0; a < D; ++a) {
    pi[a] = _mm_load_ps(lp[a]);
    sd[a] = sv[a] = ss[a] = zero;
  }
  for (int t = 0; t < tmax; ++t) {
    const __m128 valid = _mm_cmplt_ps(_mm_set1_ps(float(t)), cn);
    alignas(16) std::uint32_t qa[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(qa), qv[t]);
    const std::uint32_t j0 = c.cslot[qa[0]], j1 = c.cslot[qa[1]], j2 = c.cslot[qa[2]],
                        j3 = c.cslot[qa[3]];
    auto cand = [&](int a) {
      const float* b = c.cp[a];
      return _mm_setr_ps(b[qa[0]], b[qa[1]], b[qa[2]], b[qa[3]]);
    };
    auto vel = [&](int a) {
      const float* b = in.v[a];
      return _mm_setr_ps(b[j0], b[j1], b[j2], b[j3]);
    };
    __m128 d[3], vj[3];
    for (int a = 0; a < D; ++a) {
      __m128 x = _mm_sub_ps(cand(a), pi[a]);
      if (WM == WrapMode::min_image && c.wrap_axis[a]) {
        const __m128 tt = _mm_mul_ps(x, inv);
        x = _mm_add_ps(_mm_sub_ps(x, _mm_and_ps(_mm_cmpgt_ps(tt, half), size)),
                       _mm_and_ps(_mm_cmplt_ps(tt, mhalf), size));
      }
      d[a] = x;
      vj[a] = vel(a);
    }
    __m128 dist2 = _mm_mul_ps(d[0], d[0]);
    for (int a = 1; a < D; ++a) dist2 = _mm_add_ps(dist2, _mm_mul_ps(d[a], d[a]));
    for (int a = 0; a < D; ++a) {
      sd[a] = _mm_blendv_ps(sd[a], _mm_add_ps(sd[a], d[a]), valid);
      sv[a] = _mm_blendv_ps(sv[a], _mm_add_ps(sv[a], vj[a]), valid);
    }
    const __m128 sm =
        _mm_and_ps(valid, _mm_and_ps(_mm_cmpge_ps(dist2, tiny), _mm_cmplt_ps(dist2, sr2)));
    if (kp.sep_linear) {
      for (int a = 0; a < D; ++a) ss[a] = _mm_blendv_ps(ss[a], _mm_sub_ps(ss[a], d[a]), sm);
    } else {
      const __m128 r = _mm_div_ps(one, dist2);
      for (int a = 0; a < D; ++a)
        ss[a] = _mm_blendv_ps(ss[a], _mm_sub_ps(ss[a], _mm_mul_ps(d[a], r)), sm);
    }
  }
  alignas(16) float ld[3][4], lv[3][4], ls[3][4];
  alignas(16) std::int32_t lb[4];
  for (int a = 0; a < D; ++a) {
    _mm_store_ps(ld[a], sd[a]);
    _mm_store_ps(lv[a], sv[a]);
    _mm_store_ps(ls[a], ss[a]);
  }
  _mm_store_si128(reinterpret_cast<__m128i*>(lb), bad);
  std::uint32_t unsettled = 0;
  for (int l = 0; l < lanes; ++l) {
    FlockSums<float>& f = out[g0 + std::uint32_t(l)];
    f = FlockSums<float>();
    f.k = lb[l] ? -1 : nl[l];
    unsettled += lb[l] ? 1u : 0u;
    for (int a = 0; a < D; ++a) {
      f.d[a] = ld[a][l];
      f.v[a] = lv[a][l];
      f.sep[a] = ls[a][l];
    }
  }
  return unsettled;
}

template <int D, WrapMode WM, int S>
std::uint32_t lane_pair_cell(const GatherInput<float>& in, const LaneCell<float>& c, int k,
                             const KindParams<float>& kp, FlockSums<float>* out) {
  using P8 = SimdPairPacks<xsimd::avx2>::Pack<float>;
  using B = P8::B;
  using M = P8::M;
  constexpr std::uint32_t kIdx = kLaneMaxRange - 1;
  const float inf = std::numeric_limits<float>::infinity();
  const B binf = B(inf), zero = B(0.0f);
  const B high = B(std::bit_cast<float>(~kIdx));
  [[maybe_unused]] const B size = B(in.size), inv = B(in.inv_size), half = B(0.5f);
  const B cosv = B(in.cos_half_view);
  const __m256i parity = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  const __m256i boid_of = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i two_v = _mm256_set1_epi32(2);
  const std::uint32_t range = c.end - c.begin;
  const __m256i endv = _mm256_set1_epi32(int(range));
  std::uint32_t unsettled = 0;
  for (std::uint32_t g0 = 0; g0 < c.count; g0 += 4) {
    const int lanes = c.count - g0 < 4u ? int(c.count - g0) : 4;
    alignas(16) float lp[3][4], lv[3][4], lr2[4];
    for (int l = 0; l < 4; ++l) {
      const std::uint32_t b = g0 + std::uint32_t(l < lanes ? l : 0);
      const std::uint32_t s = c.bslot ? c.bslot[b] : c.first + b;
      for (int a = 0; a < D; ++a) {
        lp[a][l] = in.p[a][s];
        lv[a][l] = in.v[a][s];
      }
      lr2[l] = l < lanes ? (c.r2 ? c.r2[b] : in.radius2) : -1.0f;  // -1: sees nothing
    }
    // Each boid's values in its two lanes.
    auto pairs = [&](const float* x) {
      return B(_mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_load_ps(x)), boid_of));
    };
    B pi[D], vv[D];
    for (int a = 0; a < D; ++a) {
      pi[a] = pairs(lp[a]);
      vv[a] = pairs(lv[a]);
    }
    B vi2 = vv[0] * vv[0];
    for (int a = 1; a < D; ++a) vi2 = vi2 + vv[a] * vv[a];
    const B vlen = xsimd::sqrt(vi2);
    const bool any_cone = !in.full_view && P8::bits(vlen > zero) != 0;
    const M no_cone = vlen <= zero;
    const B r2 = pairs(lr2);
    // A lane's own boid, by its index in the range: never its own neighbour.
    const __m256i self = _mm256_add_epi32(_mm256_set1_epi32(int(c.self0 + g0 - c.begin)), boid_of);
    alignas(32) float kept[(kLaneMaxRange / 2 + 1) * 8];
    std::uint32_t nk = 0;
    __m256i rel = parity;  // each lane's candidate, by its index in the range
    for (std::uint32_t q = 0; q < range; q += 2, rel = _mm256_add_epi32(rel, two_v)) {
      B d[D];
      for (int a = 0; a < D; ++a) {
        // Candidates q and q + 1 (readable past the range's end: LaneCell, GatherSource).
        double two;
        std::memcpy(&two, c.cp[a] + c.begin + q, sizeof two);
        B x = B(_mm256_castpd_ps(_mm256_set1_pd(two))) - pi[a];
        if (WM == WrapMode::min_image && c.wrap_axis[a]) {
          const B t = x * inv;
          x = (x - xsimd::select(t > half, size, zero)) + xsimd::select(t < -half, size, zero);
        }
        d[a] = x;
      }
      B d2 = d[0] * d[0];
      for (int a = 1; a < D; ++a) d2 = d2 + d[a] * d[a];
      M m = d2 < r2;
      if (any_cone) {
        B dot = d[0] * vv[0];
        for (int a = 1; a < D; ++a) dot = dot + d[a] * vv[a];
        m = m && (no_cone || dot >= xsimd::sqrt(d2) * vlen * cosv);
      }
      const __m256i ok =
          _mm256_andnot_si256(_mm256_cmpeq_epi32(rel, self), _mm256_cmpgt_epi32(endv, rel));
      m = m && M(_mm256_castsi256_ps(ok));
      const B kq = xsimd::select(m, (d2 & high) | B(_mm256_castsi256_ps(rel)), binf);
      kq.store_aligned(kept + std::size_t(nk) * 8);
      nk += std::uint32_t(P8::bits(m) != 0);
    }
    B key[S];
    for (int t = 0; t < S; ++t) key[t] = binf;
    for (std::uint32_t e = 0; e < nk; ++e) {
      B x = B::load_aligned(kept + std::size_t(e) * 8);
      for (int t = 0; t < S; ++t) {
        const B lo = xsimd::min(key[t], x);
        x = xsimd::max(key[t], x);
        key[t] = lo;
      }
    }
    // The two lists of each boid merged (both lanes end with the same S keys).
    B mk[S];
    for (int t = 0; t < S; ++t)
      mk[t] = xsimd::min(key[t], B(_mm256_permute_ps(key[S - 1 - t], 0xB1)));
    for (int h = S / 2; h >= 1; h /= 2) {
      for (int t = 0; t < S; ++t) {
        if (t & h) continue;
        const B lo = xsimd::min(mk[t], mk[t + h]);
        mk[t + h] = xsimd::max(mk[t], mk[t + h]);
        mk[t] = lo;
      }
    }
    __m128 kv[S];
    for (int t = 0; t < S; ++t)
      kv[t] = _mm256_castps256_ps128(_mm256_permutevar8x32_ps(mk[t], even));
    unsettled += pair_finish<D, WM, S>(in, c, k, kp, g0, lanes, lp, kv, out);
  }
  return unsettled;
}

template <int D, WrapMode WM>
void fill_lane_pair_row(LaneFn<float>* row) {
  row[0] = &lane_pair_cell<D, WM, 4>;
  row[1] = &lane_pair_cell<D, WM, 8>;
  row[2] = &lane_pair_cell<D, WM, 16>;
}

inline void fill_lane_pair_table(GatherTable<float>& t) {
  fill_lane_pair_row<2, WrapMode::none>(t.lane[0][0]);
  fill_lane_pair_row<2, WrapMode::min_image>(t.lane[0][1]);
  fill_lane_pair_row<3, WrapMode::none>(t.lane[1][0]);
  fill_lane_pair_row<3, WrapMode::min_image>(t.lane[1][1]);
}

}  // namespace
}  // namespace boids::list_detail

#endif
