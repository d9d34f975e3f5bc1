// The pair helpers of the neighbour kernel (core/kernels_impl.hpp): one boid's (run) or two
// boids' (run_pair) sums over a candidate range of the row's buffer, the closest-neighbour
// tracker, the lane trees that reduce them. Written once over a pack type (the pack's contract
// is in core/kernels_impl.hpp) and compiled per instruction set; only kernels_impl.hpp
// includes this header.
#pragma once

#include <algorithm>
#include <limits>

#include <cstdint>

#include "core/kernels.hpp"

namespace boids {
// Unnamed: every instantiation below has internal linkage (see core/kernels_impl.hpp).
namespace {
namespace kernels_detail {

template <class P, class Real, int D, WrapMode WM, bool FV>
struct KernelPairs {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;
  static constexpr int V = kLanes<Real>;
  static constexpr int U = V / W;  // registers per virtual lane set
  static_assert(U * W == V, "pack width must divide the virtual lane count");

  // The neighbour count is kept in integer lanes (K), not in float lanes like the vector sums:
  // an integer sum is exact in any order and for any count, so the count is the same on every
  // path by construction and equals the naive stepper's integer count (a float lane would stop
  // counting at 2^24 and depends on the reduction tree being the same everywhere).
  using K = typename P::K;
  struct Acc {
    K k[U];
    B d[D][U], v[D][U], s[D][U];
  };

  struct Boid {
    B p[D], vel[D];
    B vlen, cosv;  // |v_i| and cos(theta / 2), for the view cone
  };

  // The closest neighbour per lane (KindParams::track_nearest, the threshold rules' closest
  // separation): its d2 and offset. The choice is a minimum under a total order (d2, then the
  // offset lexicographically, as accumulate_pair), so it is the same whatever lane or order a
  // candidate comes in: one register set serves all U registers of a batch, and the lanes are
  // combined in any order (nearest()).
  //
  // Only neighbours nearer than closest_min_distance are tracked: the threshold rule acts on
  // the closest neighbour only when it is that near (behaviour_finish), and the minimum over
  // them is the minimum over all when it is below the bound, so the result is the one the rule
  // reads. Those pairs are rare (about (2 / 9)^3 of the neighbours by default), so the tracker
  // runs in the branch that separation's rare pairs already take, and costs the common pair
  // nothing; tracking every neighbour (4 blends, 2 compares and a branch per register) made
  // the threshold rules' kernel 1.4x the plain one.
  struct Near {
    B d2;
    B d[D];
  };

  // NN (the flock metrics' row, row_nn): the smallest |d|^2 over every candidate but `self`,
  // at any distance, lane-wise into *nb (a minimum: the same in any order).
  static inline B nn_min(B nb, B d2, std::uint32_t o, std::uint32_t hi, std::uint32_t self) {
    const B inf = P::splat(std::numeric_limits<Real>::infinity());
    if (hi - o < std::uint32_t(W)) d2 = P::sel(P::lane_lt(int(hi - o)), d2, inf);
    if (self - o < std::uint32_t(W)) d2 = P::sel(P::lane_ne(int(self - o)), d2, inf);
    if constexpr (requires(B x) { P::min(x, x); })
      return P::min(d2, nb);  // one instruction (the same value: no NaN, no -0 here)
    else
      return P::sel(d2 < nb, d2, nb);
  }

