// The metrics pair pass (parallel/metrics_pairs.hpp) over a pack P: P::B is Real or an xsimd
// batch of W lanes, P::M its mask. Included by metrics_pairs_<isa>.cpp only.
//
// The boids of one cell of the metrics' cell list (cells of edge >= the radius) are taken as a
// focal group, one boid per lane: one register of W lanes for a cell of at most W boids, two
// registers (2W lanes, each candidate broadcast once for both) for more. Their candidates are the
// boids of the 3^D cells around the cell, as contiguous runs of cell order (one per x-row of the
// stencil, split at the wrap seam); each candidate j is broadcast to all lanes and gives W squared
// distances |d|^2 with the model's arithmetic (d = p_j - p_i, plus the run's image shift or
// per-pair minimum image; |d|^2 summed in component order). So there are no partial batches and no
// branch per pair, and a cell's stencil is read once per group instead of once per boid. Per lane:
//   nearest   : a lane-wise minimum of |d|^2 (exact in any order); a lane's own boid gives +inf;
//   neighbours: a lane-wise count of |d|^2 < r^2 (and the model's view test, with the lane's
//               velocity), in integer lanes (a mask is -1) flushed long before they overflow;
// The cluster links are a pass of their own, by cells (parallel/metrics_links_impl.hpp): in a
// dense flock most neighbouring cells are already joined when they meet, which a root compare
// per cell pair tells, where links in this scan cost scalar work on every candidate.
// The cell geometry (stencil runs, the plan of an x-row's groups, the ring search) is in
// parallel/metrics_pair_cells.hpp.
// When a lane's nearest boid lies beyond the stencil, rings of cells further out are searched
// until no unvisited cell can hold a nearer one.
//
// Everything here lives in an anonymous namespace: each ISA's unit keeps its own copy, so
// the linker can never hand a baseline caller the copy compiled for AVX-512.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/simd_packs.hpp"
#include "parallel/metrics_links_impl.hpp"
#include "parallel/metrics_moments.hpp"
#include "parallel/metrics_pair_cells.hpp"
#include "parallel/metrics_pairs.hpp"
#include "parallel/metrics_turn.hpp"

namespace boids::metrics_detail {
namespace {

// Per-lane neighbour counters: integer lanes as wide as Real's, so that adding a lane mask is
// one subtraction (a set lane is all ones, -1); one-lane packs count in a plain integer.
template <class P, class Real, bool OneLane = (P::W == 1)>
struct LaneCounter {
  using C = std::uint64_t;
  static C zero() { return 0; }
  static C add(C c, bool m) { return c + (m ? 1 : 0); }
  static void drain(C c, std::uint64_t* out) { out[0] += c; }
};

#if defined(BOIDS_PAIR_PACKS_X86)
template <class P, class Real>
struct LaneCounter<P, Real, false> {
  using I = std::conditional_t<sizeof(Real) == 4, std::int32_t, std::int64_t>;
  using C = xsimd::batch<I, typename P::B::arch_type>;
  static C zero() { return C(I(0)); }
  static C add(C c, typename P::M m) {
    using MR = typename P::M::register_type;
    if constexpr (std::is_same_v<MR, typename P::B::register_type>) {  // SSE, AVX: a vector
      return c - xsimd::bitwise_cast<C>(typename P::B(MR(m)));
    } else {  // AVX-512: a bit mask
      return c + xsimd::select(typename C::batch_bool_type(MR(m)), C(I(1)), C(I(0)));
    }
  }
  static void drain(C c, std::uint64_t* out) {
    alignas(64) I lane[C::size];
    c.store_aligned(lane);
    for (std::size_t l = 0; l < C::size; ++l) out[l] += std::uint64_t(lane[l]);
  }
};
#endif

template <class P, class Real, int D, PairWrap Wrap, bool Cone>
class PairPass : PairCells<P, Real, D, Wrap> {
  using Cells = PairCells<P, Real, D, Wrap>;
  using Cells::decode, Cells::in_, Cells::near_runs, Cells::plan_row, Cells::ring_exists,
      Cells::ring_min;
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;
  static constexpr int kMaxPairRuns = 2 * 9;
  using Counter = LaneCounter<P, Real>;
  // Candidates between two flushes of the lane counts (they hold 2^31).
  static constexpr std::uint32_t kFlush = std::uint32_t(1) << 30;

