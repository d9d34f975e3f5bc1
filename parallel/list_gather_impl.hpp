// The neighbour-list gather (parallel/list_gather.hpp) over a pack P (Real or an xsimd batch;
// core/simd_packs.hpp). Included by list_gather_<isa>.cpp only; everything here is in an
// anonymous namespace, so each ISA's unit keeps its own copy.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "parallel/list_gather.hpp"

namespace boids::list_detail {
namespace {

// More candidates than this in the list: prune it to those not farther than its k-th nearest.
inline constexpr int kPruneAbove = 16;

// Keeps the list's candidates with |d|^2 <= the k-th smallest |d|^2 among them, in order, and
// returns that bound. The k nearest of all the boid's candidates are among those kept (a
// subset's k-th smallest is not below the whole set's), ties at the bound included, so
// the final selection by (|d|^2, id) is unchanged. k <= kMaxPruneK.
inline constexpr int kMaxPruneK = kGatherMaxK;
template <class Real, int D>
Real prune(const GatherOut<Real>& out, int& n, int k) {
  Real best[kMaxPruneK] = {};  // the k smallest so far, ascending
  int c = 0;
  for (int t = 0; t < n; ++t) {
    const Real x = out.dist2[t];
    if (c == k && !(x < best[k - 1])) continue;
    int at = c < k ? c : k - 1;
    for (; at > 0 && x < best[at - 1]; --at) best[at] = best[at - 1];
    best[at] = x;
    if (c < k) ++c;
  }
  const Real bound = best[k - 1];
  int w = 0;
  for (int t = 0; t < n; ++t) {
    for (int a = 0; a < D; ++a) out.d[a][w] = out.d[a][t];
    out.dist2[w] = out.dist2[t];
    out.slot[w] = out.slot[t];
    w += int(out.dist2[t] <= bound);
  }
  n = w;
  return bound;
}

template <class P, class Real, int D, WrapMode WM>
int gather_visible(const GatherInput<Real>& in, std::uint32_t i, const GatherSource<Real>& src,
                   const CandidateRun<Real>* runs, int nr, int k, const GatherOut<Real>& out) {
  using B = typename P::B;
  constexpr int W = P::W;
  static_assert(W <= int(kGatherSlack), "a compacting store writes W elements");
  Real vi[3] = {0, 0, 0}, vi2 = 0;
  B pv[3], vv[3];
  for (int c = 0; c < D; ++c) {
    vi[c] = in.v[c][i];
    vi2 += vi[c] * vi[c];
    pv[c] = P::splat(in.p[c][i]);
    vv[c] = P::splat(vi[c]);
  }
  const Real vi_len = std::sqrt(vi2);
  const bool cone = !in.full_view && vi_len > Real(0);
  const B r2 = P::splat(in.radius2);
  B bound = r2;  // with k: a candidate farther than the k-th nearest so far cannot be taken
  const B vlen = P::splat(vi_len), cosv = P::splat(in.cos_half_view);
  [[maybe_unused]] const B size = P::splat(in.size), inv = P::splat(in.inv_size);
  const B zero = P::splat(Real(0));
  [[maybe_unused]] const B half = P::splat(Real(0.5));
  Real* dst[D + 1];
  for (int c = 0; c < D; ++c) dst[c] = out.d[c];
  dst[D] = out.dist2;
  int n = 0;
  for (int r = 0; r < nr; ++r) {
    const std::uint32_t b = runs[r].begin, e = runs[r].end;
    // nlist::offer's minimum image as (d - a) + b: per pair, or per run (WrapMode::shift,
    // list_gather.hpp).
    [[maybe_unused]] B sa[3], sb[3];
    if constexpr (WM == WrapMode::shift) {
      for (int c = 0; c < D; ++c) {
        sa[c] = runs[r].shift[c] < Real(0) ? size : zero;
        sb[c] = runs[r].shift[c] > Real(0) ? size : zero;
      }
    }
    for (std::uint32_t q = b; q < e; q += W) {
      B d[4];
      for (int c = 0; c < D; ++c) {
        B x = P::loadu(src.p[c] + q) - pv[c];
        if constexpr (WM == WrapMode::shift) {
          x = (x - sa[c]) + sb[c];
        } else if constexpr (WM == WrapMode::min_image) {
          const B t = x * inv;
          x = (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
        }
        d[c] = x;
      }
      B d2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
      d[D] = d2;
      auto m = P::and_(d2 < r2, d2 <= bound);
      if (cone) {  // nlist::offer's view test: (sqrt(d2) * |v_i|) * cos
        B dot = d[0] * vv[0];
        for (int c = 1; c < D; ++c) dot = dot + d[c] * vv[c];
        m = P::and_(m, dot >= P::sqrt(d2) * vlen * cosv);
      }
      // The run's end and the boid itself, without a branch (most runs are one short batch).
      const std::uint32_t left = e - q < std::uint32_t(W) ? e - q : std::uint32_t(W);
      std::uint64_t bits = P::bits(m) & ((std::uint64_t(2) << (left - 1)) - 1u);
      const std::uint32_t self = src.self - q;
      bits &= ~((self < std::uint32_t(W) ? std::uint64_t(1) : std::uint64_t(0)) << (self & 63u));
      P::template compress<D + 1>(bits, d, dst, out.slot, n, q, src.slot);
      n += std::popcount(bits);
      if (k && n > kPruneAbove) bound = P::splat(prune<Real, D>(out, n, k));
    }
  }
  if (k && n > kPruneAbove) prune<Real, D>(out, n, k);
  return n;
}

template <class Real, int N>
int order_small(const Real* dist2, const std::uint32_t* slot, const std::uint32_t* id, int n, int k,
                std::uint32_t* order) {
  alignas(64) Real td[N];
  alignas(64) std::uint32_t ti[N];
  alignas(64) std::uint32_t in[N];  // 1: among the k nearest
  for (int t = 0; t < n; ++t) {
    td[t] = dist2[t];
    ti[t] = id[slot[t]];
  }
  for (int t = n; t < N; ++t) {  // padding: after every candidate, never taken
    td[t] = std::numeric_limits<Real>::infinity();
    ti[t] = std::numeric_limits<std::uint32_t>::max();
  }
  if (n > k) {
    for (int t = 0; t < N; ++t) {
      std::uint32_t rank = 0;  // candidates before t in (|d|^2, id) order
      for (int u = 0; u < N; ++u)
        rank += std::uint32_t(td[u] < td[t]) |
                (std::uint32_t(td[u] == td[t]) & std::uint32_t(ti[u] < ti[t]));
      in[t] = std::uint32_t(rank < std::uint32_t(k));
    }
  } else {
    for (int t = 0; t < N; ++t) in[t] = std::uint32_t(t < n);
  }
  std::uint32_t out[2 * N];
  for (int t = 0; t < N; ++t) {
    std::uint32_t rank = 0;  // kept candidates with a smaller id
    for (int u = 0; u < N; ++u) rank += in[u] & std::uint32_t(ti[u] < ti[t]);
    out[in[t] ? rank : std::uint32_t(N + t)] = std::uint32_t(t);
  }
  const int cnt = n < k ? n : k;
  for (int t = 0; t < cnt; ++t) order[t] = out[t];
  return cnt;
}

#if defined(__AVX2__)
// order_small for float on AVX2: each candidate t compared with all N at once (bit masks of
// "u before t" by (|d|^2, id) and by id), the same counts as above.
template <int N>
int order_small_avx2(const float* dist2, const std::uint32_t* slot, const std::uint32_t* id, int n,
                     int k, std::uint32_t* order) {
  alignas(64) float td[N];
  alignas(64) std::int32_t ti[N];  // id - 2^31: signed order = unsigned order of the ids
  for (int t = 0; t < n; ++t) {
    td[t] = dist2[t];
    ti[t] = std::int32_t(id[slot[t]] ^ 0x80000000u);
  }
  for (int t = n; t < N; ++t) {
    td[t] = std::numeric_limits<float>::infinity();
    ti[t] = std::numeric_limits<std::int32_t>::max();
  }
  __m256 vd[N / 8];
  __m256i vi[N / 8];
  for (int h = 0; h < N / 8; ++h) {
    vd[h] = _mm256_load_ps(td + 8 * h);
    vi[h] = _mm256_load_si256(reinterpret_cast<const __m256i*>(ti + 8 * h));
  }
  const std::uint32_t valid = (std::uint32_t(1) << n) - 1u;  // n <= 16
  std::uint32_t id_before[N];                                // bit u: id_u < id_t
  std::uint32_t chosen = valid;
  if (n > k) chosen = 0;
  for (int t = 0; t < n; ++t) {
    const __m256 bd = _mm256_set1_ps(td[t]);
    const __m256i bi = _mm256_set1_epi32(ti[t]);
    std::uint32_t before = 0, idb = 0;
    for (int h = 0; h < N / 8; ++h) {
      const std::uint32_t lt =
          std::uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(vd[h], bd, _CMP_LT_OQ)));
      const std::uint32_t eq =
          std::uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(vd[h], bd, _CMP_EQ_OQ)));
      const std::uint32_t il =
          std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bi, vi[h]))));
      before |= (lt | (eq & il)) << (8 * h);
      idb |= il << (8 * h);
    }
    id_before[t] = idb;
    if (n > k) chosen |= std::uint32_t(std::popcount(before & valid) < k) << t;
  }
  int cnt = 0;
  for (std::uint32_t m = chosen; m; m &= m - 1, ++cnt) {
    const int t = std::countr_zero(m);
    order[std::popcount(id_before[t] & chosen)] = std::uint32_t(t);
  }
  return cnt;
}
#endif

