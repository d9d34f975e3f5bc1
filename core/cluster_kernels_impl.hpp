// The cluster-pair kernel (core/cluster_kernels.hpp has the design), written once over a pack
// and compiled per instruction set by cluster_kernels_<isa>.cpp. Only those files include it.
//
// A pack here (W = 1, 2, 4, 8 or 16 lanes) provides, beyond load/splat/masked add of the row
// kernel's pack (kernels_impl.hpp): max, bits (the mask as an integer, lane l = bit l), K /
// kzero / count_if / kstore (integer count lanes), copy_group (copy_group_scalar's values),
// for W = 8 load_quad2 (4 values into both quarters), for W = 16 load_quad4 (two groups' 4
// values, each in one half) and splat2, and optionally tile_tree (the lane tree of
// StandardRule::finish, core/cluster_rule.hpp, in registers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cluster_kernels.hpp"
#include "core/cluster_rule.hpp"

namespace boids {
namespace {
namespace cluster_detail {

template <class P, class Real, int D, WrapMode WM, bool FV>
struct ClusterKernel {
  using B = typename P::B;
  using M = typename P::M;
  using Rule = StandardRule<P, Real, D>;
  using Acc = typename Rule::Acc;
  static constexpr int W = P::W;
  static constexpr int V = kLanes<Real>;
  static constexpr int U = kTile / W;  // registers per tile
  static_assert(U * W == kTile, "pack width must divide the tile");

  // The row buffer: groups of kGroup slots (positions with the image shift, velocities) and
  // their boxes, in column order (boxes past the last group never pass). A group's slots are
  // one block of GS values (x[4] y[4] z[4] vx[4] vy[4] vz[4] in 3D), so one pointer per group
  // serves every component: p[c] and v[c] point at group 0's component, group k is + k * GS.
  struct Buf {
    Real* p[D];
    Real* v[D];
    Real* lo[D];
    Real* hi[D];
  };
  static constexpr std::size_t GS = 2 * D * kGroup;

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
      a.k[u] = P::count_if(a.k[u], m);
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

  // The lists of the i-pairs of i-group og (boids p[0 .. 2 * npairs), a padding boid at +inf
  // never passes): the candidate groups [g0, g1) whose box is closer than r to either boid of
  // pair h, in order, into keep[h]; their number into nk[h] and the place of the own group og
  // (always kept: its boids are inside its box) into own_at[h]. One pass over the candidates'
  // boxes serves both pairs. The test is conservative in floating point: per axis the box gap
  // is never larger than the gap to any boid of the box (correct rounding is monotone).
  static void prune_group(const GridView<Real>& g, const Buf& b, const Real (&p)[kGroup][D],
                          std::uint32_t npairs, std::uint32_t og, std::uint32_t g0,
                          std::uint32_t g1, std::uint32_t* const (&keep)[2], std::uint32_t (&nk)[2],
                          std::uint32_t (&own_at)[2]) {
    B mp[kGroup][D];
    for (int e = 0; e < kGroup; ++e)
      for (int c = 0; c < D; ++c) mp[e][c] = P::splat(p[e][c]);
    const B r2 = P::splat(g.kp.radius2), zero = P::splat(Real(0));
    nk[0] = nk[1] = 0;
    for (std::uint32_t k = g0; k < g1; k += W) {
      B lo[D], hi[D];
      for (int c = 0; c < D; ++c) {
        lo[c] = P::loadu(b.lo[c] + k);
        hi[c] = P::loadu(b.hi[c] + k);
      }
      // Lanes past g1 belong to the next columns' groups: masked.
      const std::uint64_t tail =
          g1 - k < std::uint32_t(W) ? (std::uint64_t(1) << (g1 - k)) - 1 : ~std::uint64_t(0);
      for (std::uint32_t h = 0; h < npairs; ++h) {
        // box_dist2 per boid (its sum starts at 0; 0 + x is x for a square).
        auto gap2 = [&](int e, int c) {
          const B a = P::max(P::max(lo[c] - mp[e][c], mp[e][c] - hi[c]), zero);
          return a * a;
        };
        B da = gap2(int(2 * h), 0), db = gap2(int(2 * h + 1), 0);
        for (int c = 1; c < D; ++c) {
          da = da + gap2(int(2 * h), c);
          db = db + gap2(int(2 * h + 1), c);
        }
        const std::uint64_t bits = (P::bits(da < r2) | P::bits(db < r2)) & tail;
        if (og - k < std::uint32_t(W))
          own_at[h] =
              nk[h] +
              std::uint32_t(__builtin_popcountll(bits & ((std::uint64_t(1) << (og - k)) - 1)));
        nk[h] += compress(bits, k, keep[h] + nk[h]);
      }
    }
  }