  // A focal group: up to R * W boids of one cell, R registers of W lanes (lane l of register
  // r holds boid g0 + r * W + l). R = 2 for a cell of more than W boids: each candidate is
  // then broadcast once for both registers instead of once per group of W.
  template <int R>
  struct Group {
    B p[3][R], v[3][R], vlen[R], r2, cosv;
    M nocone[R];                   // lanes whose boid is at rest: no view cone
    std::uint32_t g0 = 0, nv = 0;  // cell-order indices g0 .. g0 + nv - 1 in lanes 0 .. nv - 1
  };
  template <int R>
  struct Acc {
    B best[R];
    typename Counter::C cnt[R];
    std::uint32_t pending = 0;  // candidates counted in cnt since the last flush
    std::uint64_t count[R * W] = {};
  };
  // A run of candidates: other boids, or the group's own (lane k meets itself: no pair).
  enum class Links { none, own };

 public:
  explicit PairPass(const PairInput<Real>& in) : Cells(in) {}

  void run(std::size_t b, std::size_t e, PairSums& out) const {
    PairRun<Real> runs[kMaxPairRuns];
    int cc[3] = {0, 0, 0};
    if (b >= e) return;
    // The cell holding boid b (the last one starting at or before it), then x-row after x-row.
    const std::size_t ncells =
        std::size_t(in_.n[0]) * std::size_t(in_.n[1]) * std::size_t(in_.n[2]);
    std::uint32_t cell = std::uint32_t(
        std::upper_bound(in_.start, in_.start + ncells + 1, std::uint32_t(b)) - in_.start - 1);
    // Kept per thread: the fused row calls this for thousands of short runs of cells.
    thread_local std::vector<std::uint8_t> plan;
    thread_local std::vector<float> cost;
    for (std::size_t ii = b; ii < e;) {
      while (in_.start[cell + 1] <= ii) ++cell;  // skip the empty cells
      decode(cell, cc);
      // The cells of this x-row from `cell` on that hold boids of [ii, e).
      int m = 1;
      while (cc[0] + m < in_.n[0] && in_.start[cell + std::uint32_t(m)] < e) ++m;
      plan_row(cell, m, ii, e, plan, cost);
      for (int x = 0; x < m; x += plan[std::size_t(x)]) {
        const int k = plan[std::size_t(x)];
        const std::uint32_t c0 = cell + std::uint32_t(x);
        const std::size_t gb = std::max<std::size_t>(ii, in_.start[c0]);
        const std::size_t ge = std::min<std::size_t>(e, in_.start[c0 + std::uint32_t(k)]);
        if (gb >= ge) continue;
        const int gcc[3] = {cc[0] + x, cc[1], cc[2]};
        const int nruns = near_runs(gcc, k, runs);
        out.spanned += k > 1;
        for (std::size_t g0 = gb; g0 < ge;) {
          const std::size_t left = ge - g0;
          if (left > std::size_t(W)) {
            const std::size_t nv = std::min<std::size_t>(2 * W, left);
            group<2>(std::uint32_t(g0), std::uint32_t(nv), runs, nruns, gcc, c0, out);
            g0 += nv;
          } else {
            group<1>(std::uint32_t(g0), std::uint32_t(left), runs, nruns, gcc, c0, out);
            g0 += left;
          }
        }
      }
      ii = std::min<std::size_t>(e, in_.start[cell + std::uint32_t(m)]);
      cell += std::uint32_t(m) - 1;
    }
  }

