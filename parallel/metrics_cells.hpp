// The cell list, union-find and pair kernel of the flock metrics (parallel/metrics.cpp has
// the design). Internal: included only by parallel/metrics.cpp, which is compiled with
// -fno-trapping-math so the distance loops below vectorise.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "boids/world_def.hpp"
#include "core/model.hpp"

namespace boids::metrics_detail {

// Minimum image of a difference of two coordinates in [0, L): bit-identical to the model's
// d - L*nearbyint(d/L) (core/model.hpp), because |d/L| < 1.5 there and nearbyint rounds half
// to even, so it is 0 for |t| <= 0.5 and +-1 beyond.
template <class Real>
inline Real wrap_diff(Real d, Real size, Real inv_size) {
  const Real t = d * inv_size;
  const Real down = size * Real(t > Real(0.5));  // size or 0 exactly, without a branch
  const Real up = size * Real(t < Real(-0.5));
  return (d - down) + up;
}

struct Grid {
  int n[3] = {1, 1, 1};
  double lo[3] = {0, 0, 0};
  double edge = 1;  // cubic cells of this edge, >= radius / reach
  int reach = 1;    // the neighbour search covers cell offsets -reach..reach
  bool wrap = false;
  std::size_t cells() const { return std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]); }
  int coord(double x, int a) const {
    const double c = std::floor((x - lo[a]) / edge);
    if (!(c >= 0)) return 0;
    return c >= double(n[a]) ? n[a] - 1 : int(c);
  }
  // Offset range of axis a at ring distance k around cell coordinate c: [-*lo_o, *hi_o].
  void range(int a, int c, int k, int* lo_o, int* hi_o) const {
    if (wrap) {  // a window of n distinct cells at most, each at its nearest offset
      *lo_o = std::min(k, (n[a] - 1) / 2);
      *hi_o = std::min(k, n[a] / 2);
    } else {
      *lo_o = std::min(k, c);
      *hi_o = std::min(k, n[a] - 1 - c);
    }
  }
  int shift(int a, int c) const {
    if (!wrap) return c;
    return c < 0 ? c + n[a] : (c >= n[a] ? c - n[a] : c);
  }
};

struct Partial {
  double speed = 0, vhat[3] = {0, 0, 0}, centre_a[3] = {0, 0, 0}, centre_b[3] = {0, 0, 0};
  double mom[3] = {0, 0, 0}, nnd = 0;
  std::uint64_t moving = 0, neighbours = 0, nnd_count = 0;
};

template <class Real>
struct Scratch {
  std::vector<Real> p[3], v[3];    // selected boids, id order
  std::vector<Real> sp[3], sv[3];  // the same in cell order
  std::vector<std::uint32_t> cell, sorted_cell, start;
  std::unique_ptr<std::atomic<std::uint32_t>[]> parent;
  std::size_t parent_cap = 0;
  std::vector<std::uint32_t> size;
  std::vector<Partial> part;
};

inline std::uint32_t find_root(std::atomic<std::uint32_t>* parent, std::uint32_t x) {
  for (;;) {
    const std::uint32_t p = parent[x].load(std::memory_order_acquire);
    if (p == x) return x;
    const std::uint32_t g = parent[p].load(std::memory_order_acquire);
    if (g != p) parent[x].store(g, std::memory_order_release);  // path halving: g is an ancestor
    x = g;
  }
}

