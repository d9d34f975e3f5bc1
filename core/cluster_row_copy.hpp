// The cluster kernels' row copy (core/cluster_kernels.hpp has the design): the stencil rows of
// one x-row copied column by column into the row buffer of groups with their boxes, or, right
// after the previous row in y, slid from the previous row's buffer with only the new stencil
// row copied. Included by cluster_kernels_impl.hpp only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cluster_kernels.hpp"

namespace boids {
namespace {
namespace cluster_detail {

// The row buffer: groups of kGroup slots (positions with the image shift, velocities) and
// their boxes, in column order (boxes past the last group never pass). A group's slots are
// one block of GS values (x[4] y[4] z[4] vx[4] vy[4] vz[4] in 3D), so one pointer per group
// serves every component: p[c] and v[c] point at group 0's component, group k is + k * GS.
template <class Real, int D>
struct ClusterBuf {
  static constexpr std::size_t GS = 2 * D * kGroup;
  Real* p[D];
  Real* v[D];
  Real* lo[D];
  Real* hi[D];
};

// One x-row copied: the buffer and where its columns' groups are.
template <class Real, int D>
struct RowLayout {
  ClusterBuf<Real, D> b;
  const std::uint32_t* col_group;  ///< ncol + 1: column cx's first group
  const std::uint32_t* own_group;  ///< ncol: column cx's first group of the row's own cell
  std::uint32_t* keep[2];          ///< the two i-pairs' lists: groups + V entries each
  bool whole;                      ///< the stencil is 3 rows deep in y (the next row may slide)
};

template <class P, class Real, int D, WrapMode WM>
struct ClusterRowCopy {
  using Buf = ClusterBuf<Real, D>;
  static constexpr std::size_t GS = Buf::GS;
  static constexpr int V = kLanes<Real>;

  // The index buffer's header: the row's columns, stencil rows, slot and box strides, and
  // D | WM << 2 (what the next row's slide checks before it reads the copy).
  static constexpr std::size_t kHead = 5;

  // One stencil row of the sweep (as in kernels_impl.hpp).
  struct StencilRow {
    std::uint32_t base;
    Real sy, sz;
    bool own;
  };

  // Copies (or slides) the stencil rows of x-row `row` into scratch.buf / scratch.idx.
  static RowLayout<Real, D> copy(const GridView<Real>& g, std::uint32_t row,
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
    // Sliding: a row right after the previous one in y, both with the whole stencil (3 rows
    // deep in y), takes the stencil rows y - 1 and y of every plane from the previous row's
    // copy, where they were its rows y and y + 1: the same cells with the same image shifts
    // (rows y - 1 .. y are inside the grid), so the same values and boxes, moved instead of
    // copied from the store and boxed again. Only the row y + 1 of each plane is copied: a
    // third of the copy.
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
    RowLayout<Real, D> out;
    out.b = b;
    out.col_group = col_group;
    out.own_group = own_group;
    out.keep[0] = row_group + nrg;
    out.keep[1] = row_group + nrg + groups + V;
    out.whole = whole;
    return out;
  }
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