 private:
  template <int R>
  void group(std::uint32_t g0, std::uint32_t nv, const PairRun<Real>* runs, int nruns,
             const int* gcc, std::uint32_t cell0, PairSums& out) const {
    const Real inf = std::numeric_limits<Real>::infinity();
    Group<R> f;
    f.g0 = g0;
    f.nv = nv;
    for (int r = 0; r < R; ++r) {
      const std::uint32_t o = g0 + std::uint32_t(r * W);
      const M live = P::lane_lt(int(nv) - r * W);
      for (int c = 0; c < D; ++c)
        f.p[c][r] = P::select(live, P::loadu(in_.p[c] + o), P::splat(inf));
      if constexpr (Cone) {  // the velocities are read (and sorted) only for the view test
        f.v[0][r] = P::loadu(in_.v[0] + o);
        B v2 = f.v[0][r] * f.v[0][r];
        for (int c = 1; c < D; ++c) {
          f.v[c][r] = P::loadu(in_.v[c] + o);
          v2 = v2 + f.v[c][r] * f.v[c][r];
        }
        f.vlen[r] = P::sqrt(v2);
        f.nocone[r] = !(f.vlen[r] > P::splat(Real(0)));
      }
    }
    f.r2 = P::splat(in_.radius2);
    f.cosv = P::splat(in_.cos_half_view);
    Acc<R> a;
    for (int r = 0; r < R; ++r) {
      a.best[r] = P::splat(inf);
      a.cnt[r] = Counter::zero();
    }
    for (int k = 0; k < nruns; ++k) {
      const PairRun<Real>& run = runs[k];
      const std::uint32_t g1 = g0 + nv;
      // Before the group in cell order, the group itself (no self-pair), after it.
      const std::uint32_t e1 = std::min(run.e, g0), b2 = std::max(run.b, g0),
                          e2 = std::min(run.e, g1), b3 = std::max(run.b, g1);
      if (run.b < e1) scan_run<Links::none>(run, run.b, e1, f, a);
      if (b2 < e2) scan_run<Links::own>(run, b2, e2, f, a);
      if (b3 < run.e) scan_run<Links::none>(run, b3, run.e, f, a);
    }
    flush(a);
    alignas(64) Real best[R * W];
    for (int r = 0; r < R; ++r) store_lanes(a.best[r], best + r * W);
    int cc[3] = {gcc[0], gcc[1], gcc[2]};  // the cell of lane l's boid
    std::uint32_t cell = cell0;
    for (std::uint32_t l = 0; l < nv; ++l) {
      const std::uint32_t i = g0 + l;
      while (in_.start[cell + 1] <= i) {
        ++cell;
        ++cc[0];
      }
      Real pi[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) pi[c] = in_.p[c][i];
      Real bestr = best[l];
      // Unvisited cells lie at least one edge away: search further rings only while the best
      // distance found could still be beaten.
      double nearest = std::sqrt(double(bestr));
      for (int ring = 2; !(nearest <= double(ring - 1) * in_.edge) && ring_exists(cc, ring);
           ++ring) {
        bestr = ring_min(pi, i, cc, ring, bestr);
        nearest = std::sqrt(double(bestr));
      }
      out.neighbours += in_.topo_k > 0 ? std::min(a.count[l], in_.topo_k) : a.count[l];
      if (bestr < std::numeric_limits<Real>::infinity()) {
        out.nnd += fixed_value(nearest);
        out.nnd_count += 1;
      }
    }
  }

  static void store_lanes(B x, Real* out) {
    if constexpr (W == 1)
      *out = x;
    else
      x.store_aligned(out);
  }

  template <int R>
  void flush(Acc<R>& a) const {
    for (int r = 0; r < R; ++r) {
      Counter::drain(a.cnt[r], a.count + r * W);
      a.cnt[r] = Counter::zero();
    }
    a.pending = 0;
  }

  template <Links L, int R>
  void scan_run(const PairRun<Real>& run, std::uint32_t b, std::uint32_t e, Group<R>& f,
                Acc<R>& a) const {
    for (std::uint32_t q = b; q < e;) {
      const std::uint32_t take = std::min(e - q, kFlush);
      if (a.pending + take > kFlush) flush(a);
      bool shifted = false;
      if constexpr (Wrap == PairWrap::shift) shifted = run.shifted;
      if (shifted)
        scan<L, true>(run, q, q + take, f, a);
      else
        scan<L, false>(run, q, q + take, f, a);
      a.pending += take;
      q += take;
    }
  }

