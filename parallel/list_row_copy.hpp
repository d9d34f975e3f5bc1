// The topological pass's row copy (parallel/list_step.cpp, parallel/list_fine_step.hpp): an
// x-row's stencil copied column by column, so that a cell's candidates are one contiguous range.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/kernels.hpp"
#include "parallel/list_gather.hpp"

namespace boids::list_detail {

// An x-row's stencil copied column by column, as the metric rule's row kernels do
// (core/kernels_impl.hpp): positions and slots (and with the ids, the ids) of the stencil
// rows' cells, x ascending, within a column the stencil rows y, then z ascending. The
// candidates of cell x are then the one contiguous range of columns [x - reach, x + reach]: a
// few full SIMD batches instead of one short batch per run. With WrapMode::shift the cells
// whose stencil crosses a seam keep the runs (their image shifts); so does a row whose stencil
// rows cross one. Every user takes a cell's candidates as a set (the selection by (|d|^2, id),
// the sums in id order), so their order within the range does not matter.
//
// With `slide` set (the row pass), a row right after the previous one in y (same z, reach 1 in
// y, every stencil row present) reuses the previous copy: a column's stencil rows y - 1 .. y + 1
// hold its groups y and y + 1 already, as one contiguous block, so only the group y + 2 comes
// from the store. The copy's cost is per segment (a cell's run, about 4 boids): 3 segments and
// a block move per column instead of 9 segments.
template <class Real>
struct RowCopy {
  std::vector<Real> p;
  std::vector<std::uint32_t> slot, col_start, own_at;
  std::vector<std::uint32_t> id;  // each element's id, when build() is given the ids
  std::size_t stride = 0;
  int rx = 0;
  bool clip_x = false;     // shift grid: only cells x in [rx, n0 - rx) are contiguous
  bool slide = false;      // reuse the previous row's copy where it can (see above)
  std::uint64_t slid = 0;  // rows built by sliding (for tests)

  // False when the row must use the runs.
  bool build(const GridView<Real>& g, WrapMode mode, std::uint32_t row, int dims,
             const std::uint32_t* ids = nullptr, std::uint32_t id_end = 0) {
    const int n0 = g.n[0], n1 = g.n[1], n2 = g.n[2];
    const int y = int(row % std::uint32_t(n1)), z = int(row / std::uint32_t(n1));
    const bool wrap = g.wrap != WrapMode::none;
    const bool shift = mode == WrapMode::shift;
    rx = g.reach[0];
    clip_x = shift;
    Seg sg;
    sg.nz = 2 * g.reach[2] + 1;
    sg.nr = 0;
    sg.n0 = n0;
    sg.rx = rx;
    sg.wrap_cols = wrap && !shift;
    sg.ids = ids;
    sg.id_end = id_end;
    const bool prev_ok = prev_valid;
    prev_valid = false;
    for (int dy = -g.reach[1]; dy <= g.reach[1]; ++dy) {
      int yy = y + dy;
      if (yy < 0 || yy >= n1) {
        if (!wrap) continue;
        if (shift) return false;
        yy = yy < 0 ? yy + n1 : yy - n1;
      }
      for (int dz = -g.reach[2]; dz <= g.reach[2]; ++dz) {
        int zz = z + dz;
        if (zz < 0 || zz >= n2) {
          if (!wrap) continue;
          if (shift) return false;
          zz = zz < 0 ? zz + n2 : zz - n2;
        }
        sg.own[sg.nr] = dy == 0 && dz == 0;
        sg.base[sg.nr++] = std::uint32_t(n0) * std::uint32_t(yy + n1 * zz);
      }
    }
    // Groups (one per dy) are tracked when the stencil is whole and 3 rows deep in y.
    const bool groups = g.reach[1] == 1 && sg.nr == 3 * sg.nz;
    const bool next = prev_ok && groups && row == prev_row + 1 && y > 0 && dims == prev_dims &&
                      (ids != nullptr) == prev_ids && n0 == prev_n0 && rx == prev_rx &&
                      sg.wrap_cols == prev_wrap_cols;
    const int ncol = n0 + 2 * rx;
    if (next) {
      std::swap(p, p_old);
      std::swap(slot, slot_old);
      std::swap(id, id_old);
      std::swap(col_start, cs_old);
      std::swap(grp, grp_old);
    }
    std::size_t total = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      const int x = column(sg, cx);
      if (x < 0) continue;
      if (next) total += cs_old[std::size_t(cx) + 1] - grp_old[std::size_t(cx) * 3 + 1];
      for (int r = next ? 2 * sg.nz : 0; r < sg.nr; ++r)
        total += g.cell_start[sg.base[r] + std::uint32_t(x) + 1] -
                 g.cell_start[sg.base[r] + std::uint32_t(x)];
    }
    const std::size_t old_stride = stride;
    const std::size_t need = total + list_detail::kGatherSlack;
    if (need > stride) stride = std::max(need, stride + stride / 2);
    if (p.size() < std::size_t(dims) * stride) p.resize(std::size_t(dims) * stride);
    if (slot.size() < stride) slot.resize(stride);
    if (ids && id.size() < stride) id.resize(stride);  // ids[0 .. id_end): the store's ids
    col_start.resize(std::size_t(ncol) + 1);
    own_at.resize(std::size_t(ncol));
    grp.resize(std::size_t(ncol) * 3);
    std::uint32_t k;
    if (dims == 2)
      k = ids ? copy<2, true>(g, sg, next, old_stride) : copy<2, false>(g, sg, next, old_stride);
    else
      k = ids ? copy<3, true>(g, sg, next, old_stride) : copy<3, false>(g, sg, next, old_stride);
    col_start[std::size_t(ncol)] = k;
    slid += next ? 1u : 0u;
    prev_valid = slide && groups;
    prev_row = row;
    prev_dims = dims;
    prev_ids = ids != nullptr;
    prev_n0 = n0;
    prev_rx = rx;
    prev_wrap_cols = sg.wrap_cols;
    return true;
  }

