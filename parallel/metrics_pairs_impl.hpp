// The metrics pair pass (parallel/metrics_pairs.hpp) over a pack P: P::B is Real or an xsimd
// batch of W lanes, P::M its mask. Included by metrics_pairs_<isa>.cpp only.
//
// For boid i of the metrics' cell list (cells of edge >= the radius), the candidates are the
// boids of the 3^D cells around its own, as contiguous runs of cell order (one per x-row of the
// stencil, split at the wrap seam). Its own run is split at i, so i never meets itself. Each
// batch of W candidates gives W squared distances |d|^2 with the model's arithmetic (d = p_j -
// p_i, plus the run's image shift or per-pair minimum image; |d|^2 summed in component order);
// lanes past the run's end are set to +inf. From the batch:
//   nearest   : a lane-wise minimum of |d|^2 (exact in any order);
//   neighbours: the bits of |d|^2 < r^2 (and the model's view test) counted with popcount;
//   links     : on runs wholly before i in cell order, each set bit is a link (i, j), each
//               pair so met once; a find per link only when j's parent is not already i's root.
// When the nearest boid lies beyond the stencil, rings of cells further out are searched
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
#include <vector>

#include "parallel/metrics_pairs.hpp"

namespace boids::metrics_detail {
namespace {

inline std::uint32_t pair_root(std::atomic<std::uint32_t>* parent, std::uint32_t x) {
  for (;;) {
    const std::uint32_t p = parent[x].load(std::memory_order_acquire);
    if (p == x) return x;
    const std::uint32_t g = parent[p].load(std::memory_order_acquire);
    if (g != p) parent[x].store(g, std::memory_order_release);  // path halving: g is an ancestor
    x = g;
  }
}

// Links the larger root under the smaller with a compare-and-swap (parent[x] <= x always):
// whatever order links arrive in, the sets end as the connected components of the links.
inline void pair_unite(std::atomic<std::uint32_t>* parent, std::uint32_t a, std::uint32_t b) {
  for (;;) {
    a = pair_root(parent, a);
    b = pair_root(parent, b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    std::uint32_t expected = a;
    if (parent[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
  }
}

template <class Real>
struct PairRun {
  std::uint32_t b, e;
  Real sh[3];
  bool shifted;
  std::uint32_t word0;  // first word of its bits in the cell's link snapshot
};

template <class P, class Real, int D, PairWrap Wrap, bool Cone>
class PairPass {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;
  static constexpr int kMaxPairRuns = 2 * 9;

  struct Focal {
    B p[3], v[3], vlen, cosv, r2;
    std::uint32_t i;
  };
  struct Acc {
    B best;
    std::uint64_t count;
    std::uint32_t root;
  };
  // The cell's link snapshot: bit (j - run.b) of a run is set when parent[j] == R, so R is an
  // ancestor of j (ancestors stay ancestors). While i's root is R, a link (i, j) with the bit
  // set joins nothing and is skipped without a load; the rest take the union-find.
  struct Snapshot {
    std::vector<std::uint64_t> words;
    std::uint32_t root = 0;
  };

 public:
  explicit PairPass(const PairInput<Real>& in) : in_(in) {}

  void run(std::size_t b, std::size_t e, PairSums& out) const {
    PairRun<Real> runs[kMaxPairRuns];
    int nruns = 0, own = 0;
    std::uint32_t cur = std::numeric_limits<std::uint32_t>::max();
    int cc[3] = {0, 0, 0};
    Focal f;
    f.cosv = P::splat(in_.cos_half_view);
    f.r2 = P::splat(in_.radius2);
    Snapshot snap;
    for (std::size_t ii = b; ii < e; ++ii) {
      const std::uint32_t i = std::uint32_t(ii);
      const std::uint32_t cell = in_.sorted_cell[i];
      if (cell != cur) {
        cur = cell;
        decode(cell, cc);
        nruns = near_runs(cc, runs);
        own = take_snapshot(runs, nruns, in_.start[cell], snap);
      }
      Real pi[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) {
        pi[c] = in_.p[c][i];
        f.p[c] = P::splat(pi[c]);
      }
      bool cone = false;
      if constexpr (Cone) {  // the velocities are read (and sorted) only for the view test
        Real vi2 = 0;
        for (int c = 0; c < D; ++c) {
          const Real vc = in_.v[c][i];
          vi2 += vc * vc;
          f.v[c] = P::splat(vc);
        }
        const Real vi_len = std::sqrt(vi2);
        f.vlen = P::splat(vi_len);
        cone = vi_len > Real(0);
      }
      f.i = i;
      Acc a{P::splat(std::numeric_limits<Real>::infinity()), 0, pair_root(in_.parent, i)};
      for (int r = 0; r < nruns; ++r) {
        const PairRun<Real>& run = runs[r];
        const std::uint64_t* words = snap.words.data() + run.word0;
        if (r == own) {
          scan_any(cone, run, run.b, i, words, snap.root, f, a);
          scan_any(cone, run, i + 1, run.e, nullptr, 0, f, a);
        } else {
          scan_any(cone, run, run.b, run.e, run.e <= i ? words : nullptr, snap.root, f, a);
        }
      }
      if (a.root == snap.root) {  // later boids of the cell may skip their links to i
        const std::uint32_t k = i - runs[own].b;
        snap.words[runs[own].word0 + k / 64] |= std::uint64_t(1) << (k % 64);
      }
      Real bestr = horizontal_min(a.best);
      // Unvisited cells lie at least one edge away: search further rings only while the best
      // distance found could still be beaten.
      double nearest = std::sqrt(double(bestr));
      for (int ring = 2; !(nearest <= double(ring - 1) * in_.edge) && ring_exists(cc, ring);
           ++ring) {
        bestr = ring_min(pi, i, cc, ring, bestr);
        nearest = std::sqrt(double(bestr));
      }
      out.neighbours += in_.topo_k > 0 ? std::min(a.count, in_.topo_k) : a.count;
      if (bestr < std::numeric_limits<Real>::infinity()) {
        out.nnd += fixed_value(nearest);
        out.nnd_count += 1;
      }
    }
  }

 private:
  // Bits of the link snapshot for runs wholly before `first` (the cell's first boid) and for
  // the own run (the row holding the cell, whose boids before `first` are set now and the
  // cell's own boids as they finish). Returns the index of the own run.
  int take_snapshot(PairRun<Real>* runs, int nruns, std::uint32_t first, Snapshot& snap) const {
    snap.words.clear();
    snap.root = nruns > 0 ? pair_root(in_.parent, runs[0].b) : 0;
    int own = 0;
    for (int r = 0; r < nruns; ++r) {
      PairRun<Real>& run = runs[r];
      run.word0 = std::uint32_t(snap.words.size());
      if (run.b <= first && first < run.e) own = r;
      if (run.b > first) continue;  // after the cell: no links from it
      snap.words.resize(snap.words.size() + (run.e - run.b + 63) / 64, 0);
      std::uint64_t* w = snap.words.data() + run.word0;
      const std::uint32_t end = std::min(run.e, first);
      for (std::uint32_t j = run.b; j < end; ++j) {
        const std::uint32_t k = j - run.b;
        w[k / 64] |= std::uint64_t(in_.parent[j].load(std::memory_order_relaxed) == snap.root)
                     << (k % 64);
      }
    }
    return own;
  }

  // links: the run's snapshot words when [b, e) lies before i (each pair is linked from its
  // later boid), else nullptr.
  void scan_any(bool cone, const PairRun<Real>& run, std::uint32_t b, std::uint32_t e,
                const std::uint64_t* links, std::uint32_t snap_root, const Focal& f, Acc& a) const {
    if (b >= e) return;
    if constexpr (!Cone) cone = false;  // lets the compiler drop the view-test scans
    if constexpr (Wrap == PairWrap::shift) {
      if (run.shifted) {
        if (cone)
          scan<true, true>(run, b, e, links, snap_root, f, a);
        else
          scan<false, true>(run, b, e, links, snap_root, f, a);
        return;
      }
    }
    if (cone)
      scan<true, false>(run, b, e, links, snap_root, f, a);
    else
      scan<false, false>(run, b, e, links, snap_root, f, a);
  }

  template <bool ConeOn, bool Shifted>
  void scan(const PairRun<Real>& run, std::uint32_t b, std::uint32_t e, const std::uint64_t* links,
            std::uint32_t snap_root, const Focal& f, Acc& a) const {
    const B inf = P::splat(std::numeric_limits<Real>::infinity());
    [[maybe_unused]] B sh[3];
    if constexpr (Shifted) {
      for (int c = 0; c < D; ++c) sh[c] = P::splat(run.sh[c]);
    }
    for (std::uint32_t q = b; q < e; q += W) {
      B d[3];
      for (int c = 0; c < D; ++c) {
        B x = P::loadu(in_.p[c] + q) - f.p[c];
        if constexpr (Shifted) x = x + sh[c];
        if constexpr (Wrap == PairWrap::min_image) x = wrapd(x);
        d[c] = x;
      }
      B d2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
      if (e - q < std::uint32_t(W)) d2 = P::select(P::lane_lt(int(e - q)), d2, inf);
      a.best = P::min(a.best, d2);
      const M inside = d2 < f.r2;
      std::uint64_t in_bits = P::bits(inside);
      std::uint64_t seen = in_bits;
      if constexpr (ConeOn) {
        B dot = d[0] * f.v[0];  // the model's view test (core/model.hpp), lane by lane
        for (int c = 1; c < D; ++c) dot = dot + d[c] * f.v[c];
        seen = P::bits(P::and_(inside, dot >= (P::sqrt(d2) * f.vlen) * f.cosv));
      }
      a.count += std::uint64_t(std::popcount(seen));
      if (!links) continue;
      std::uint64_t need = in_bits;
      if (a.root == snap_root) {  // q - run.b is a multiple of W: the lanes share one word
        const std::uint32_t k = q - run.b;
        need &= ~(links[k / 64] >> (k % 64));
      }
      for (; need; need &= need - 1) {
        const std::uint32_t j = q + std::uint32_t(std::countr_zero(need));
        if (in_.parent[j].load(std::memory_order_relaxed) == a.root) continue;
        const std::uint32_t rj = pair_root(in_.parent, j);
        if (rj == a.root) continue;
        pair_unite(in_.parent, a.root, rj);
        a.root = pair_root(in_.parent, f.i);
      }
    }
  }

  B wrapd(B x) const {
    // d - L*nearbyint(d/L) for |d/L| < 1.5 (core/model.hpp), branch-free.
    const B size = P::splat(in_.size), zero = P::splat(Real(0)), half = P::splat(Real(0.5));
    const B t = x * P::splat(in_.inv_size);
    return (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
  }

  static Real horizontal_min(B x) {
    if constexpr (W == 1) {
      return x;
    } else {
      alignas(64) Real lane[W];
      x.store_aligned(lane);
      Real m = lane[0];
      for (int k = 1; k < W; ++k) m = lane[k] < m ? lane[k] : m;
      return m;
    }
  }

  Real wrap1(Real d) const {
    const Real t = d * in_.inv_size;
    return (d - in_.size * Real(t > Real(0.5))) + in_.size * Real(t < Real(-0.5));
  }

  void decode(std::uint32_t cell, int* cc) const {
    cc[0] = int(cell % std::uint32_t(in_.n[0]));
    cc[1] = int((cell / std::uint32_t(in_.n[0])) % std::uint32_t(in_.n[1]));
    cc[2] = int(cell / (std::uint32_t(in_.n[0]) * std::uint32_t(in_.n[1])));
  }
  std::uint32_t index(int x, int y, int z) const {
    return std::uint32_t((std::size_t(z) * std::size_t(in_.n[1]) + std::size_t(y)) *
                             std::size_t(in_.n[0]) +
                         std::size_t(x));
  }
  // Offset range of axis a at ring distance k around cell coordinate c: [-*lo, *hi]; under
  // wrap a window of at most n distinct cells, each at its nearest offset.
  void range(int a, int c, int k, int* lo, int* hi) const {
    if (Wrap != PairWrap::none) {
      *lo = std::min(k, (in_.n[a] - 1) / 2);
      *hi = std::min(k, in_.n[a] / 2);
    } else {
      *lo = std::min(k, c);
      *hi = std::min(k, in_.n[a] - 1 - c);
    }
  }
  int wrap_cell(int a, int c, Real* shift) const {
    *shift = 0;
    if (Wrap == PairWrap::none) return c;
    if (c < 0) {
      *shift = -in_.size;  // the cell's boids lie near L: d = p_j - p_i - L
      return c + in_.n[a];
    }
    if (c >= in_.n[a]) {
      *shift = in_.size;
      return c - in_.n[a];
    }
    return c;
  }
  // The boid runs of the cells at offsets -1..1 around cc: one or two per x-row.
  int near_runs(const int* cc, PairRun<Real>* runs) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) range(a, cc[a], a < D ? 1 : 0, &lo[a], &hi[a]);
    int nr = 0;
    const bool shifts = Wrap == PairWrap::shift;
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        Real sy = 0, sz = 0;
        const int z = wrap_cell(2, cc[2] + oz, &sz), y = wrap_cell(1, cc[1] + oy, &sy);
        const int x0 = cc[0] - lo[0], x1 = cc[0] + hi[0];
        auto add = [&](int a, int bnd, Real sx) {  // cells a..bnd of this row
          PairRun<Real>& run = runs[nr];
          run.b = in_.start[index(a, y, z)];
          run.e = in_.start[index(bnd, y, z) + 1];
          run.sh[0] = shifts ? sx : Real(0);
          run.sh[1] = shifts ? sy : Real(0);
          run.sh[2] = shifts ? sz : Real(0);
          run.shifted = shifts && (run.sh[0] != 0 || run.sh[1] != 0 || run.sh[2] != 0);
          if (run.b < run.e) ++nr;
        };
        if (x0 < 0) {
          add(x0 + in_.n[0], in_.n[0] - 1, -in_.size);
          add(0, x1, 0);
        } else if (x1 >= in_.n[0]) {
          add(x0, in_.n[0] - 1, 0);
          add(0, x1 - in_.n[0], in_.size);
        } else {
          add(x0, x1, 0);
        }
      }
    }
    return nr;
  }
  bool ring_exists(const int* cc, int ring) const {
    for (int a = 0; a < D; ++a) {
      int lo, hi;
      range(a, cc[a], ring, &lo, &hi);
      if (lo >= ring || hi >= ring) return true;
    }
    return false;
  }
  // Smallest squared distance from boid i to the boids of the cells at Chebyshev ring `ring`,
  // with the per-pair minimum image (exact at any distance).
  Real ring_min(const Real* pi, std::uint32_t i, const int* cc, int ring, Real best) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) range(a, cc[a], a < D ? ring : 0, &lo[a], &hi[a]);
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        for (int ox = -lo[0]; ox <= hi[0]; ++ox) {
          if (std::max(std::abs(ox), std::max(std::abs(oy), std::abs(oz))) != ring) continue;
          Real s;
          const std::uint32_t cell =
              index(wrap_cell(0, cc[0] + ox, &s), wrap_cell(1, cc[1] + oy, &s),
                    wrap_cell(2, cc[2] + oz, &s));
          for (std::uint32_t j = in_.start[cell]; j < in_.start[cell + 1]; ++j) {
            if (j == i) continue;
            Real dist2 = 0;
            for (int c = 0; c < D; ++c) {
              Real d = in_.p[c][j] - pi[c];
              if constexpr (Wrap != PairWrap::none) d = wrap1(d);
              dist2 += d * d;
            }
            if (dist2 < best) best = dist2;
          }
        }
      }
    }
    return best;
  }

  const PairInput<Real>& in_;
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
}

}  // namespace
}  // namespace boids::metrics_detail