  // Candidates [lo, hi) of the row's buffer, candidate k into lane (k - lo) mod V, skipping
  // slot `self`. Loads are unaligned: one masked tail per boid costs less than aligning the
  // start (a second partial batch). Full: no view cone. TN: also track the closest neighbour
  // nearer than closest_min_distance (Near). NN: nn_min into *nb.
  template <bool Full, bool TN, bool NN = false>
  static inline void run(const GridView<Real>& g, const Boid& me, const Real* const* bp,
                         const Real* const* bv, std::uint32_t lo, std::uint32_t hi,
                         std::uint32_t self, Acc& acc, Near& near, B* nb = nullptr) {
    Acc a = acc;  // a local copy the compiler keeps in registers (the reference would spill)
    [[maybe_unused]] Near nr = near;
    [[maybe_unused]] B nbl;
    if constexpr (NN) nbl = *nb;
    const B r2 = P::splat(g.kp.radius2);
    const B rs2 = P::splat(g.kp.sep_radius2);
    const B zero = P::splat(Real(0));
    const B one = P::splat(Real(1));
    const bool linear = g.kp.sep_linear;  // the abm profile: -d instead of -d / |d|^2
    // TN: the tracker's bound (closest_min_distance^2) and the rare pairs' (the larger of it
    // and r_s^2).
    [[maybe_unused]] const B cm2 = P::splat(g.kp.beh.closest_min2);
    [[maybe_unused]] const B rt2 = P::splat(std::max(g.kp.sep_radius2, g.kp.beh.closest_min2));
    for (std::uint32_t j = lo; j < hi; j += V) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
      for (int u = 0; u < U; ++u) {
        const std::uint32_t o = j + std::uint32_t(u * W);
        if (o >= hi) break;
        B d[D];
        B d2 = zero;
        for (int c = 0; c < D; ++c) {
          d[c] = P::loadu(bp[c] + o) - me.p[c];
          if constexpr (WM == WrapMode::min_image)
            d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
          d2 = d2 + d[c] * d[c];
        }
        if constexpr (NN) nbl = nn_min(nbl, d2, o, hi, self);
        M m = d2 < r2;
        if constexpr (!Full) {
          B dot = zero;
          for (int c = 0; c < D; ++c) dot = dot + d[c] * me.vel[c];
          // Same association as accumulate_pair: (sqrt(d2) * |v_i|) * cos.
          m = P::and_(m, dot >= P::sqrt(d2) * me.vlen * me.cosv);
        }
        if (hi - o < std::uint32_t(W)) m = P::and_(m, P::lane_lt(int(hi - o)));
        if (self - o < std::uint32_t(W)) m = P::and_(m, P::lane_ne(int(self - o)));
        a.k[u] = P::count_if(a.k[u], m);
        for (int c = 0; c < D; ++c) {
          a.d[c][u] = P::add_if(a.d[c][u], m, d[c]);
          a.v[c][u] = P::add_if(a.v[c][u], m, P::loadu(bv[c] + o));
        }
        if constexpr (!TN) {
          // d2 below the smallest normal counts as coincident (accumulate_pair).
          const M ms =
              P::and_(m, P::and_(d2 >= P::splat(std::numeric_limits<Real>::min()), d2 < rs2));
          // Rare (r_s is well inside r), but with 16 lanes a batch still holds a separation
          // pair often enough that the branch mispredicts: there, always do the masked update.
          if (W == 16 || P::any(ms)) {
            const B inv = linear ? one : one / d2;
            for (int c = 0; c < D; ++c) a.s[c][u] = P::sub_if(a.s[c][u], ms, d[c] * inv);
          }
        } else {
          // The rare pairs: separation's (d2 < r_s^2) and the tracker's (d2 < rt2 below).
          // With 16 lanes separation is always the masked update (as above), and only the
          // tracker sits behind a branch: its pairs (within closest_min_distance) are rarer
          // still, so that branch predicts well, where "some lane rare" is a coin toss.
          const M rare = W == 16 ? m : P::and_(m, d2 < rt2);
          if (W == 16 || P::any(rare)) {
            const M ms =
                P::and_(rare, P::and_(d2 >= P::splat(std::numeric_limits<Real>::min()), d2 < rs2));
            const B inv = linear ? one : one / d2;
            for (int c = 0; c < D; ++c) a.s[c][u] = P::sub_if(a.s[c][u], ms, d[c] * inv);
            const M close = P::and_(rare, d2 < cm2);
            if (W == 16 && !P::any(close)) continue;
            M take = P::and_(close, d2 < nr.d2);
            const M tie = P::and_(close, d2 == nr.d2);
            if (P::any(tie)) {  // equal d2: the lexicographically smaller offset (rare)
              M lt = d[D - 1] < nr.d[D - 1];
              for (int c = D - 2; c >= 0; --c)
                lt = P::or_(d[c] < nr.d[c], P::and_(d[c] == nr.d[c], lt));
              take = P::or_(take, P::and_(tie, lt));
            }
            nr.d2 = P::sel(take, d2, nr.d2);
            for (int c = 0; c < D; ++c) nr.d[c] = P::sel(take, d[c], nr.d[c]);
          }
        }
      }
    }
    acc = a;
    if constexpr (TN) near = nr;
    if constexpr (NN) *nb = nbl;
  }

