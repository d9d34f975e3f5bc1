// The neighbour kernel, written once over a "pack" type and compiled per instruction set by
// kernels_<isa>.cpp. Only those files include this header. See core/kernels.hpp for the
// arithmetic contract that makes every instantiation give bit-identical sums.
//
// A pack P provides: type B (Real or an xsimd batch) and M (its mask), width W, and
// load, splat, lane_lt (mask of lanes < k), select (m ? a : 0), any, sqrt, round (nearbyint),
// and_ and store.
#pragma once

#include <cstdint>

#include "core/kernels.hpp"

namespace boids {
namespace kernels_detail {

template <class P, class Real, int D, WrapMode WM, bool FV>
struct Kernel {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;
  static constexpr int V = kLanes<Real>;
  static constexpr int U = V / W;  // registers per virtual lane set
  static_assert(U * W == V, "pack width must divide the virtual lane count");

  struct Acc {
    B k[U], d[D][U], v[D][U], s[D][U];
  };

  struct Boid {
    B p[D], vel[D];
    B vlen, cosv;  // |v_i| and cos(theta / 2), for the view cone
  };

  // Candidates [b, e) with the image shift `sh`, into the lanes starting at 0. Full: no cone.
  template <bool Full>
  static inline void run(const GridView<Real>& g, const Boid& me, const B* sh, std::uint32_t b,
                         std::uint32_t e, Acc& acc) {
    Acc a = acc;  // a local copy the compiler keeps in registers (the reference would spill)
    const B r2 = P::splat(g.kp.radius2);
    const B rs2 = P::splat(g.kp.sep_radius2);
    const B zero = P::splat(Real(0));
    const B one = P::splat(Real(1));
    for (std::uint32_t j = b; j < e; j += V) {
      const int rem = int(e - j);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
      for (int u = 0; u < U; ++u) {
        if (rem <= u * W) break;
        const std::uint32_t o = j + std::uint32_t(u * W);
        B d[D];
        B d2 = zero;
        for (int c = 0; c < D; ++c) {
          d[c] = P::load(g.p[c] + o) - me.p[c];
          if constexpr (WM == WrapMode::shift) d[c] = d[c] + sh[c];
          if constexpr (WM == WrapMode::min_image)
            d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
          d2 = d2 + d[c] * d[c];
        }
        M m = d2 < r2;
        if constexpr (!Full) {
          B dot = zero;
          for (int c = 0; c < D; ++c) dot = dot + d[c] * me.vel[c];
          // Same association as accumulate_pair: (sqrt(d2) * |v_i|) * cos.
          m = P::and_(m, dot >= P::sqrt(d2) * me.vlen * me.cosv);
        }
        if (rem < (u + 1) * W) m = P::and_(m, P::lane_lt(rem - u * W));
        a.k[u] = a.k[u] + P::select(m, one);
        for (int c = 0; c < D; ++c) {
          a.d[c][u] = a.d[c][u] + P::select(m, d[c]);
          a.v[c][u] = a.v[c][u] + P::select(m, P::load(g.v[c] + o));
        }
        const M ms = P::and_(m, P::and_(d2 > zero, d2 < rs2));
        if (P::any(ms)) {  // rare: r_s is well inside r
          const B inv = one / d2;
          for (int c = 0; c < D; ++c) a.s[c][u] = a.s[c][u] - P::select(ms, d[c] * inv);
        }
      }
    }
    acc = a;
  }

  // The fixed pairwise tree over the V virtual lanes.
  static inline Real reduce(const B* regs) {
    alignas(64) Real lane[V];
    for (int u = 0; u < U; ++u) P::store(lane + u * W, regs[u]);
    for (int h = V / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] = lane[l] + lane[l + h];
    return lane[0];
  }

  static void cell(const GridView<Real>& g, std::uint32_t cell, FlockSums<Real>* out) {
    CandidateRun<Real> runs[kMaxRuns];
    const int nr = cell_runs(g, cell, runs);
    B shifts[kMaxRuns][D];
    for (int r = 0; r < nr; ++r)
      for (int c = 0; c < D; ++c) shifts[r][c] = P::splat(runs[r].shift[c]);
    const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
    for (std::uint32_t i = first; i < last; ++i) {
      Real vi[D];
      Real vi2 = 0;
      Boid me;
      for (int c = 0; c < D; ++c) {
        me.p[c] = P::splat(g.p[c][i]);
        vi[c] = g.v[c][i];
        me.vel[c] = P::splat(vi[c]);
        vi2 += vi[c] * vi[c];
      }
      const Real vi_len = std::sqrt(vi2);
      me.vlen = P::splat(vi_len);
      me.cosv = P::splat(g.kp.cos_half_view);
      Acc a;
      for (int u = 0; u < U; ++u) {
        a.k[u] = P::splat(Real(0));
        for (int c = 0; c < D; ++c) a.d[c][u] = a.v[c][u] = a.s[c][u] = P::splat(Real(0));
      }
      // The naive stepper ignores the view cone of a boid at rest; so do we.
      const bool full = FV || !(vi_len > Real(0));
      for (int r = 0; r < nr; ++r) {
        const CandidateRun<Real>& cr = runs[r];
        const std::uint32_t b = cr.begin, e = cr.end;
        if (full) {
          if (cr.own) {
            run<true>(g, me, shifts[r], b, i, a);
            run<true>(g, me, shifts[r], i + 1, e, a);
          } else {
            run<true>(g, me, shifts[r], b, e, a);
          }
        } else if (cr.own) {
          run<false>(g, me, shifts[r], b, i, a);
          run<false>(g, me, shifts[r], i + 1, e, a);
        } else {
          run<false>(g, me, shifts[r], b, e, a);
        }
      }
      FlockSums<Real>& s = out[i - first];
      s.k = std::int32_t(reduce(a.k));
      for (int c = 0; c < D; ++c) {
        s.d[c] = reduce(a.d[c]);
        s.v[c] = reduce(a.v[c]);
        s.sep[c] = reduce(a.s[c]);
      }
      for (int c = D; c < 3; ++c) s.d[c] = s.v[c] = s.sep[c] = 0;
    }
  }
};

/// Fills one precision's table with the instantiations for pack family PF.
template <template <class> class PF, class Real>
void fill_table(CellKernelTable<Real>& t) {
  auto put = [&]<int D, WrapMode WM>() {
    t[D - 2][int(WM)][0] = &Kernel<PF<Real>, Real, D, WM, false>::cell;
    t[D - 2][int(WM)][1] = &Kernel<PF<Real>, Real, D, WM, true>::cell;
  };
  put.template operator()<2, WrapMode::none>();
  put.template operator()<2, WrapMode::shift>();
  put.template operator()<2, WrapMode::min_image>();
  put.template operator()<3, WrapMode::none>();
  put.template operator()<3, WrapMode::shift>();
  put.template operator()<3, WrapMode::min_image>();
}

}  // namespace kernels_detail
}  // namespace boids
