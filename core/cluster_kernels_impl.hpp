// The cluster-pair kernel (core/cluster_kernels.hpp has the design), written once over a pack
// and compiled per instruction set by cluster_kernels_<isa>.cpp. Only those files include it.
//
// Beyond the row kernel's pack (kernels_impl.hpp) a pack here provides max, bits (the mask as
// an integer, lane l = bit l), count (set lanes) and, for W >= kGroup, load_quads (W / kGroup
// groups of kGroup consecutive values into one register, group k into lanes kGroup*k...).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/cluster_kernels.hpp"

namespace boids {
namespace {
namespace cluster_detail {

/// The standard flock's pair rule over the virtual lanes (the `Rule` of the design comment).
template <class P, class Real, int D>
struct StandardRule {
  using B = typename P::B;
  static constexpr int V = kLanes<Real>;
  static constexpr int U = V / P::W;
  static constexpr int Q = 3 * D;  // sums of d, v, sep (the count is an integer)
  struct Acc {
    B d[D][U], v[D][U], s[D][U];
    std::int32_t k;
  };
  static void zero(Acc& a) {
    for (int u = 0; u < U; ++u)
      for (int c = 0; c < D; ++c) a.d[c][u] = a.v[c][u] = a.s[c][u] = P::splat(Real(0));
    a.k = 0;
  }
  // The fixed pairwise lane tree (the row kernel's: kernels_impl.hpp Kernel::reduce).
  static void finish(const Acc& a, FlockSums<Real>& s) {
    Real out[Q];
    using R = B;
    if constexpr (requires(const R(&y)[Q], Real* o) { P::template reduce_all<Q>(y, o); }) {
      B x[Q][U];
      for (int u = 0; u < U; ++u)
        for (int c = 0; c < D; ++c) {
          x[c][u] = a.d[c][u];
          x[D + c][u] = a.v[c][u];
          x[2 * D + c][u] = a.s[c][u];
        }
      for (int h = V / 2; h >= P::W; h /= 2)
        for (int q = 0; q < Q; ++q)
          for (int u = 0; u < h / P::W; ++u) x[q][u] = x[q][u] + x[q][u + h / P::W];
      B y[Q];
      for (int q = 0; q < Q; ++q) y[q] = x[q][0];
      P::template reduce_all<Q>(y, out);
    } else {
      alignas(64) Real lane[Q][V];
      for (int u = 0; u < U; ++u)
        for (int c = 0; c < D; ++c) {
          P::store(lane[c] + u * P::W, a.d[c][u]);
          P::store(lane[D + c] + u * P::W, a.v[c][u]);
          P::store(lane[2 * D + c] + u * P::W, a.s[c][u]);
        }
      for (int h = V / 2; h >= 1; h /= 2)
        for (int q = 0; q < Q; ++q)
          for (int l = 0; l < h; ++l) lane[q][l] = lane[q][l] + lane[q][l + h];
      for (int q = 0; q < Q; ++q) out[q] = lane[q][0];
    }
    s = FlockSums<Real>{};
    s.k = a.k;
    for (int c = 0; c < D; ++c) {
      s.d[c] = out[c];
      s.v[c] = out[D + c];
      s.sep[c] = out[2 * D + c];
    }
  }
};

template <class P, class Real, int D, WrapMode WM, bool FV>
struct ClusterKernel {
  using B = typename P::B;
  using M = typename P::M;
  using Rule = StandardRule<P, Real, D>;
  static constexpr int W = P::W;
  static constexpr int V = kLanes<Real>;
  static constexpr int U = V / W;
  static constexpr int G = V / kGroup;  // groups per batch
  static_assert(U * W == V, "pack width must divide the virtual lane count");

  // The row buffer: groups of kGroup slots (positions with the image shift, velocities) and
  // their boxes, in column order; group `dummy` (the last) is all padding. A group's slots are
  // one block of GS values (x[4] y[4] z[4] vx[4] vy[4] vz[4] in 3D), so one pointer per group
  // serves every component: p[c] and v[c] point at group 0's component, group k is + k * GS.
  struct Buf {
    Real* p[D];
    Real* v[D];
    Real* lo[D];
    Real* hi[D];
    std::uint32_t dummy;
  };