// SumFn (list_gather.hpp): accumulate_pair's arithmetic for visible pairs without the nearest
// tracking, lane l = boid b + l. A lane past its boid's count keeps its sums (select), so each
// lane's sums see exactly its boid's additions, in order: (0 + d0^2) + d1^2 ... is d0^2 + d1^2
// ... (a square is never -0), and the separation term is the same -(d * (1 / |d|^2)) or -d.
template <class P, class Real, int D>
void sum_staged(const SumStage<Real>& s, std::uint32_t count, const KindParams<Real>& kp,
                FlockSums<Real>* out) {
  using B = typename P::B;
  constexpr int W = P::W;
  const B tiny = P::splat(std::numeric_limits<Real>::min()), sr2 = P::splat(kp.sep_radius2);
  const B one = P::splat(Real(1)), zero = P::splat(Real(0));
  const bool linear = kp.sep_linear;
  for (std::uint32_t b = 0; b < count; b += std::uint32_t(W)) {
    Real tmax = 0;
    for (int l = 0; l < W; ++l) tmax = std::max(tmax, s.cnt[b + std::uint32_t(l)]);
    const B cn = P::loadu(s.cnt + b);
    B sd[3] = {zero, zero, zero}, sv[3] = {zero, zero, zero}, ss[3] = {zero, zero, zero};
    for (int t = 0; Real(t) < tmax; ++t) {
      const auto valid = P::splat(Real(t)) < cn;
      const std::size_t o = std::size_t(t) * s.stride + b;
      B d[3], vj[3];
      for (int c = 0; c < D; ++c) {
        d[c] = P::loadu(s.d[c] + o);
        vj[c] = P::loadu(s.v[c] + o);
      }
      B dist2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) dist2 = dist2 + d[c] * d[c];
      for (int c = 0; c < D; ++c) {
        sd[c] = P::select(valid, sd[c] + d[c], sd[c]);
        sv[c] = P::select(valid, sv[c] + vj[c], sv[c]);
      }
      const auto sm = P::and_(valid, P::and_(dist2 >= tiny, dist2 < sr2));
      if (linear) {
        for (int c = 0; c < D; ++c) ss[c] = P::select(sm, ss[c] - d[c], ss[c]);
      } else {
        const B inv = one / dist2;
        for (int c = 0; c < D; ++c) ss[c] = P::select(sm, ss[c] - d[c] * inv, ss[c]);
      }
    }
    alignas(64) Real ld[3][W], lv[3][W], ls[3][W];
    for (int c = 0; c < D; ++c) {
      P::storeu(ld[c], sd[c]);
      P::storeu(lv[c], sv[c]);
      P::storeu(ls[c], ss[c]);
    }
    const int lanes = count - b < std::uint32_t(W) ? int(count - b) : W;
    for (int l = 0; l < lanes; ++l) {
      FlockSums<Real>& f = out[b + std::uint32_t(l)];
      f = FlockSums<Real>();
      f.k = std::int32_t(s.cnt[b + std::uint32_t(l)]);
      for (int c = 0; c < D; ++c) {
        f.d[c] = ld[c][l];
        f.v[c] = lv[c][l];
        f.sep[c] = ls[c][l];
      }
    }
  }
}

}  // namespace
}  // namespace boids::list_detail