  // The index buffer's header: the row's columns, stencil rows, slot and box strides, and
  // D | WM << 2 (what the next row's slide checks before it reads the copy).
  static constexpr std::size_t kHead = 5;

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
    // Sliding (see Layout below): a row right after the previous one in y, both with the whole
    // stencil (3 rows deep in y), takes the stencil rows y - 1 and y of every plane from the
    // previous row's copy, where they were its rows y and y + 1: the same cells with the same
    // image shifts (rows y - 1 .. y are inside the grid), so the same values and boxes, moved
    // instead of copied from the store and boxed again. Only the row y + 1 of each plane is
    // copied: a third of the copy.
    const int nz = 2 * g.reach[2] + 1;
    const bool whole = g.reach[1] == 1 && nr == 3 * nz;
    const std::uint32_t tag = std::uint32_t(D) | std::uint32_t(WM) << 2;
    const std::uint32_t* const ph = scratch.prev_idx.data();
    const bool slide = whole && scratch.prev_row != KernelScratch<Real>::kNoPrevRow &&
                       row == scratch.prev_row + 1 && y > 0 && ph[0] == std::uint32_t(ncol) &&
                       ph[1] == std::uint32_t(nr) && ph[4] == tag;
    // The previous row's layout (its header, below): columns' and stencil rows' first groups.
    const std::uint32_t* const pcol = slide ? ph + kHead : nullptr;
    const std::uint32_t* const prow = slide ? pcol + 2 * ncol + 1 : nullptr;
    // Groups of stencil rows [3j + 1, 3j + 3) of the previous row's column cx: [from, to).
    auto prev_rows = [&](int cx, int j, std::uint32_t& from, std::uint32_t& to) {
      const std::size_t at = std::size_t(cx) * std::size_t(nr) + std::size_t(3 * j);
      from = prow[at + 1];
      to = 3 * j + 3 < nr ? prow[at + 3] : pcol[cx + 1];
    };
    std::size_t groups = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r) {
        if (slide && r % 3 != 2) continue;
        groups += (cell_len(rows[r], x) + kGroup - 1) / kGroup;
      }
      if (slide)
        for (int j = 0; j < nz; ++j) {
          std::uint32_t from, to;
          prev_rows(cx, j, from, to);
          groups += to - from;
        }
    }
    // Slots: the group blocks with V slack; boxes: groups + W slack for the box test.
    const std::size_t sstride = groups * GS + V;
    const std::size_t bstride = groups + V;
    // Indices: the header, col_group, own_group, row_group, then the two i-pairs' lists.
    const std::size_t nrg = std::size_t(ncol) * std::size_t(nr);
    grow_scratch(scratch, sstride + 2 * D * bstride,
                 kHead + 2 * std::size_t(ncol) + 1 + nrg + 2 * (groups + V));
    Buf b;
    Real* base = scratch.buf.data();
    for (int c = 0; c < D; ++c) {
      b.p[c] = base + std::size_t(c) * kGroup;
      b.v[c] = base + std::size_t(D + c) * kGroup;
      b.lo[c] = base + sstride + std::size_t(c) * bstride;
      b.hi[c] = base + sstride + std::size_t(D + c) * bstride;
    }
    std::uint32_t* const head = scratch.idx.data();
    head[0] = std::uint32_t(ncol);
    head[1] = std::uint32_t(nr);
    head[2] = std::uint32_t(sstride);
    head[3] = std::uint32_t(bstride);
    head[4] = tag;
    std::uint32_t* col_group = head + kHead;          // ncol + 1
    std::uint32_t* own_group = col_group + ncol + 1;  // ncol
    std::uint32_t* row_group = own_group + ncol;      // ncol x nr: each stencil row's first group
    // The two i-pairs' lists of the current i-group: groups + V each (compress's slack).
    std::uint32_t* const keep[2] = {row_group + nrg, row_group + nrg + groups + V};
    // The previous row's copy (slide only).
    const Real* pblock = nullptr;
    const Real* plo[D];
    const Real* phi[D];
    if (slide) {
      const Real* pb = scratch.prev_buf.data();
      pblock = pb;
      for (int c = 0; c < D; ++c) {
        plo[c] = pb + ph[2] + std::size_t(c) * ph[3];
        phi[c] = pb + ph[2] + std::size_t(D + c) * ph[3];
      }
    }
    const Real inf = std::numeric_limits<Real>::infinity();
    std::uint32_t k = 0;  // groups so far
    for (int cx = 0; cx < ncol; ++cx) {
      col_group[cx] = k;
      own_group[cx] = k;
      std::uint32_t* const rg = row_group + std::size_t(cx) * std::size_t(nr);
      for (int r = 0; r < nr; ++r) rg[r] = k;
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r) {
        if (slide && r % 3 != 2) {
          if (r % 3 == 1) continue;  // moved with row r - 1
          // Rows r, r + 1 are the previous row's r + 1, r + 2: one block of groups.
          std::uint32_t from, to;
          prev_rows(cx, r / 3, from, to);
          rg[r] = k;
          rg[r + 1] = k + (prow[std::size_t(cx) * std::size_t(nr) + std::size_t(r) + 2] - from);
          if (rows[r + 1].own) own_group[cx] = rg[r + 1];
          const std::uint32_t cnt = to - from;
          // GS values per group, a multiple of 8: whole 8-value moves.
          Real* dst = base + std::size_t(k) * GS;
          const Real* src = pblock + std::size_t(from) * GS;
          for (std::size_t e = 0; e < std::size_t(cnt) * GS; e += 8)
            std::memcpy(dst + e, src + e, 8 * sizeof(Real));
          // Boxes: 8 at a time (up to 7 past the block, inside the slack; overwritten later).
          for (int c = 0; c < D; ++c)
            for (std::uint32_t e = 0; e < cnt; e += 8) {
              std::memcpy(b.lo[c] + k + e, plo[c] + from + e, 8 * sizeof(Real));
              std::memcpy(b.hi[c] + k + e, phi[c] + from + e, 8 * sizeof(Real));
            }
          k += cnt;
          continue;
        }
        const std::uint32_t first = g.cell_start[rows[r].base + std::uint32_t(x)];
        const std::uint32_t len = cell_len(rows[r], x);
        rg[r] = k;
        if (rows[r].own) own_group[cx] = k;
        const Real sh[3] = {sx, rows[r].sy, rows[r].sz};
        for (std::uint32_t j0 = 0; j0 < len; j0 += kGroup, ++k) {
          const std::uint32_t m = std::min<std::uint32_t>(kGroup, len - j0);
          for (int c = 0; c < D; ++c)
            P::template copy_group<WM == WrapMode::shift>(
                b.p[c] + std::size_t(k) * GS, b.v[c] + std::size_t(k) * GS, g.p[c] + first + j0,
                g.v[c] + first + j0, m, sh[c], b.lo[c][k], b.hi[c][k]);
        }
      }
    }
    col_group[ncol] = k;
    if (slide) count_slid_rows(1);
    for (int c = 0; c < D; ++c)
      for (std::size_t j = k; j < bstride; ++j) {
        b.lo[c][j] = inf;
        b.hi[c][j] = -inf;
      }
    const std::uint32_t row_first = g.cell_start[row * std::uint32_t(n0)];
    for (int x = 0; x < n0; ++x) {
      const std::uint32_t cell = row * std::uint32_t(n0) + std::uint32_t(x);
      const std::uint32_t first = g.cell_start[cell], len = g.cell_start[cell + 1] - first;
      const std::uint32_t g0 = col_group[x], g1 = col_group[x + 2 * rx + 1];
      const std::uint32_t own0 = own_group[x + rx];
      for (std::uint32_t q0 = 0; q0 < len; q0 += kGroup) {
        const std::uint32_t og = own0 + q0 / kGroup;  // the i-group
        const std::uint32_t gm = std::min<std::uint32_t>(kGroup, len - q0);
        const std::uint32_t npairs = (gm + 1) / 2;
        Real p[kGroup][D];  // padding slots: +inf, velocity 0
        for (int e = 0; e < kGroup; ++e)
          for (int c = 0; c < D; ++c) p[e][c] = b.p[c][std::size_t(og) * GS + std::size_t(e)];
        std::uint32_t nk[2] = {0, 0}, own_at[2] = {0, 0};
        if constexpr (WM == WrapMode::min_image) {
          // Boxes mean nothing under the per-pair minimum image: every group, for both pairs.
          for (std::uint32_t gk = g0; gk < g1; ++gk) keep[0][nk[0]++] = gk;
          nk[1] = nk[0];
          own_at[0] = own_at[1] = og - g0;
        } else {
          prune_group(g, b, p, npairs, og, g0, g1, keep, nk, own_at);
        }
        for (std::uint32_t h = 0; h < npairs; ++h) {
          const std::uint32_t* kp = WM == WrapMode::min_image ? keep[0] : keep[h];
          pair(g, b, og, 2 * h, gm, p, kp, nk[h], own_at[h], out + (first + q0 - row_first));
        }
      }
    }
    cluster_keep_row(scratch, whole ? row : KernelScratch<Real>::kNoPrevRow);
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