  // Lanes [u * W, u * W + W) of a batch whose groups are keep[0 .. G).
  static constexpr std::size_t GS = 2 * D * kGroup;
  static inline B lanes(const Real* a, const std::uint32_t* keep, int u) {
    const int l0 = u * W;
    if constexpr (W >= kGroup) {
      const Real* q[W / kGroup];
      for (int k = 0; k < W / kGroup; ++k) q[k] = a + std::size_t(keep[l0 / kGroup + k]) * GS;
      return P::load_quads(q);
    } else {
      return P::loadu(a + std::size_t(keep[l0 / kGroup]) * GS + l0 % kGroup);
    }
  }

  template <bool Full>
  static void stream(const GridView<Real>& g, const Buf& b, const Real* pi, const Real* vi,
                     Real vi_len, const std::uint32_t* keep, std::uint32_t nkeep,
                     std::uint32_t self_at, typename Rule::Acc& acc) {
    typename Rule::Acc a = acc;
    B mp[D], mv[D];
    for (int c = 0; c < D; ++c) {
      mp[c] = P::splat(pi[c]);
      mv[c] = P::splat(vi[c]);
    }
    const B vlen = P::splat(vi_len), cosv = P::splat(g.kp.cos_half_view);
    const B r2 = P::splat(g.kp.radius2), rs2 = P::splat(g.kp.sep_radius2);
    const B zero = P::splat(Real(0)), one = P::splat(Real(1));
    for (std::uint32_t t = 0; t < nkeep; t += G) {
      const std::uint32_t* kb = keep + t;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
      for (int u = 0; u < U; ++u) {
        B d[D];
        B d2 = zero;
        for (int c = 0; c < D; ++c) {
          d[c] = lanes(b.p[c], kb, u) - mp[c];
          if constexpr (WM == WrapMode::min_image)
            d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
          d2 = d2 + d[c] * d[c];
        }
        M m = d2 < r2;
        if constexpr (!Full) {
          B dot = zero;
          for (int c = 0; c < D; ++c) dot = dot + d[c] * mv[c];
          m = P::and_(m, dot >= P::sqrt(d2) * vlen * cosv);
        }
        // self_at: the boid's own virtual lane counted from batch 0's lane 0.
        const std::uint32_t sl = self_at - (t * kGroup + std::uint32_t(u * W));
        if (sl < std::uint32_t(W)) m = P::and_(m, P::lane_ne(int(sl)));
        a.k += P::count(m);
        for (int c = 0; c < D; ++c) {
          a.d[c][u] = P::add_if(a.d[c][u], m, d[c]);
          a.v[c][u] = P::add_if(a.v[c][u], m, lanes(b.v[c], kb, u));
        }
        // d2 below the smallest normal counts as coincident (accumulate_pair).
        const M ms =
            P::and_(m, P::and_(d2 >= P::splat(std::numeric_limits<Real>::min()), d2 < rs2));
        if (W == 16 || P::any(ms)) {
          const B inv = one / d2;
          for (int c = 0; c < D; ++c) a.s[c][u] = P::sub_if(a.s[c][u], ms, d[c] * inv);
        }
      }
    }
    acc = a;
  }

  // Lane indices of the set bits of a byte, for the branch-free compress below.
  struct CompressTable {
    std::uint8_t at[256][8];
    constexpr CompressTable() : at{} {
      for (int m = 0; m < 256; ++m) {
        int n = 0;
        for (int l = 0; l < 8; ++l)
          if (m >> l & 1) at[m][n++] = std::uint8_t(l);
      }
    }
  };
  static constexpr CompressTable kCompress{};

  // Appends base + l for every set bit l of `bits` (W bits) to out; returns the count. Writes
  // up to 8 entries past the count (the buffers have that slack).
  static inline std::uint32_t compress(std::uint64_t bits, std::uint32_t base, std::uint32_t* out) {
    std::uint32_t n = 0;
    for (int byte = 0; byte < (W + 7) / 8; ++byte) {
      const unsigned m = unsigned(bits >> (8 * byte)) & 0xFFu;
      for (int l = 0; l < 8; ++l) out[n + std::uint32_t(l)] = base + 8u * byte + kCompress.at[m][l];
      n += std::uint32_t(__builtin_popcount(m));
    }
    return n;
  }

