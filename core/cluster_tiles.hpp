// The cluster kernels' tiles (core/cluster_kernels.hpp has the design): the pair arithmetic
// of one i-pair against the entries of its list in 16 virtual lanes, the lane masks and the
// per-pair setup. Included by cluster_kernels_impl.hpp only.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/cluster_kernels.hpp"
#include "core/cluster_row_copy.hpp"
#include "core/cluster_rule.hpp"

namespace boids {
namespace {
namespace cluster_detail {

template <class P, class Real, int D, WrapMode WM, bool FV>
struct ClusterTiles {
  using B = typename P::B;
  using M = typename P::M;
  using Rule = StandardRule<P, Real, D>;
  using Acc = typename Rule::Acc;
  using Buf = ClusterBuf<Real, D>;
  static constexpr std::size_t GS = Buf::GS;
  static constexpr int W = P::W;
  static constexpr int U = kTile / W;  // registers per tile
  static_assert(U * W == kTile, "pack width must divide the tile");

  // Register u of one half of a tile row of the j-group values q[0 .. kGroup) (packs up to
  // kHalf wide): lane v holds q[v mod kGroup] (one 4-value load, broadcast to both quarters of
  // an 8-wide pack).
  static inline B jlanes(const Real* q, int u) {
    if constexpr (W <= kGroup)
      return P::loadu(q + (u * W) % kGroup);
    else
      return P::load_quad2(q);
  }

  // Register u of the tile value "x in lanes 8k + 0-3, y in lanes 8k + 4-7".
  static inline B pair_lanes(Real x, Real y, int u) {
    if constexpr (W <= kGroup)
      return P::splat((u * W) % kHalf < kGroup ? x : y);
    else
      return P::splat2(x, y);
  }

  // What every register of a pair's tiles shares: the i-pair's lanes (pi, vi, vl: lane
  // 8k + 4e + l holds i-boid e's position, velocity, |v|) and the rule's constants.
  struct Tile {
    const GridView<Real>& g;
    const B (&pi)[D][U];
    const B (&vi)[D][U];
    const B (&vl)[U];
    B cosv, r2, rs2, fmin, one;
    Tile(const GridView<Real>& gv, const B (&p)[D][U], const B (&v)[D][U], const B (&l)[U])
        : g(gv),
          pi(p),
          vi(v),
          vl(l),
          cosv(P::splat(gv.kp.cos_half_view)),
          r2(P::splat(gv.kp.radius2)),
          rs2(P::splat(gv.kp.sep_radius2)),
          fmin(P::splat(std::numeric_limits<Real>::min())),
          one(P::splat(Real(1))) {}

    // Register u of a tile: jl(o) gives its j-lanes of the group block's values at offset o
    // (position c at c * kGroup, velocity c at (D + c) * kGroup); `extra` (if Extra) masks
    // lanes out (the boid itself, an absent half).
    template <bool Full, bool Extra, class JL>
    inline void operator()(const JL& jl, int u, M extra, Acc& a) const {
      B d[D];
      for (int c = 0; c < D; ++c) {
        d[c] = jl(c * kGroup) - pi[c][u];
        if constexpr (WM == WrapMode::min_image)
          d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
      }
      // accumulate_pair starts these sums at 0; 0 + x is x for a square (never -0), and a
      // dot of -0 instead of +0 compares the same, so the first term starts them here.
      B d2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
      M m = d2 < r2;
      if constexpr (!Full) {
        B dot = d[0] * vi[0][u];
        for (int c = 1; c < D; ++c) dot = dot + d[c] * vi[c][u];
        // A boid at rest (|v| = 0) passes: dot = +-0 >= +-0, as accumulate_pair's skip.
        m = P::and_(m, dot >= P::sqrt(d2) * vl[u] * cosv);
      }
      if constexpr (Extra) m = P::and_(m, extra);
      if constexpr (W == kTile) {
        // Boid 0 in lanes 0-3 and 8-11, boid 1 in 4-7 and 12-15: two popcounts off the
        // vector pipes instead of a masked vector add.
        const std::uint64_t mb = P::bits(m);
        a.kc[0] += __builtin_popcountll(mb & 0x0F0Fu);
        a.kc[1] += __builtin_popcountll(mb & 0xF0F0u);
      } else {
        a.k[u] = P::count_if(a.k[u], m);
      }
      for (int c = 0; c < D; ++c) {
        a.d[c][u] = P::add_if(a.d[c][u], m, d[c]);
        a.v[c][u] = P::add_if(a.v[c][u], m, jl((D + c) * kGroup));
      }
      // d2 below the smallest normal counts as coincident (accumulate_pair).
      // On 8-wide packs "some lane inside r_s" is a coin flip the branch predictor loses
      // (as on the row kernel's 16-lane packs): the division is cheaper than the miss.
      const M ms = P::and_(m, P::and_(d2 >= fmin, d2 < rs2));
      if (W >= 8 || P::any(ms)) {
        const B inv = one / d2;
        for (int c = 0; c < D; ++c) a.s[c][u] = P::sub_if(a.s[c][u], ms, d[c] * inv);
      }
    }
  };

