// The cluster kernels' per-pair rule and group copy (core/cluster_kernels.hpp has the design):
// the scalar group copy the packs must match, and StandardRule, the standard flock's sums over
// a tile's 16 virtual lanes with its fixed lane tree. Included by cluster_kernels_impl.hpp only.
#pragma once

#include <cstdint>
#include <limits>

#include "core/cluster_kernels.hpp"

namespace boids {
namespace {
namespace cluster_detail {

/// Copies one component of m (1 .. kGroup) boids, sp[0, m) and sv[0, m), into a group block
/// dp[0, kGroup) / dv[0, kGroup) (padding: position +inf, velocity 0), adding sh to the
/// positions if Shift, and sets lo / hi to the smallest / largest copied position. The packs
/// do the same with 4-wide registers (the same values: a copy, the same addition, min/max).
template <bool Shift, class Real>
inline void copy_group_scalar(Real* dp, Real* dv, const Real* sp, const Real* sv, std::uint32_t m,
                              Real sh, Real& lo, Real& hi) {
  const Real inf = std::numeric_limits<Real>::infinity();
  lo = inf;
  hi = -inf;
  for (std::uint32_t l = 0; l < m; ++l) {
    Real q = sp[l];
    if constexpr (Shift) q = q + sh;
    dp[l] = q;
    dv[l] = sv[l];
    lo = q < lo ? q : lo;
    hi = q > hi ? q : hi;
  }
  for (std::uint32_t l = m; l < std::uint32_t(kGroup); ++l) {
    dp[l] = inf;  // never inside r: the padding masks itself
    dv[l] = 0;
  }
}

/// The standard flock's pair rule over the virtual lanes of one tile (the `Rule` of the
/// design comment): kTile = 16 lanes, lane 8k + 4e + l holding i-boid e of the pair and slot l
/// of the list's entries of parity k (half k), held in U = kTile / W registers.
template <class P, class Real, int D>
struct StandardRule {
  using B = typename P::B;
  using K = typename P::K;
  static constexpr int T = kTile;
  static constexpr int U = T / P::W;
  static constexpr int Q = 3 * D;  // sums of d, v, sep (the count is an integer)
  struct Acc {
    B d[D][U], v[D][U], s[D][U];
    K k[U];
    // Counts kept outside the lanes (a 16-wide pack: the popcounts of a tile's mask), per
    // i-boid; added to the lane counts by finish(). Integers: exact in any order.
    std::int32_t kc[2];
  };
  static void zero(Acc& a) {
    for (int u = 0; u < U; ++u) {
      for (int c = 0; c < D; ++c) a.d[c][u] = a.v[c][u] = a.s[c][u] = P::splat(Real(0));
      a.k[u] = P::kzero();
    }
    a.kc[0] = a.kc[1] = 0;
  }
  // The fixed lane tree of i-boid e: its lane l is x_l = lane 4e + l + lane 8 + 4e + l (the
  // two halves, lane-wise), then (x_0 + x_1) + (x_2 + x_3). o[e] may be null (a padding boid).
  static void finish(const Acc& a, FlockSums<Real>* const (&o)[2]) {
    Real out[2][Q];
    if constexpr (requires { requires P::has_tile_tree; } && (U == 1 || (U == 2 && P::W == 8))) {
      // Registers hold the halves side by side (U = 1: P::tile_tree adds them) or one half
      // each (U = 2: added here); the same lane-wise additions either way.
      auto halves = [](const B(&r)[U]) {
        if constexpr (U == 2)
          return B(r[0] + r[1]);
        else
          return r[0];
      };
      B x[Q];
      for (int c = 0; c < D; ++c) {
        x[c] = halves(a.d[c]);
        x[D + c] = halves(a.v[c]);
        x[2 * D + c] = halves(a.s[c]);
      }
      P::template tile_tree<Q>(x, out);
    } else {
      alignas(64) Real lane[Q][T];
      for (int u = 0; u < U; ++u)
        for (int c = 0; c < D; ++c) {
          P::storeu(lane[c] + u * P::W, a.d[c][u]);
          P::storeu(lane[D + c] + u * P::W, a.v[c][u]);
          P::storeu(lane[2 * D + c] + u * P::W, a.s[c][u]);
        }
      for (int e = 0; e < 2; ++e)
        for (int q = 0; q < Q; ++q) {
          const Real* l = lane[q] + kGroup * e;
          Real x[kGroup];
          for (int j = 0; j < kGroup; ++j) x[j] = l[j] + l[kHalf + j];
          out[e][q] = (x[0] + x[1]) + (x[2] + x[3]);
        }
    }
    std::int64_t kl[T];
    for (int u = 0; u < U; ++u) P::kstore(kl + u * P::W, a.k[u]);
    for (int e = 0; e < 2; ++e) {
      if (!o[e]) continue;
      FlockSums<Real>& s = *o[e];
      s = FlockSums<Real>{};
      std::int64_t k = a.kc[e];
      for (int j = 0; j < kGroup; ++j) k += kl[4 * e + j] + kl[kHalf + 4 * e + j];
      s.k = std::int32_t(k);
      for (int c = 0; c < D; ++c) {
        s.d[c] = out[e][c];
        s.v[c] = out[e][D + c];
        s.sep[c] = out[e][2 * D + c];
      }
    }
  }
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
