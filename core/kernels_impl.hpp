// The neighbour kernel, written once over a "pack" type and compiled per instruction set by
// kernels_<isa>.cpp. Only those files include this header. See core/kernels.hpp for the
// arithmetic contract that makes every instantiation give bit-identical sums.
//
// A pack P provides: type B (Real or an xsimd batch) and M (its mask), width W, and
// load, loadu, storeu, splat, lane_lt (mask of lanes < k), lane_ne (all lanes but k), add_if /
// sub_if (a +- x in the lanes of m, a unchanged elsewhere), any, sqrt, round (nearbyint), and_,
// or_, sel (m ? a : b), the comparisons < and == of B, and store; and for the neighbour count,
// type K (W integer lanes), kzero, count_if (+1 in the lanes of m) and ksum (the sum of K's
// lanes).
#pragma once

#include <cmath>
#include <limits>

#include <cstdint>

#include "core/kernels.hpp"
#include "core/kernels_finish_impl.hpp"
#include "core/kernels_pair_impl.hpp"

namespace boids {
// Unnamed: every instantiation below has internal linkage, so code compiled for one
// instruction set can never be merged with another unit's copy by the linker.
namespace {
namespace kernels_detail {

// The row sweep: the stencil rows' cells copied once per x-row into one candidate buffer, and
// each boid of the row summed over its cell's range of it by the pair helpers (KernelPairs,
// core/kernels_pair_impl.hpp).
template <class P, class Real, int D, WrapMode WM, bool FV>
struct Kernel : KernelPairs<P, Real, D, WM, FV> {
  using Base = KernelPairs<P, Real, D, WM, FV>;
  using Base::lanes_min;
  using Base::nearest;
  using Base::Q;
  using Base::reduce;
  using Base::U;
  using Base::V;
  using Base::W;
  using typename Base::Acc;
  using typename Base::B;
  using typename Base::Boid;
  using typename Base::Near;

  // One stencil row of an x-row sweep: the grid row it reads and that row's image shift.
  struct StencilRow {
    std::uint32_t base;  // index of the row's cell x = 0
    Real sy, sz;
    bool own;
  };

