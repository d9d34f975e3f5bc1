// The topological lane kernel (LaneFn, parallel/list_gather.hpp) over a pack P: a cell's boids
// in the SIMD lanes, the candidates of its stencil broadcast one by one. Included by
// parallel/list_gather_impl.hpp only (the same anonymous namespace).
//
// Each (boid, candidate) pair gets a key: |d|^2's bit pattern with its low bits replaced by the
// candidate's index in the range (kLaneMaxRange = 2^10 of them), +inf when the candidate is
// not visible (gather_visible's test and arithmetic). |d|^2 >= 0, so the patterns order as
// their values, and the keys compare as Real (a key may be subnormal: this needs the default
// floating-point mode, no denormals-are-zero, as the rest of the engine). First the scan keeps,
// without a branch, the key vectors where some lane sees the candidate (a few per boid); then
// those go through a min/max insertion network that holds the S = k + 1 (or more) smallest keys
// of every lane in registers. Keys are distinct within a lane, so min and max lose none.
//
// Exactness: the lane's first k keys are the k nearest by (|d|^2, id) when its (k+1)-th key
// is +inf (at most k visible) or its high bits exceed the k-th key's: then every kept |d|^2 is
// below every other one, and which of equal ones is kept cannot matter. A lane where that fails
// (a tie at the k-th place, or two |d|^2 equal in their high bits) is not settled: the caller
// takes that boid through the gather and the exact ranking. The kept neighbours are then
// sorted by id across the lanes (ids compared as bit patterns too) and summed by sum_staged in
// id order, as the gather's path sums them: the same bits.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace boids::list_detail {
namespace {

template <class Real>
Real lane_and(Real a, Real b) {
  using U = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  return std::bit_cast<Real>(U(std::bit_cast<U>(a) & std::bit_cast<U>(b)));
}
template <class Real>
Real lane_or(Real a, Real b) {
  using U = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  return std::bit_cast<Real>(U(std::bit_cast<U>(a) | std::bit_cast<U>(b)));
}
template <class Real>
Real lane_max(Real a, Real b) {
  return a < b ? b : a;
}
#if defined(BOIDS_PAIR_PACKS_X86)
template <class T, class A>
xsimd::batch<T, A> lane_and(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) {
  return a & b;
}
template <class T, class A>
xsimd::batch<T, A> lane_or(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) {
  return a | b;
}
template <class T, class A>
xsimd::batch<T, A> lane_max(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) {
  return xsimd::max(a, b);
}
#endif

template <class P, class Real, int D, WrapMode WM, int S>
std::uint32_t lane_cell(const GatherInput<Real>& in, const LaneCell<Real>& c, int k,
                        const KindParams<Real>& kp, FlockSums<Real>* out) {
  using B = typename P::B;
  using U = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  constexpr int W = P::W;
  constexpr U kIdx = U(kLaneMaxRange - 1);
  const Real inf = std::numeric_limits<Real>::infinity();
  const B binf = P::splat(inf), zero = P::splat(Real(0));
  const B high = P::splat(std::bit_cast<Real>(U(~kIdx)));
  [[maybe_unused]] const B size = P::splat(in.size), inv = P::splat(in.inv_size);
  [[maybe_unused]] const B half = P::splat(Real(0.5));
  const B cosv = P::splat(in.cos_half_view);
  alignas(64) Real lane_id[W];
  for (int l = 0; l < W; ++l) lane_id[l] = Real(l);
  // The minimum image only on the axes whose seam the cell's stencil crosses (LaneCell::
  // wrap_axis): on the others it is d itself for every candidate.
  [[maybe_unused]] bool wa[3] = {false, false, false};
  if constexpr (WM == WrapMode::min_image) {
    for (int a = 0; a < D; ++a) wa[a] = c.wrap_axis[a];
  }
  const B iota = P::loadu(lane_id);
  std::uint32_t unsettled = 0;
  for (std::uint32_t g0 = 0; g0 < c.count; g0 += std::uint32_t(W)) {
    const int lanes = c.count - g0 < std::uint32_t(W) ? int(c.count - g0) : W;
    alignas(64) Real lp[3][W], lv[3][W], lr2[W];
    for (int l = 0; l < W; ++l) {
      const std::uint32_t b = g0 + std::uint32_t(l < lanes ? l : 0);
      const std::uint32_t s = c.bslot ? c.bslot[b] : c.first + b;
      for (int a = 0; a < D; ++a) {
        lp[a][l] = in.p[a][s];
        lv[a][l] = in.v[a][s];
      }
      // A lane past the cell's boids sees nothing (|d|^2 < 0 never holds).
      lr2[l] = l < lanes ? (c.r2 ? c.r2[b] : in.radius2) : Real(-1);
    }
    B pi[D], vv[D];
    for (int a = 0; a < D; ++a) {
      pi[a] = P::loadu(lp[a]);
      vv[a] = P::loadu(lv[a]);
    }
    B vi2 = vv[0] * vv[0];
    for (int a = 1; a < D; ++a) vi2 = vi2 + vv[a] * vv[a];
    const B vlen = P::sqrt(vi2);
    // gather_visible's cone: only for a moving boid.
    const bool any_cone = !in.full_view && P::bits(vlen > zero) != 0;
    const auto no_cone = vlen <= zero;
    alignas(64) Real kl[S][W];
#if defined(__AVX512F__)
    // Double on AVX-512: 4 boids x 2 candidates per 8-lane register (list_lanes_dz_impl.hpp),
    // the same keys into kl; where the caller stages (LaneCell::stage), the row's finish sorts
    // and sums the selections 8 boids at a time (list_lanes_finish_d_impl.hpp).
    if constexpr (sizeof(Real) == 8 && W == 4) {
      lane_scan_d8<D, WM, S>(in, c, g0, lp, lv, lr2, any_cone, kl);
      if (c.stage) {
        if (c.groups) ++c.groups[4];
        unsettled += stage_d4<WM>(c, k, g0, lanes, kl, out);
        continue;
      }
    } else
#endif
    {
      const B r2 = P::loadu(lr2);
      // First every candidate's keys, kept (without a branch) where some lane sees it; then
      // those few through the insertion network.
      alignas(64) Real kept[(kLaneMaxRange + 1) * W];
      std::uint32_t nk = 0;
      const std::uint32_t own = c.self0 + g0;  // copy index of lane 0's boid
      for (std::uint32_t q = c.begin; q < c.end; ++q) {
        B d[D];
        for (int a = 0; a < D; ++a) {
          B x = P::splat(c.cp[a][q]) - pi[a];
          if constexpr (WM == WrapMode::min_image) {
            if (wa[a]) {
              const B t = x * inv;
              x = (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
            }
          }
          d[a] = x;
        }
        B d2 = d[0] * d[0];
        for (int a = 1; a < D; ++a) d2 = d2 + d[a] * d[a];
        auto m = d2 < r2;
        if (any_cone) {
          B dot = d[0] * vv[0];
          for (int a = 1; a < D; ++a) dot = dot + d[a] * vv[a];
          m = P::and_(m, P::or_(no_cone, dot >= P::sqrt(d2) * vlen * cosv));
        }
        if (q - own < std::uint32_t(lanes))  // a boid of this group: not its own neighbour
          m = P::and_(m, iota != P::splat(Real(q - own)));
        const B kq = P::select(
            m, lane_or(lane_and(d2, high), P::splat(std::bit_cast<Real>(U(q - c.begin)))), binf);
        P::storeu(kept + std::size_t(nk) * W, kq);
        nk += std::uint32_t(P::bits(m) != 0);
      }
      B key[S];
      for (int t = 0; t < S; ++t) key[t] = binf;
      for (std::uint32_t e = 0; e < nk; ++e) {
        B x = P::loadu(kept + std::size_t(e) * W);
        for (int t = 0; t < S; ++t) {
          const B lo = P::min(key[t], x);
          x = lane_max(key[t], x);
          key[t] = lo;
        }
      }
      for (int t = 0; t < S; ++t) P::storeu(kl[t], key[t]);
    }
    // Per lane: settled or not, the count n of its k nearest, and for the first k places the
    // candidate's index q and id, as Real bit patterns (an id below kIdLimit orders as its
    // pattern; +inf past the count). Then sorted by id across the lanes at once (odd-even
    // transposition, no branch on the data), and staged t-major for sum_staged (a place past
    // a lane's count holds some candidate's values, which sum_staged masks).
    constexpr U kIdLimit = sizeof(Real) == 4 ? U(0x7f800000u) : ~U(0);
    alignas(64) Real idl[S][W], qr[S][W];
    alignas(64) Real cnt[2 * W];
    for (int l = 0; l < 2 * W; ++l) cnt[l] = 0;
    std::uint32_t bad = 0;
    int tmax = 0;
    for (int l = 0; l < W; ++l) {
      const Real kk = kl[k][l];
      const bool tie = kk != inf && (std::bit_cast<U>(kl[k - 1][l]) & U(~kIdx)) ==
                                        (std::bit_cast<U>(kk) & U(~kIdx));
      int n = 0;
      for (int t = 0; t < k; ++t) n += int(kl[t][l] != inf);
      bool ok = l < lanes && !tie;
      for (int t = 0; t < k; ++t) {
        const std::uint32_t q = c.begin + std::uint32_t(std::bit_cast<U>(kl[t][l]) & kIdx);
        const U id = U(c.id[q]);
        ok = ok && (t >= n || id < kIdLimit);
        idl[t][l] = t < n ? std::bit_cast<Real>(id) : inf;
        qr[t][l] = std::bit_cast<Real>(U(q));
      }
      if (!ok) {
        if (l < lanes) bad |= 1u << l;
        n = 0;
        for (int t = 0; t < k; ++t) idl[t][l] = inf;
      }
      cnt[l] = Real(n);
      tmax = n > tmax ? n : tmax;
    }
    {
      B iv[S], qv[S];
      for (int t = 0; t < k; ++t) {
        iv[t] = P::loadu(idl[t]);
        qv[t] = P::loadu(qr[t]);
      }
      for (int r = 0; r < k; ++r) {
        for (int t = r & 1; t + 1 < k; t += 2) {
          const auto lt = iv[t + 1] < iv[t];
          const B lo = P::min(iv[t], iv[t + 1]);
          iv[t + 1] = lane_max(iv[t], iv[t + 1]);
          iv[t] = lo;
          const B qa = P::select(lt, qv[t + 1], qv[t]);
          qv[t + 1] = P::select(lt, qv[t], qv[t + 1]);
          qv[t] = qa;
        }
      }
      for (int t = 0; t < tmax; ++t) P::storeu(qr[t], qv[t]);
    }
    alignas(64) Real sd[3][S * W], sv[3][S * W];
    for (int t = 0; t < tmax; ++t) {
      for (int l = lanes; l < W; ++l) {  // lanes past the cell's boids: masked, but finite
        for (int a = 0; a < D; ++a) {
          sd[a][t * W + l] = Real(0);
          sv[a][t * W + l] = Real(0);
        }
      }
      for (int l = 0; l < lanes; ++l) {
        const std::uint32_t q = std::uint32_t(std::bit_cast<U>(qr[t][l])), j = c.cslot[q];
        for (int a = 0; a < D; ++a) {
          Real x = c.cp[a][q] - lp[a][l];  // the scan's d, by the same operations
          if constexpr (WM == WrapMode::min_image) {
            if (wa[a]) {
              const Real tt = x * in.inv_size;
              x = (x - (tt > Real(0.5) ? in.size : Real(0))) +
                  (tt < Real(-0.5) ? in.size : Real(0));
            }
          }
          sd[a][t * W + l] = x;
          sv[a][t * W + l] = in.v[a][j];
        }
      }
    }
    SumStage<Real> st;
    for (int a = 0; a < D; ++a) {
      st.d[a] = sd[a];
      st.v[a] = sv[a];
    }
    st.cnt = cnt;
    st.stride = std::size_t(W);
    sum_staged<P, Real, D>(st, std::uint32_t(lanes), kp, out + g0);
    for (int l = 0; l < lanes; ++l) {
      if (bad >> l & 1u) {
        out[g0 + std::uint32_t(l)].k = -1;
        ++unsettled;
      }
    }
  }
  return unsettled;
}

template <template <class> class Pk, class Real, int D, WrapMode WM>
void fill_lane_row(LaneFn<Real>* row) {
  row[0] = &lane_cell<Pk<Real>, Real, D, WM, 4>;
  row[1] = &lane_cell<Pk<Real>, Real, D, WM, 8>;
  row[2] = &lane_cell<Pk<Real>, Real, D, WM, 16>;
}

template <template <class> class Pk, class Real>
void fill_lane_table(GatherTable<Real>& t) {
  fill_lane_row<Pk, Real, 2, WrapMode::none>(t.lane[0][0]);
  fill_lane_row<Pk, Real, 2, WrapMode::min_image>(t.lane[0][1]);
  fill_lane_row<Pk, Real, 3, WrapMode::none>(t.lane[1][0]);
  fill_lane_row<Pk, Real, 3, WrapMode::min_image>(t.lane[1][1]);
}

}  // namespace
}  // namespace boids::list_detail