// (In this order: each uses the ones before it.)
#include "parallel/list_lanes_finish_impl.hpp"
//
#include "parallel/list_lanes_dz_impl.hpp"
#include "parallel/list_lanes_finish_d_impl.hpp"
//
#include "parallel/list_lanes_impl.hpp"
#include "parallel/list_lanes_multi_impl.hpp"

namespace boids::list_detail {
namespace {

template <template <class> class Pk, class Real>
void fill_gather_table(GatherTable<Real>& t) {
  // The lane kernel's lanes are a cell's boids, about 4 at the radius's cells: one boid per
  // lane pays where a pack has at most 4 lanes (measured: double on AVX2 and float on SSE4.2
  // about 30 % faster than the gather); 8 float lanes on AVX2 and 16 on AVX-512 take groups of
  // G boids x W / G candidates (parallel/list_lanes_multi_impl.hpp), and double on AVX-512
  // takes AVX2's 4-lane packs.
  if constexpr (Pk<Real>::W <= 4) {
    fill_lane_table<Pk, Real>(t);
  }
#if defined(__AVX2__)
  else if constexpr (sizeof(Real) == 4 && Pk<Real>::W == 8) {
    fill_lane_multi_table<Lanes8>(t);
  }
#endif
#if defined(__AVX512F__)
  else if constexpr (sizeof(Real) == 4 && Pk<Real>::W == 16) {
    fill_lane_multi_table<Lanes16>(t);
  } else if constexpr (sizeof(Real) == 8) {
    // Double on AVX-512: one boid per lane of AVX2's 4-lane packs (8 lanes would run half
    // empty; without a lane kernel this path cost 2.7x the metric rule).
    fill_lane_table<SimdPairPacks<xsimd::avx2>::Pack, Real>(t);
    fill_lane_finish_d(t);  // lane_cell stages for the row finish (4 boids x 2 candidates)
  }
#endif
  t.sum[0] = &sum_staged<Pk<Real>, Real, 2>;
  t.sum[1] = &sum_staged<Pk<Real>, Real, 3>;
  t.order[0] = &order_small<Real, 8>;
  t.order[1] = &order_small<Real, 16>;
#if defined(__AVX2__)
  if constexpr (sizeof(Real) == 4) {
    t.order[0] = &order_small_avx2<8>;
    t.order[1] = &order_small_avx2<16>;
  }
#endif
  t.fn[0][int(WrapMode::none)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::none>;
  t.fn[0][int(WrapMode::shift)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::shift>;
  t.fn[0][int(WrapMode::min_image)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::min_image>;
  t.fn[1][int(WrapMode::none)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::none>;
  t.fn[1][int(WrapMode::shift)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::shift>;
  t.fn[1][int(WrapMode::min_image)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::min_image>;
}

}  // namespace
}  // namespace boids::list_detail