  // The FlockSums of every boid of x-row `row`. The stencil rows' cells are copied once per
  // sweep into one buffer, column by column (x ascending from -reach; within a column the
  // stencil rows z, then y ascending): the candidates of cell x are then the one contiguous
  // range of columns [x - reach, x + reach], streamed by every boid of the cell. Copying by
  // columns copies each cell once per sweep instead of 2 * reach + 1 times.
  //
  // row_nn: the same sums (the same code), and also each boid's smallest |d|^2 over its stencil
  // into g.nearest2[slot] (nn_min): the flock metrics' row taken from the step's kernel.
  static void row(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                  KernelScratch<Real>& scratch) {
    row_t<false>(g, row, out, scratch);
  }
  static void row_nn(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                     KernelScratch<Real>& scratch) {
    row_t<true>(g, row, out, scratch);
  }
  template <bool NN>
  static void row_t(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
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
    // Columns -rx .. n0 - 1 + rx; outside [0, n0) they are the far columns' images (wrap) or
    // empty (reflect, open).
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
    std::size_t total = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r)
        total += g.cell_start[rows[r].base + std::uint32_t(x) + 1] -
                 g.cell_start[rows[r].base + std::uint32_t(x)];
    }
    const std::size_t cap = (total + V - 1) / V * V;
    // V slots of slack per array: the copies below write whole packs past a segment's end.
    const std::size_t stride = cap + V;
    grow_scratch(scratch, 2 * D * stride, 2 * std::size_t(ncol) + 1);
    Real* bp[D];
    Real* bv[D];
    for (int c = 0; c < D; ++c) {
      bp[c] = scratch.buf.data() + std::size_t(c) * stride;
      bv[c] = scratch.buf.data() + std::size_t(D + c) * stride;
    }
    std::uint32_t* col_start = scratch.idx.data();  // ncol + 1 entries
    std::uint32_t* own_at = col_start + ncol + 1;   // ncol entries
    std::uint32_t k = 0;
    for (int cx = 0; cx < ncol; ++cx) {
      col_start[cx] = k;
      own_at[cx] = k;
      int x;
      Real sx;
      if (!column(cx, x, sx)) continue;
      for (int r = 0; r < nr; ++r) {
        const std::uint32_t b = g.cell_start[rows[r].base + std::uint32_t(x)];
        const std::uint32_t len = g.cell_start[rows[r].base + std::uint32_t(x) + 1] - b;
        if (rows[r].own) own_at[cx] = k;
        const Real sh[3] = {sx, rows[r].sy, rows[r].sz};
        // Whole packs, so up to W - 1 slots past the segment are read (the store has
        // kPadElems slots of slack, GridView) and written (the stride's slack, or the next
        // segment's start, which the next segment then overwrites).
        for (int c = 0; c < D; ++c) {
          const Real* sp = g.p[c] + b;
          const Real* sv = g.v[c] + b;
          Real* dp = bp[c] + k;
          Real* dv = bv[c] + k;
          const B shc = P::splat(sh[c]);
          for (std::uint32_t j = 0; j < len; j += W) {
            if constexpr (WM == WrapMode::shift)
              P::storeu(dp + j, P::loadu(sp + j) + shc);
            else
              P::storeu(dp + j, P::loadu(sp + j));
            P::storeu(dv + j, P::loadu(sv + j));
          }
        }
        k += len;
      }
    }
    col_start[ncol] = k;
    // Zero the slots a last batch reads past the end: those lanes are masked, but should hold
    // finite numbers rather than stale or never-written ones.
    for (int c = 0; c < D; ++c) {
      for (std::size_t j = total; j < total + V; ++j) bp[c][j] = Real(0);
      for (std::size_t j = total; j < total + V; ++j) bv[c][j] = Real(0);
    }
    const std::uint32_t row_first = g.cell_start[row * std::uint32_t(n0)];
    const bool track = g.kp.track_nearest;
    [[maybe_unused]] const B inf = P::splat(std::numeric_limits<Real>::infinity());
    std::uint64_t pairs = 0;  // run_pair calls, for kernel_pair_runs()
    for (int x = 0; x < n0; ++x) {
      const std::uint32_t cell = row * std::uint32_t(n0) + std::uint32_t(x);
      const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
      const std::uint32_t lo = col_start[x], hi = col_start[x + 2 * rx + 1];
      const std::uint32_t own = own_at[x + rx];
      // A boid's splatted state and whether it sees all around (the naive stepper ignores
      // the view cone of a boid at rest; so do we).
      auto setup = [&](std::uint32_t self, Boid& me) {
        Real vi2 = 0;
        for (int c = 0; c < D; ++c) {
          me.p[c] = P::splat(bp[c][self]);
          const Real vic = bv[c][self];
          me.vel[c] = P::splat(vic);
          vi2 += vic * vic;
        }
        const Real vi_len = std::sqrt(vi2);
        me.vlen = P::splat(vi_len);
        me.cosv = P::splat(g.kp.cos_half_view);
        return FV || !(vi_len > Real(0));
      };
      auto clear = [&](Acc& a) {
        for (int u = 0; u < U; ++u) {
          a.k[u] = P::kzero();
          for (int c = 0; c < D; ++c) a.d[c][u] = a.v[c][u] = a.s[c][u] = P::splat(Real(0));
        }
      };
      auto store = [&](std::uint32_t i, const Acc& a, const Near& closest) {
        FlockSums<Real>& s = out[i - row_first];
        s = FlockSums<Real>{};  // the buffer is reused: fields we do not sum keep defaults
        // Most boids have no neighbour within the tracker's bound: nothing to combine.
        if (track && P::any(closest.d2 < P::splat(std::numeric_limits<Real>::infinity())))
          nearest(closest, s);
        Real r[Q];
        s.k = std::int32_t(reduce(a, r));  // at most the row's candidates: fits
        for (int c = 0; c < D; ++c) {
          s.d[c] = r[c];
          s.v[c] = r[D + c];
          s.sep[c] = r[2 * D + c];
        }
        for (int c = D; c < 3; ++c) s.d[c] = s.v[c] = s.sep[c] = 0;
      };
      std::uint32_t i = first;
      Near none;
      none.d2 = P::splat(std::numeric_limits<Real>::infinity());
      for (int c = 0; c < D; ++c) none.d[c] = P::splat(Real(0));
      // Without the tracker, two boids of the cell at a time (run_pair) when both see the
      // same way.
      if (!track) {
        for (; i + 1 < last; i += 2) {
          const std::uint32_t self = own + (i - first);
          Boid me[2];
          const bool full0 = setup(self, me[0]), full1 = setup(self + 1, me[1]);
          Acc a[2];
          clear(a[0]);
          clear(a[1]);
          B nb[2] = {inf, inf};
          if (full0 == full1) {
            if (full0)
              Base::template run_pair<true, NN>(g, me, bp, bv, lo, hi, self, a, nb);
            else
              Base::template run_pair<false, NN>(g, me, bp, bv, lo, hi, self, a, nb);
            ++pairs;
          } else {
            for (int b = 0; b < 2; ++b) {
              if (b == 0 ? full0 : full1)
                Base::template run<true, false, NN>(g, me[b], bp, bv, lo, hi, self + b, a[b], none,
                                                    nb + b);
              else
                Base::template run<false, false, NN>(g, me[b], bp, bv, lo, hi, self + b, a[b], none,
                                                     nb + b);
            }
          }
          store(i, a[0], none);
          store(i + 1, a[1], none);
          if constexpr (NN) {
            g.nearest2[i] = lanes_min(nb[0]);
            g.nearest2[i + 1] = lanes_min(nb[1]);
          }
        }
      }
      for (; i < last; ++i) {
        const std::uint32_t self = own + (i - first);
        Boid me;
        const bool full = setup(self, me);
        Acc a;
        clear(a);
        Near closest;
        closest.d2 = P::splat(std::numeric_limits<Real>::infinity());
        for (int c = 0; c < D; ++c) closest.d[c] = P::splat(Real(0));
        B nb = inf;
        if (full && !track)
          Base::template run<true, false, NN>(g, me, bp, bv, lo, hi, self, a, closest, &nb);
        else if (!track)
          Base::template run<false, false, NN>(g, me, bp, bv, lo, hi, self, a, closest, &nb);
        else if (full)
          Base::template run<true, true, NN>(g, me, bp, bv, lo, hi, self, a, closest, &nb);
        else
          Base::template run<false, true, NN>(g, me, bp, bv, lo, hi, self, a, closest, &nb);
        store(i, a, closest);
        if constexpr (NN) g.nearest2[i] = lanes_min(nb);
      }
    }
    if (pairs) count_pair_runs(pairs);
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