  // The tiles of one i-pair: the j-groups of keep[0, nk) in order, entry t in half t mod 2.
  // Lane 8k + 4e + l sums slot l of the entries of parity k in order; in the boid's own group
  // (entry own_at) `self` masks the boid itself (self_half[k]: only in half k, for a register
  // holding both halves; `first_half` masks half 1 when the last entry has no partner). A
  // pack of kTile lanes runs entries 2t and 2t + 1 in one register; narrower packs hold one
  // half in kHalf / W registers and run the even entries, then the odd ones: each lane sees
  // the same terms in the same order, so the bits are the same.
  template <bool Full>
  static void tiles(const Tile& tl, const Buf& b, const M (&self)[U], const M (&self_half)[2],
                    M first_half, const std::uint32_t* keep, std::uint32_t nk, std::uint32_t own_at,
                    Acc& acc) {
    Acc a = acc;
    const Real* base = b.p[0];
    if constexpr (W == kTile) {
      for (std::uint32_t t = 0; t < nk; t += 2) {
        const Real* qa = base + std::size_t(keep[t]) * GS;
        const bool pair = t + 1 < nk;
        const Real* qb = pair ? base + std::size_t(keep[t + 1]) * GS : qa;
        auto jl = [&](int o) { return P::load_quad4(qa + o, qb + o); };
        if ((own_at | 1u) == (t | 1u)) {
          M x = self_half[own_at & 1u];
          if (!pair) x = P::and_(x, first_half);
          tl.template operator()<Full, true>(jl, 0, x, a);
        } else if (!pair) {
          tl.template operator()<Full, true>(jl, 0, first_half, a);
        } else {
          tl.template operator()<Full, false>(jl, 0, first_half, a);
        }
      }
    } else {
      constexpr int UH = kHalf / W;  // registers per half
      // Half K as a constant, so its accumulators' indices are too (registers, not memory).
      auto half = [&]<int K>() {
        for (std::uint32_t t = K; t < nk; t += 2) {
          const Real* q = base + std::size_t(keep[t]) * GS;
          const bool own = t == own_at;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
          for (int uh = 0; uh < UH; ++uh) {
            const int u = K * UH + uh;
            auto jl = [&](int o) { return jlanes(q + o, uh); };
            if (own)
              tl.template operator()<Full, true>(jl, u, self[u], a);
            else
              tl.template operator()<Full, false>(jl, u, self[u], a);
          }
        }
      };
      half.template operator()<0>();
      half.template operator()<1>();
    }
    acc = a;
  }

  // The tile masks of the i-pair of slots h, h + 1 (of[h / 2]), 1 = keep: self = every lane but
  // the pair's own slots (lane 8k + 4e + l with l = h + e); self_half[k] = the same in half k
  // only; first_half = lanes 0 .. kHalf.
  struct Masks {
    struct Of {
      Real self[kTile], self_half[2][kTile];
    };
    Of of[2];
    Real first_half[kTile];
    constexpr Masks() : of{}, first_half{} {
      for (int h2 = 0; h2 < 2; ++h2)
        for (int v = 0; v < kTile; ++v) {
          const bool other = v % kGroup != 2 * h2 + (v / kGroup) % 2;
          of[h2].self[v] = other ? 1 : 0;
          for (int k = 0; k < 2; ++k) of[h2].self_half[k][v] = other || v / kHalf != k ? 1 : 0;
        }
      for (int v = 0; v < kTile; ++v) first_half[v] = v < kHalf ? 1 : 0;
    }
  };
  alignas(64) static constexpr Masks kMasks{};

  // The i-pair of slots h, h + 1 of i-group og (gm real boids, positions p): its tiles over
  // the groups keep[0, nk) (the own group at own_at), its sums into out[h] and, if real,
  // out[h + 1].
  static void pair(const GridView<Real>& g, const Buf& b, std::uint32_t og, std::uint32_t h,
                   std::uint32_t gm, const Real (&p)[kGroup][D], const std::uint32_t* keep,
                   std::uint32_t nk, std::uint32_t own_at, FlockSums<Real>* out) {
    // Lane 8k + 4e + l holds i-boid e (slot h + e) against slot l: its own slot is masked in
    // its own group (kMasks, for the pair h / 2).
    Real vv[2][D], vlen[2];
    for (int e = 0; e < 2; ++e) {
      const std::size_t s = std::size_t(og) * GS + h + std::size_t(e);
      Real vi2 = 0;
      for (int c = 0; c < D; ++c) {
        vv[e][c] = b.v[c][s];
        vi2 += vv[e][c] * vv[e][c];
      }
      vlen[e] = std::sqrt(vi2);
    }
    B pi[D][U], vi[D][U], vl[U];
    M self[U];
    const typename Masks::Of& mk = kMasks.of[h / 2];
    const B zero = P::splat(Real(0));
    for (int u = 0; u < U; ++u) {
      for (int c = 0; c < D; ++c) {
        pi[c][u] = pair_lanes(p[h][c], p[h + 1][c], u);
        vi[c][u] = FV ? zero : pair_lanes(vv[0][c], vv[1][c], u);  // FV: unread
      }
      vl[u] = FV ? zero : pair_lanes(vlen[0], vlen[1], u);
      self[u] = P::loadu(mk.self + u * W) != zero;
    }
    // Only a register of both halves reads these (W = kTile, so lanes 0 .. W).
    const M self_half[2] = {P::loadu(mk.self_half[0]) != zero, P::loadu(mk.self_half[1]) != zero};
    const M first_half = P::loadu(kMasks.first_half) != zero;
    Acc a;
    Rule::zero(a);
    const Tile tl(g, pi, vi, vl);
    tiles<FV>(tl, b, self, self_half, first_half, keep, nk, own_at, a);
    FlockSums<Real>* const o[2] = {out + h, h + 1 < gm ? out + h + 1 : nullptr};
    Rule::finish(a, o);
  }
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