  // Level 1, once per i-group: the candidate groups [g0, g1) whose box is closer than r to the
  // i-group's box (lo_i, hi_i), in order, into list, with their boxes copied into the compact
  // arrays clo / chi (padded to a multiple of W with boxes that never pass). Level 2 then tests
  // each boid of the i-group against this shorter list. A box-box gap is never larger than the
  // gap of a point of the i-box to the j-box (monotone rounding), so level 1 only drops groups
  // level 2 would drop too: the kept set, and thus the bits, are level 2's alone.
  static std::uint32_t prefilter(const GridView<Real>& g, const Buf& b, std::uint32_t og,
                                 std::uint32_t g0, std::uint32_t g1, std::uint32_t* list,
                                 Real* const* clo, Real* const* chi) {
    B lo_i[D], hi_i[D];
    for (int c = 0; c < D; ++c) {
      lo_i[c] = P::splat(b.lo[c][og]);
      hi_i[c] = P::splat(b.hi[c][og]);
    }
    const B r2 = P::splat(g.kp.radius2), zero = P::splat(Real(0));
    std::uint32_t n = 0;
    for (std::uint32_t k = g0; k < g1; k += W) {
      B d2 = zero;
      for (int c = 0; c < D; ++c) {
        const B a = P::loadu(b.lo[c] + k) - hi_i[c];
        const B e = lo_i[c] - P::loadu(b.hi[c] + k);
        const B m = P::max(P::max(a, e), zero);
        d2 = d2 + m * m;
      }
      M m = d2 < r2;
      if (g1 - k < std::uint32_t(W)) m = P::and_(m, P::lane_lt(int(g1 - k)));
      n += compress(P::bits(m), k, list + n);
    }
    const Real inf = std::numeric_limits<Real>::infinity();
    for (int c = 0; c < D; ++c) {
      for (std::uint32_t t = 0; t < n; ++t) {
        clo[c][t] = b.lo[c][list[t]];
        chi[c][t] = b.hi[c][list[t]];
      }
      for (std::uint32_t t = n; t < n + std::uint32_t(W); ++t) {
        clo[c][t] = inf;
        chi[c][t] = -inf;
      }
    }
    return n;
  }

  // Level 2, per boid: the groups of list[0, n) whose box is closer than r to p, in order, into
  // keep; returns their number. The boid's own group, list[pown], is always kept (p is inside
  // its box); its position in keep goes to own_at.
  static std::uint32_t prune(const GridView<Real>& g, const Real* p, const std::uint32_t* list,
                             std::uint32_t n, Real* const* clo, Real* const* chi,
                             std::uint32_t pown, std::uint32_t* idx, std::uint32_t* keep,
                             std::uint32_t& own_at) {
    B mp[D];
    for (int c = 0; c < D; ++c) mp[c] = P::splat(p[c]);
    const B r2 = P::splat(g.kp.radius2), zero = P::splat(Real(0));
    std::uint32_t nk = 0;
    for (std::uint32_t k = 0; k < n; k += W) {
      B d2 = zero;
      for (int c = 0; c < D; ++c) {
        const B lo = P::loadu(clo[c] + k) - mp[c];
        const B hi = mp[c] - P::loadu(chi[c] + k);
        const B e = P::max(P::max(lo, hi), zero);
        d2 = d2 + e * e;
      }
      // The padding boxes (+inf, -inf) never pass, so no tail mask is needed.
      const std::uint64_t bits = P::bits(d2 < r2);
      if (pown - k < std::uint32_t(W))
        own_at =
            nk + std::uint32_t(__builtin_popcountll(bits & ((std::uint64_t(1) << (pown - k)) - 1)));
      nk += compress(bits, k, idx + nk);
    }
    for (std::uint32_t t = 0; t < nk; ++t) keep[t] = list[idx[t]];
    return nk;
  }

  // One stencil row of the sweep (as in kernels_impl.hpp).
  struct StencilRow {
    std::uint32_t base;
    Real sy, sz;
    bool own;
  };