  template <Links L, bool Shifted, int R>
  [[gnu::noinline]] void scan(const PairRun<Real>& run, std::uint32_t b, std::uint32_t e,
                              Group<R>& f, Acc<R>& a) const {
    const B inf = P::splat(std::numeric_limits<Real>::infinity());
    [[maybe_unused]] B sh[3];
    if constexpr (Shifted) {
      for (int c = 0; c < D; ++c) sh[c] = P::splat(run.sh[c]);
    }
    // Locals the compiler keeps in registers (through the references they would be reloaded
    // every candidate).
    const Real* px = in_.p[0];
    const Real* py = in_.p[1];
    const Real* pz = in_.p[2];
    const B r2 = f.r2;
    B best[R];
    typename Counter::C cnt[R];
    for (int r = 0; r < R; ++r) {
      best[r] = a.best[r];
      cnt[r] = a.cnt[r];
    }
    for (std::uint32_t j = b; j < e; ++j) {
      B q[3];
      for (int c = 0; c < D; ++c) q[c] = P::splat((c == 0 ? px : c == 1 ? py : pz)[j]);
      for (int r = 0; r < R; ++r) {
        B d[3];
        for (int c = 0; c < D; ++c) {
          B x = q[c] - f.p[c][r];
          if constexpr (Shifted) x = x + sh[c];
          if constexpr (Wrap == PairWrap::min_image) x = wrapd(x);
          d[c] = x;
        }
        B d2 = d[0] * d[0];
        for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
        if constexpr (L == Links::own) {  // lane j - g0 - r * W of register r holds j itself
          const int k = int(j - f.g0) - r * W;
          d2 = P::select(P::lane_lt(k), d2, P::select(P::lane_lt(k + 1), inf, d2));
        }
        best[r] = P::min(best[r], d2);
        M seen = d2 < r2;
        if constexpr (Cone) {
          B dot = d[0] * f.v[0][r];  // the model's view test (core/model.hpp), lane by lane
          for (int c = 1; c < D; ++c) dot = dot + d[c] * f.v[c][r];
          seen = P::and_(seen, (dot >= (P::sqrt(d2) * f.vlen[r]) * f.cosv) || f.nocone[r]);
        }
        cnt[r] = Counter::add(cnt[r], seen);
      }
    }
    for (int r = 0; r < R; ++r) {
      a.best[r] = best[r];
      a.cnt[r] = cnt[r];
    }
  }

  B wrapd(B x) const {
    // d - L*nearbyint(d/L) for |d/L| < 1.5 (core/model.hpp), branch-free.
    const B size = P::splat(in_.size), zero = P::splat(Real(0)), half = P::splat(Real(0.5));
    const B t = x * P::splat(in_.inv_size);
    return (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
  }
};

template <class P, class Real, int D, PairWrap Wr, bool Cone>
void pair_entry(const PairInput<Real>& in, std::size_t b, std::size_t e, PairSums& out) {
  PairPass<P, Real, D, Wr, Cone>(in).run(b, e, out);
}

template <template <class> class Pk, class Real>
void fill_pair_table(PairTable<Real>& t) {
  using P = Pk<Real>;
  t.fn[0][0][0] = &pair_entry<P, Real, 2, PairWrap::none, false>;
  t.fn[0][0][1] = &pair_entry<P, Real, 2, PairWrap::none, true>;
  t.fn[0][1][0] = &pair_entry<P, Real, 2, PairWrap::shift, false>;
  t.fn[0][1][1] = &pair_entry<P, Real, 2, PairWrap::shift, true>;
  t.fn[0][2][0] = &pair_entry<P, Real, 2, PairWrap::min_image, false>;
  t.fn[0][2][1] = &pair_entry<P, Real, 2, PairWrap::min_image, true>;
  t.fn[1][0][0] = &pair_entry<P, Real, 3, PairWrap::none, false>;
  t.fn[1][0][1] = &pair_entry<P, Real, 3, PairWrap::none, true>;
  t.fn[1][1][0] = &pair_entry<P, Real, 3, PairWrap::shift, false>;
  t.fn[1][1][1] = &pair_entry<P, Real, 3, PairWrap::shift, true>;
  t.fn[1][2][0] = &pair_entry<P, Real, 3, PairWrap::min_image, false>;
  t.fn[1][2][1] = &pair_entry<P, Real, 3, PairWrap::min_image, true>;
  t.turn = &turn_many<Pk<double>, Real>;
  fill_moment_table<Pk<double>, Real>(t);
  fill_link_table<P, Real>(t);
}

}  // namespace
}  // namespace boids::metrics_detail