inline void unite(std::atomic<std::uint32_t>* parent, std::uint32_t a, std::uint32_t b) {
  for (;;) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (a < b) std::swap(a, b);  // link the larger root under the smaller: parent[x] <= x
    std::uint32_t expected = a;
    if (parent[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
  }
}

template <class Real, int D, bool Wrap>
class Kernel {
  using Bits = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  static constexpr std::uint32_t kChunk = 64;

 public:
  Kernel(const Scratch<Real>& s, const Grid& g, const ModelParams<Real>& mp, int kind,
         std::atomic<std::uint32_t>* parent)
      : s_(s),
        g_(g),
        kp_(mp.kind[kind]),
        size_(mp.size),
        inv_size_(mp.inv_size),
        parent_(parent),
        topo_k_(kind == 0 ? std::uint64_t(mp.list.topo_k) : 0) {}

  // Pass C over sorted boids [b, e): neighbour counts, nearest distances and links.
  void run(std::size_t b, std::size_t e, Partial& out) const {
    std::uint32_t runs[2 * 50];
    int nruns = 0;
    std::uint32_t cur = std::numeric_limits<std::uint32_t>::max();
    int cc[3] = {0, 0, 0};
    // Squared distances of one chunk of candidates: computed in a branch-free loop the
    // compiler vectorises, then scanned.
    alignas(64) Real d2[kChunk];
    alignas(64) Real dd[3][kChunk];
    for (std::size_t i = b; i < e; ++i) {
      const std::uint32_t cell = s_.sorted_cell[i];
      if (cell != cur) {
        cur = cell;
        decode(cell, cc);
        nruns = near_runs(cc, runs);
      }
      Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, vi2 = 0;
      for (int c = 0; c < D; ++c) {
        pi[c] = s_.sp[c][i];
        vi[c] = s_.sv[c][i];
        vi2 += vi[c] * vi[c];
      }
      const Real vi_len = std::sqrt(vi2);
      const bool cone = !kp_.full_view && vi_len > Real(0);
      const Real r2 = kp_.radius2;
      Bits best = std::numeric_limits<Bits>::max();
      std::uint32_t root = find_root(parent_, std::uint32_t(i));
      std::uint64_t k = 0;
      for (int r = 0; r < nruns; ++r) {
        for (std::uint32_t s0 = runs[2 * r]; s0 < runs[2 * r + 1]; s0 += kChunk) {
          const std::uint32_t len = std::min<std::uint32_t>(kChunk, runs[2 * r + 1] - s0);
          for (int c = 0; c < D; ++c) {  // one component at a time: unit-stride loads
            const Real* __restrict src = s_.sp[c].data() + s0;
            Real* __restrict dst = dd[c];
            const Real pc = pi[c];
            for (std::uint32_t q = 0; q < len; ++q) {
              Real d = src[q] - pc;
              if constexpr (Wrap) d = wrap_diff(d, size_, inv_size_);
              dst[q] = d;
            }
          }
          for (std::uint32_t q = 0; q < len; ++q) {
            Real dist2 = 0;  // summed in component order, as the model does
            for (int c = 0; c < D; ++c) dist2 += dd[c][q] * dd[c][q];
            d2[q] = dist2;
          }
          if (i >= s0 && i < s0 + len) d2[i - s0] = std::numeric_limits<Real>::infinity();
          // Non-negative floats order like their bit patterns: an integer minimum.
          Bits m = best;
          std::uint64_t inside = 0;
          for (std::uint32_t q = 0; q < len; ++q) {
            Bits bits;
            std::memcpy(&bits, &d2[q], sizeof bits);
            m = bits < m ? bits : m;
            inside += d2[q] < r2 ? 1u : 0u;
          }
          best = m;
          if (!cone) k += inside;
          if (inside == 0) continue;
          // Links: each pair once, from its later boid; a find per candidate, a union only
          // when the roots differ.
          const std::uint32_t before =
              i > s0 ? std::min<std::uint32_t>(len, std::uint32_t(i - s0)) : 0;
          for (std::uint32_t q = 0; q < before; ++q) {
            if (!(d2[q] < r2)) continue;
            const std::uint32_t rj = find_root(parent_, s0 + q);
            if (rj != root) {
              unite(parent_, root, rj);
              root = find_root(parent_, std::uint32_t(i));
            }
          }
          if (!cone) continue;
          for (std::uint32_t q = 0; q < len; ++q) {
            if (!(d2[q] < r2)) continue;
            Real dot = 0;  // the model's view test, same arithmetic (core/model.hpp)
            for (int c = 0; c < D; ++c) dot += dd[c][q] * vi[c];
            if (dot >= std::sqrt(d2[q]) * vi_len * kp_.cos_half_view) ++k;
          }
        }
      }
      Real bestr;
      std::memcpy(&bestr, &best, sizeof bestr);
      if (best == std::numeric_limits<Bits>::max()) bestr = std::numeric_limits<Real>::infinity();
      // Unvisited cells lie beyond the reach, at least reach edges away: search further rings
      // only while the best distance found could still be beaten.
      double nearest = std::sqrt(double(bestr));
      for (int ring = g_.reach + 1;
           !(nearest <= double(ring - 1) * g_.edge) && ring_exists(cc, ring); ++ring) {
        bestr = ring_min(pi, i, cc, ring, bestr);
        nearest = std::sqrt(double(bestr));
      }
      // Topological neighbours: the model sees at most the k nearest of the visible ones.
      out.neighbours += topo_k_ > 0 ? std::min(k, topo_k_) : k;
      if (bestr < std::numeric_limits<Real>::infinity()) {
        out.nnd += nearest;
        out.nnd_count += 1;
      }
    }
  }

 private:
  void decode(std::uint32_t cell, int* cc) const {
    cc[0] = int(cell % std::uint32_t(g_.n[0]));
    cc[1] = int((cell / std::uint32_t(g_.n[0])) % std::uint32_t(g_.n[1]));
    cc[2] = int(cell / (std::uint32_t(g_.n[0]) * std::uint32_t(g_.n[1])));
  }
  std::uint32_t index(int x, int y, int z) const {
    return std::uint32_t((std::size_t(z) * std::size_t(g_.n[1]) + std::size_t(y)) *
                             std::size_t(g_.n[0]) +
                         std::size_t(x));
  }
  Real diff(const Real* pi, std::size_t j, Real* d) const {
    Real dist2 = 0;
    for (int c = 0; c < D; ++c) {
      d[c] = s_.sp[c][j] - pi[c];
      if constexpr (Wrap) d[c] = wrap_diff(d[c], size_, inv_size_);
      dist2 += d[c] * d[c];
    }
    return dist2;
  }
  // The boid ranges of the cells at offsets -1..1 (deduplicated under wrap): rows along x are
  // contiguous in cell order, so each (y, z) row gives one or two ranges.
  int near_runs(const int* cc, std::uint32_t* runs) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) g_.range(a, cc[a], a < D ? g_.reach : 0, &lo[a], &hi[a]);
    int nr = 0;
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        const int z = g_.shift(2, cc[2] + oz), y = g_.shift(1, cc[1] + oy);
        const int x0 = cc[0] - lo[0], x1 = cc[0] + hi[0];
        auto add = [&](int a, int bnd) {  // cells a..bnd on this row
          runs[2 * nr] = s_.start[index(a, y, z)];
          runs[2 * nr + 1] = s_.start[index(bnd, y, z) + 1];
          ++nr;
        };
        if (x0 < 0) {
          add(x0 + g_.n[0], g_.n[0] - 1);
          add(0, x1);
        } else if (x1 >= g_.n[0]) {
          add(x0, g_.n[0] - 1);
          add(0, x1 - g_.n[0]);
        } else {
          add(x0, x1);
        }
      }
    }
    return nr;
  }
  bool ring_exists(const int* cc, int ring) const {
    for (int a = 0; a < D; ++a) {
      int lo, hi;
      g_.range(a, cc[a], ring, &lo, &hi);
      if (lo >= ring || hi >= ring) return true;
    }
    return false;
  }
  // Smallest squared distance from boid i to the boids of the cells at Chebyshev ring `ring`.
  Real ring_min(const Real* pi, std::size_t i, const int* cc, int ring, Real best) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) g_.range(a, cc[a], a < D ? ring : 0, &lo[a], &hi[a]);
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        for (int ox = -lo[0]; ox <= hi[0]; ++ox) {
          if (std::max(std::abs(ox), std::max(std::abs(oy), std::abs(oz))) != ring) continue;
          const std::uint32_t cell =
              index(g_.shift(0, cc[0] + ox), g_.shift(1, cc[1] + oy), g_.shift(2, cc[2] + oz));
          for (std::uint32_t j = s_.start[cell]; j < s_.start[cell + 1]; ++j) {
            if (j == i) continue;
            Real d[3];
            const Real dist2 = diff(pi, j, d);
            if (dist2 < best) best = dist2;
          }
        }
      }
    }
    return best;
  }

  const Scratch<Real>& s_;
  const Grid& g_;
  const KindParams<Real>& kp_;
  Real size_, inv_size_;
  std::atomic<std::uint32_t>* parent_;
  std::uint64_t topo_k_;  // rules.topological_k for kind 0 with topological neighbours, else 0
};