  bool contiguous(int x, int n0) const { return !clip_x || (x >= rx && x + rx < n0); }

 private:
  struct Seg {  // build()'s stencil rows (y-major) and the columns' wrap
    std::uint32_t base[(2 * 2 + 1) * (2 * 2 + 1)];
    bool own[(2 * 2 + 1) * (2 * 2 + 1)];
    int nr, nz, rx, n0;
    bool wrap_cols;
    const std::uint32_t* ids;
    std::uint32_t id_end;
  };

  static int column(const Seg& sg, int cx) {  // the grid column, or -1 for none
    int x = cx - sg.rx;
    if (x < 0 || x >= sg.n0) {
      if (!sg.wrap_cols) return -1;
      x = x < 0 ? x + sg.n0 : x - sg.n0;
    }
    return x;
  }

  // The copy itself: whole blocks of 8, components, slots and ids together (a segment, about 4
  // boids, is one pass of a loop that rarely runs twice, so its branch is predictable). Up to 7
  // elements past a segment are read (the store's padding, the old copy's slack) and written
  // (the next segment's start, or the slack). With `next`, a column's groups y and y + 1 (in
  // the new row's terms: y - 1 and y) are the old copy's last two, moved as one block. Returns
  // the elements copied.
  template <int D, bool IDS>
  std::uint32_t copy(const GridView<Real>& g, const Seg& sg, bool next, std::size_t old_stride) {
    Real* pc[D];
    const Real* po[D];
    for (int c = 0; c < D; ++c) {
      pc[c] = p.data() + std::size_t(c) * stride;
      po[c] = next ? p_old.data() + std::size_t(c) * old_stride : nullptr;
    }
    std::uint32_t* const sl = slot.data();
    std::uint32_t* const idc = IDS ? id.data() : nullptr;
    const int ncol = sg.n0 + 2 * sg.rx;
    std::uint32_t k = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      col_start[std::size_t(cx)] = k;
      own_at[std::size_t(cx)] = k;
      std::uint32_t* gs = grp.data() + std::size_t(cx) * 3;
      gs[0] = gs[1] = gs[2] = k;
      const int x = column(sg, cx);
      if (x < 0) continue;
      int r0 = 0;
      if (next) {
        const std::uint32_t* go = grp_old.data() + std::size_t(cx) * 3;
        const std::uint32_t from = go[1], len = cs_old[std::size_t(cx) + 1] - from;
        for (std::uint32_t j = 0; j < len; j += 8) {
          for (int c = 0; c < D; ++c)
            std::memcpy(pc[c] + k + j, po[c] + from + j, 8 * sizeof(Real));
          std::memcpy(sl + k + j, slot_old.data() + from + j, 8 * sizeof(std::uint32_t));
          if constexpr (IDS)
            std::memcpy(idc + k + j, id_old.data() + from + j, 8 * sizeof(std::uint32_t));
        }
        gs[1] = k + (go[2] - go[1]);
        own_at[std::size_t(cx)] = gs[1];
        for (int r = sg.nz; r < 2 * sg.nz && !sg.own[r]; ++r)  // the new own row's offset
          own_at[std::size_t(cx)] += g.cell_start[sg.base[r] + std::uint32_t(x) + 1] -
                                     g.cell_start[sg.base[r] + std::uint32_t(x)];
        k += len;
        gs[2] = k;
        r0 = 2 * sg.nz;
      }
      for (int r = r0; r < sg.nr; ++r) {
        const std::uint32_t b = g.cell_start[sg.base[r] + std::uint32_t(x)];
        const std::uint32_t len = g.cell_start[sg.base[r] + std::uint32_t(x) + 1] - b;
        if (sg.own[r]) own_at[std::size_t(cx)] = k;
        if (r == sg.nz) gs[1] = k;
        if (r == 2 * sg.nz) gs[2] = k;
        for (std::uint32_t j = 0; j < len; j += 8) {
          for (int c = 0; c < D; ++c) std::memcpy(pc[c] + k + j, g.p[c] + b + j, 8 * sizeof(Real));
          for (std::uint32_t t = 0; t < 8; ++t) sl[k + j + t] = b + j + t;
          if constexpr (IDS) {
            if (b + j + 8 <= sg.id_end) {  // the id column has no padding past its last slot
              std::memcpy(idc + k + j, sg.ids + b + j, 8 * sizeof(std::uint32_t));
            } else {
              for (std::uint32_t t = 0; t < sg.id_end - (b + j); ++t)
                idc[k + j + t] = sg.ids[b + j + t];
            }
          }
        }
        k += len;
      }
    }
    return k;
  }

  // The previous row's copy (sliding) and what it was built for.
  std::vector<Real> p_old;
  std::vector<std::uint32_t> slot_old, id_old, cs_old, grp, grp_old;
  bool prev_valid = false, prev_ids = false, prev_wrap_cols = false;
  std::uint32_t prev_row = 0;
  int prev_dims = 0, prev_n0 = 0, prev_rx = 0;
};

}  // namespace boids::list_detail