  static void row(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                  KernelScratch<Real>& scratch) {
    const int n0 = g.n[0], n1 = g.n[1], n2 = g.n[2], rx = g.reach[0];
    const int y = int(row % std::uint32_t(n1)), z = int(row / std::uint32_t(n1));
    const bool wrap = g.wrap != WrapMode::none;
    const bool shift = g.wrap == WrapMode::shift;
    StencilRow rows[(2 * 2 + 1) * (2 * 2 + 1)];
    int nr = 0;
    for (int dz = -g.reach[2]; dz <= g.reach[2]; ++dz) {
      int zz = z + dz;
      Real sz = 0;
      if (zz < 0 || zz >= n2) {
        if (!wrap) continue;
        sz = zz < 0 ? -g.size : g.size;
        zz = zz < 0 ? zz + n2 : zz - n2;
      }
      for (int dy = -g.reach[1]; dy <= g.reach[1]; ++dy) {
        int yy = y + dy;
        Real sy = 0;
        if (yy < 0 || yy >= n1) {
          if (!wrap) continue;
          sy = yy < 0 ? -g.size : g.size;
          yy = yy < 0 ? yy + n1 : yy - n1;
        }
        rows[nr++] = {std::uint32_t(n0) * std::uint32_t(yy + n1 * zz), shift ? sy : Real(0),
                      shift ? sz : Real(0), dy == 0 && dz == 0};
      }
    }
    const int ncol = n0 + 2 * rx;
    auto column = [&](int cx, int& x, Real& sx) {
      x = cx - rx;
      sx = 0;
      if (x < 0 || x >= n0) {
        if (!wrap) return false;
        sx = shift ? (x < 0 ? -g.size : g.size) : Real(0);
        x = x < 0 ? x + n0 : x - n0;
      }
      return true;
    };
    auto cell_len = [&](const StencilRow& r, int x) {
      return g.cell_start[r.base + std::uint32_t(x) + 1] - g.cell_start[r.base + std::uint32_t(x)];
    };
    std::size_t groups = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r) groups += (cell_len(rows[r], x) + kGroup - 1) / kGroup;
    }
    // Slots: groups + the dummy, with V slack; boxes: groups + W slack for the box test.
    const std::size_t sstride = (groups + 1) * GS + V;  // the group blocks, the dummy's too
    const std::size_t bstride = groups + V;
    // Compact boxes of one i-group's list: at most `groups` + W padding.
    const std::size_t cstride = groups + V;
    grow_scratch(scratch, sstride + 2 * D * bstride + 2 * D * cstride,
                 2 * std::size_t(ncol) + 1 + 3 * (groups + V));
    Buf b;
    Real* base = scratch.buf.data();
    for (int c = 0; c < D; ++c) {
      b.p[c] = base + std::size_t(c) * kGroup;
      b.v[c] = base + std::size_t(D + c) * kGroup;
      b.lo[c] = base + sstride + std::size_t(c) * bstride;
      b.hi[c] = base + sstride + std::size_t(D + c) * bstride;
    }
    b.dummy = std::uint32_t(groups);
    Real* clo[D];
    Real* chi[D];
    for (int c = 0; c < D; ++c) {
      clo[c] = base + sstride + 2 * D * bstride + std::size_t(c) * cstride;
      chi[c] = base + sstride + 2 * D * bstride + std::size_t(D + c) * cstride;
    }
    std::uint32_t* col_group = scratch.idx.data();    // ncol + 1
    std::uint32_t* own_group = col_group + ncol + 1;  // ncol
    std::uint32_t* list = own_group + ncol;           // groups + V: level 1
    std::uint32_t* idx = list + groups + V;           // groups + V: level 2, in list
    std::uint32_t* keep = idx + groups + V;           // groups + V: level 2, groups
    const Real inf = std::numeric_limits<Real>::infinity();
    std::uint32_t k = 0;  // groups so far
    for (int cx = 0; cx < ncol; ++cx) {
      col_group[cx] = k;
      own_group[cx] = k;
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r) {
        const std::uint32_t first = g.cell_start[rows[r].base + std::uint32_t(x)];
        const std::uint32_t len = cell_len(rows[r], x);
        if (rows[r].own) own_group[cx] = k;
        const Real sh[3] = {sx, rows[r].sy, rows[r].sz};
        for (std::uint32_t j0 = 0; j0 < len; j0 += kGroup, ++k) {
          const std::uint32_t m = std::min<std::uint32_t>(kGroup, len - j0);
          for (int c = 0; c < D; ++c) {
            Real* dp = b.p[c] + std::size_t(k) * GS;
            Real* dv = b.v[c] + std::size_t(k) * GS;
            const Real* sp = g.p[c] + first + j0;
            const Real* sv = g.v[c] + first + j0;
            Real lo = inf, hi = -inf;
            for (std::uint32_t l = 0; l < m; ++l) {
              Real q = sp[l];
              if constexpr (WM == WrapMode::shift) q = q + sh[c];
              dp[l] = q;
              dv[l] = sv[l];
              lo = q < lo ? q : lo;
              hi = q > hi ? q : hi;
            }
            for (std::uint32_t l = m; l < kGroup; ++l) {
              dp[l] = inf;  // never inside r: the padding masks itself
              dv[l] = 0;
            }
            b.lo[c][k] = lo;
            b.hi[c][k] = hi;
          }
        }
      }
    }
    col_group[ncol] = k;
    for (int c = 0; c < D; ++c) {
      for (std::size_t l = 0; l < kGroup; ++l) {
        b.p[c][std::size_t(k) * GS + l] = inf;
        b.v[c][std::size_t(k) * GS + l] = 0;
      }
      for (std::size_t j = k; j < bstride; ++j) {
        b.lo[c][j] = inf;
        b.hi[c][j] = -inf;
      }
    }
    const std::uint32_t row_first = g.cell_start[row * std::uint32_t(n0)];
    for (int x = 0; x < n0; ++x) {
      const std::uint32_t cell = row * std::uint32_t(n0) + std::uint32_t(x);
      const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
      const std::uint32_t g0 = col_group[x], g1 = col_group[x + 2 * rx + 1];
      const std::uint32_t own0 = own_group[x + rx];
      std::uint32_t nlist = 0, pown = 0, list_of = ~0u;
      for (std::uint32_t i = first; i < last; ++i) {
        const std::uint32_t q = i - first;
        const std::uint32_t og = own0 + q / kGroup;
        if constexpr (WM != WrapMode::min_image) {
          if (og != list_of) {  // a new i-group: its level-1 list
            list_of = og;
            nlist = prefilter(g, b, og, g0, g1, list, clo, chi);
            pown = 0;
            while (pown + 1 < nlist && list[pown] != og) ++pown;
          }
        }
        const std::size_t slot = std::size_t(og) * GS + q % kGroup;
        Real pi[D], vi[D];
        Real vi2 = 0;
        for (int c = 0; c < D; ++c) {
          pi[c] = b.p[c][slot];
          vi[c] = b.v[c][slot];
          vi2 += vi[c] * vi[c];
        }
        const Real vi_len = std::sqrt(vi2);
        std::uint32_t own_at = 0, nk = 0;
        if constexpr (WM == WrapMode::min_image) {
          // Boxes mean nothing under the per-pair minimum image: keep every group.
          for (std::uint32_t gk = g0; gk < g1; ++gk) keep[nk++] = gk;
          own_at = og - g0;
          (void)nlist, (void)pown, (void)list_of, (void)idx, (void)clo, (void)chi;
        } else {
          nk = prune(g, pi, list, nlist, clo, chi, pown, idx, keep, own_at);
        }
        while (nk % G) keep[nk++] = b.dummy;
        typename Rule::Acc a;
        Rule::zero(a);
        const std::uint32_t self_at = own_at * kGroup + q % kGroup;
        if (FV || !(vi_len > Real(0)))
          stream<true>(g, b, pi, vi, vi_len, keep, nk, self_at, a);
        else
          stream<false>(g, b, pi, vi, vi_len, keep, nk, self_at, a);
        Rule::finish(a, out[i - row_first]);
      }
    }
  }
};

template <template <class> class PF, class Real>
void fill_table(ClusterTable<Real>& t) {
  auto put = [&]<int D, WrapMode WM>() {
    t.row[D - 2][int(WM)][0] = &ClusterKernel<PF<Real>, Real, D, WM, false>::row;
    t.row[D - 2][int(WM)][1] = &ClusterKernel<PF<Real>, Real, D, WM, true>::row;
  };
  put.template operator()<2, WrapMode::none>();
  put.template operator()<2, WrapMode::shift>();
  put.template operator()<2, WrapMode::min_image>();
  put.template operator()<3, WrapMode::none>();
  put.template operator()<3, WrapMode::shift>();
  put.template operator()<3, WrapMode::min_image>();
}

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
