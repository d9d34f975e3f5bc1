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

#include <algorithm>
#include <limits>

#include <cstdint>

#include "core/kernels.hpp"
#include "core/kernels_finish_impl.hpp"

namespace boids {
// Unnamed: every instantiation below has internal linkage, so code compiled for one
// instruction set can never be merged with another unit's copy by the linker.
namespace {
namespace kernels_detail {

template <class P, class Real, int D, WrapMode WM, bool FV>
struct Kernel {
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

  // Candidates [lo, hi) of the row's buffer, candidate k into lane (k - lo) mod V, skipping
  // slot `self`. Loads are unaligned: one masked tail per boid costs less than aligning the
  // start (a second partial batch). Full: no view cone. TN: also track the closest neighbour
  // nearer than closest_min_distance (Near).
  template <bool Full, bool TN>
  static inline void run(const GridView<Real>& g, const Boid& me, const Real* const* bp,
                         const Real* const* bv, std::uint32_t lo, std::uint32_t hi,
                         std::uint32_t self, Acc& acc, Near& near) {
    Acc a = acc;  // a local copy the compiler keeps in registers (the reference would spill)
    [[maybe_unused]] Near nr = near;
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
  }

  // run<Full, false> for two boids of one cell at once (the same candidate range): each
  // candidate batch is loaded once and summed into both boids' lanes, the same operations in
  // the same order per boid as run, so the same bits; the two boids' chains interleave.
  template <bool Full>
  static inline void run_pair(const GridView<Real>& g, const Boid* me, const Real* const* bp,
                              const Real* const* bv, std::uint32_t lo, std::uint32_t hi,
                              std::uint32_t self0, Acc* acc) {
    Acc a0 = acc[0], a1 = acc[1];
    const B r2 = P::splat(g.kp.radius2);
    const B rs2 = P::splat(g.kp.sep_radius2);
    const B zero = P::splat(Real(0));
    const B one = P::splat(Real(1));
    const B tiny = P::splat(std::numeric_limits<Real>::min());
    const bool linear = g.kp.sep_linear;
    auto one_boid = [&](const Boid& b, std::uint32_t self, Acc& a, int u, std::uint32_t o,
                        const B* pc, const B* vc) {
      B d[D];
      B d2 = zero;
      for (int c = 0; c < D; ++c) {
        d[c] = pc[c] - b.p[c];
        if constexpr (WM == WrapMode::min_image)
          d[c] = d[c] - P::splat(g.size) * P::round(d[c] * P::splat(g.inv_size));
        d2 = d2 + d[c] * d[c];
      }
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
        one_boid(me[0], self0, a0, u, o, pc, vc);
        one_boid(me[1], self0 + 1, a1, u, o, pc, vc);
      }
    }
    acc[0] = a0;
    acc[1] = a1;
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
          if (full0 == full1) {
            if (full0)
              run_pair<true>(g, me, bp, bv, lo, hi, self, a);
            else
              run_pair<false>(g, me, bp, bv, lo, hi, self, a);
            ++pairs;
          } else {
            for (int b = 0; b < 2; ++b) {
              if (b == 0 ? full0 : full1)
                run<true, false>(g, me[b], bp, bv, lo, hi, self + b, a[b], none);
              else
                run<false, false>(g, me[b], bp, bv, lo, hi, self + b, a[b], none);
            }
          }
          store(i, a[0], none);
          store(i + 1, a[1], none);
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
        if (full && !track)
          run<true, false>(g, me, bp, bv, lo, hi, self, a, closest);
        else if (!track)
          run<false, false>(g, me, bp, bv, lo, hi, self, a, closest);
        else if (full)
          run<true, true>(g, me, bp, bv, lo, hi, self, a, closest);
        else
          run<false, true>(g, me, bp, bv, lo, hi, self, a, closest);
        store(i, a, closest);
      }
    }
    if (pairs) count_pair_runs(pairs);
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