  // run<Full, false> for two boids of one cell at once (the same candidate range): each
  // candidate batch is loaded once and summed into both boids' lanes, the same operations in
  // the same order per boid as run, so the same bits; the two boids' chains interleave.
  template <bool Full, bool NN = false>
  static inline void run_pair(const GridView<Real>& g, const Boid* me, const Real* const* bp,
                              const Real* const* bv, std::uint32_t lo, std::uint32_t hi,
                              std::uint32_t self0, Acc* acc, B* nb = nullptr) {
    Acc a0 = acc[0], a1 = acc[1];
    [[maybe_unused]] B nb0, nb1;
    if constexpr (NN) {
      nb0 = nb[0];
      nb1 = nb[1];
    }
    const B r2 = P::splat(g.kp.radius2);
    const B rs2 = P::splat(g.kp.sep_radius2);
    const B zero = P::splat(Real(0));
    const B one = P::splat(Real(1));
    const B tiny = P::splat(std::numeric_limits<Real>::min());
    const bool linear = g.kp.sep_linear;
    auto one_boid = [&](const Boid& b, std::uint32_t self, Acc& a, int u, std::uint32_t o,
                        const B* pc, const B* vc, [[maybe_unused]] B& nbl) {
      B d[D];
      B d2 = zero;
      for (int c = 0; c < D; ++c) {
        d[c] = pc[c] - b.p[c];
        if constexpr (WM == WrapMode::min_image)
          d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
        d2 = d2 + d[c] * d[c];
      }
      if constexpr (NN) nbl = nn_min(nbl, d2, o, hi, self);
      M m = d2 < r2;
      if constexpr (!Full) {
        B dot = zero;
        for (int c = 0; c < D; ++c) dot = dot + d[c] * b.vel[c];
        m = P::and_(m, dot >= P::sqrt(d2) * b.vlen * b.cosv);
      }
      if (hi - o < std::uint32_t(W)) m = P::and_(m, P::lane_lt(int(hi - o)));
      if (self - o < std::uint32_t(W)) m = P::and_(m, P::lane_ne(int(self - o)));
      a.k[u] = P::count_if(a.k[u], m);
      for (int c = 0; c < D; ++c) {
        a.d[c][u] = P::add_if(a.d[c][u], m, d[c]);
        a.v[c][u] = P::add_if(a.v[c][u], m, vc[c]);
      }
      const M ms = P::and_(m, P::and_(d2 >= tiny, d2 < rs2));
      if (W == 16 || P::any(ms)) {
        const B inv = linear ? one : one / d2;
        for (int c = 0; c < D; ++c) a.s[c][u] = P::sub_if(a.s[c][u], ms, d[c] * inv);
      }
    };
    for (std::uint32_t j = lo; j < hi; j += V) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
      for (int u = 0; u < U; ++u) {
        const std::uint32_t o = j + std::uint32_t(u * W);
        if (o >= hi) break;
        B pc[D], vc[D];
        for (int c = 0; c < D; ++c) {
          pc[c] = P::loadu(bp[c] + o);
          vc[c] = P::loadu(bv[c] + o);
        }
        one_boid(me[0], self0, a0, u, o, pc, vc, nb0);
        one_boid(me[1], self0 + 1, a1, u, o, pc, vc, nb1);
      }
    }
    acc[0] = a0;
    acc[1] = a1;
    if constexpr (NN) {
      nb[0] = nb0;
      nb[1] = nb1;
    }
  }

  // The closest of the lanes' closest neighbours into s.near_d2 / s.near_d.
  static inline void nearest(const Near& nr, FlockSums<Real>& s) {
    alignas(64) Real d2[W];
    alignas(64) Real d[D][W];
    P::store(d2, nr.d2);
    for (int c = 0; c < D; ++c) P::store(d[c], nr.d[c]);
    for (int l = 0; l < W; ++l) {
      bool take = d2[l] < s.near_d2;
      for (int c = 0; c < D && !take && d2[l] == s.near_d2; ++c) {
        if (d[c][l] != s.near_d[c]) {
          take = d[c][l] < s.near_d[c];
          break;
        }
      }
      if (take) {
        s.near_d2 = d2[l];
        for (int c = 0; c < D; ++c) s.near_d[c] = d[c][l];
      }
    }
  }

  // The fixed pairwise tree over the V virtual lanes, for all Q = 3D vector sums at once (the
  // same additions as one tree per sum, laid out so the compiler can vectorise them); the
  // integer count is added up exactly, in any order. Returns the count.
  static constexpr int Q = 3 * D;
  static inline std::int64_t reduce(const Acc& a, Real* out) {
    std::int64_t count = 0;
    for (int u = 0; u < U; ++u) count += P::ksum(a.k[u]);
    if constexpr (requires(const B(&y)[Q], Real* o) { P::template reduce_all<Q>(y, o); }) {
      // In registers: the steps h >= W add whole registers (lane l of register u meets lane
      // l + h in register u + h / W), then the pack runs the steps h < W on all Q sums
      // together. Exactly the additions of the tree below, without a round trip through memory.
      B x[Q][U];
      for (int u = 0; u < U; ++u) {
        for (int c = 0; c < D; ++c) {
          x[c][u] = a.d[c][u];
          x[D + c][u] = a.v[c][u];
          x[2 * D + c][u] = a.s[c][u];
        }
      }
      for (int h = V / 2; h >= W; h /= 2)
        for (int q = 0; q < Q; ++q)
          for (int u = 0; u < h / W; ++u) x[q][u] = x[q][u] + x[q][u + h / W];
      B y[Q];
      for (int q = 0; q < Q; ++q) y[q] = x[q][0];
      P::template reduce_all<Q>(y, out);
    } else {
      alignas(64) Real lane[Q][V];
      for (int u = 0; u < U; ++u) {
        for (int c = 0; c < D; ++c) {
          P::store(lane[c] + u * W, a.d[c][u]);
          P::store(lane[D + c] + u * W, a.v[c][u]);
          P::store(lane[2 * D + c] + u * W, a.s[c][u]);
        }
      }
      for (int h = V / 2; h >= 1; h /= 2)
        for (int q = 0; q < Q; ++q)
          for (int l = 0; l < h; ++l) lane[q][l] = lane[q][l] + lane[q][l + h];
      for (int q = 0; q < Q; ++q) out[q] = lane[q][0];
    }
    return count;
  }

  static Real lanes_min(B x) {
    alignas(64) Real l[W];
    P::store(l, x);
    for (int h = W / 2; h >= 1; h /= 2)  // a tree: log2(W) dependent steps, not W
      for (int k = 0; k < h; ++k) l[k] = l[k + h] < l[k] ? l[k + h] : l[k];
    return l[0];
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