inline Grid make_grid(const WorldDef& def, double radius, std::size_t n, const double* lo,
                      const double* hi) {
  Grid g;
  g.wrap = def.boundary == Boundary::wrap;
  const double extent = g.wrap ? def.size : std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  // Cells of one radius searched one cell out. (Half-radius cells searched two out examine
  // (2.5 r)^D instead of (3 r)^D candidates, but their rows are so short that they measured
  // slower.) A margin above the radius covers the rounding of positions to the world's
  // precision.
  g.reach = 1;
  double edge = (radius * (1 + 1e-5) + extent * 1e-6) / g.reach;
  const double cap = 2.0 * double(n) + 64.0;
  for (;;) {
    double total = 1;
    for (int a = 0; a < def.dims; ++a) {
      if (g.wrap) {
        g.n[a] = std::max(1, int(std::min(1e6, std::floor(def.size / edge))));
      } else {
        g.lo[a] = lo[a];
        g.n[a] = int(std::min(1e6, std::floor((hi[a] - lo[a]) / edge))) + 1;
      }
      total *= g.n[a];
    }
    if (total <= cap) break;
    edge *= 1.25;
  }
  g.edge = g.wrap ? def.size / g.n[0] : edge;
  return g;
}

}  // namespace boids::metrics_detail
