// Flock metrics (include/boids/metrics.hpp, docs/metrics.md).
//
// Design. The boids of the chosen kind are copied out of the world in id order. Three passes
// follow, each over FIXED blocks of kBlock boids whose partial sums are combined in block
// order, so no result depends on the thread count or on how the executor splits the loop:
//   A. id order: speeds, unit velocities and the centre sums (circular under `wrap`);
//   B. id order: the angular momentum sum r_hat x v_hat about that centre;
//   C. cell order: a private cell list (cells of edge >= the radius, boids counting-sorted by
//      cell, stable in id order) gives every boid its neighbour count (radius, view cone, with
//      the model's own arithmetic in the world's precision), its nearest same-kind neighbour
//      (rings of cells searched outwards until no unvisited cell can hold a nearer one) and
//      the cluster links (pairs closer than the radius) fed to a lock-free union-find.
// The union-find links the larger root under the smaller with a compare-and-swap; whatever
// order the links arrive in, the final partition is the connected components of the link
// graph, which is unique, so the cluster count and the largest size are exact and
// deterministic. A serial pass then counts the components.
#include "boids/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/model.hpp"
#include "parallel/threading.hpp"

namespace boids {
namespace {

constexpr std::size_t kBlock = 2048;
constexpr double kTwoPi = 6.283185307179586476925286766559;

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

std::uint32_t find_root(std::atomic<std::uint32_t>* parent, std::uint32_t x) {
  for (;;) {
    const std::uint32_t p = parent[x].load(std::memory_order_acquire);
    if (p == x) return x;
    const std::uint32_t g = parent[p].load(std::memory_order_acquire);
    if (g != p) parent[x].store(g, std::memory_order_release);  // path halving: g is an ancestor
    x = g;
  }
}

void unite(std::atomic<std::uint32_t>* parent, std::uint32_t a, std::uint32_t b) {
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
      : s_(s), g_(g), kp_(mp.kind[kind]), size_(mp.size), inv_size_(mp.inv_size), parent_(parent) {}

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
      out.neighbours += k;
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
};

Grid make_grid(const WorldDef& def, double radius, std::size_t n, const double* lo,
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

template <class Real, int D>
FlockMetrics compute_typed(Executor& ex, Scratch<Real>& s, const World& world, int kind) {
  const WorldDef& def = world.def();
  const std::span<const std::uint8_t> kinds = world.kinds();
  const ComponentsView<Real> pv = world.positions<Real>(), vv = world.velocities<Real>();
  const std::span<const Real> pc[3] = {pv.x, pv.y, pv.z}, vc[3] = {vv.x, vv.y, vv.z};
  std::size_t n = 0;
  for (std::uint8_t k : kinds) n += k == kind;
  for (int c = 0; c < D; ++c) {
    s.p[c].resize(n);
    s.v[c].resize(n);
    s.sp[c].resize(n);
    s.sv[c].resize(n);
  }
  for (std::size_t i = 0, o = 0; i < kinds.size(); ++i) {
    if (kinds[i] != kind) continue;
    for (int c = 0; c < D; ++c) {
      s.p[c][o] = pc[c][i];
      s.v[c][o] = vc[c][i];
    }
    ++o;
  }
  FlockMetrics m;
  m.count = n;
  if (n == 0) return m;
  const bool wrap = def.boundary == Boundary::wrap;
  const std::size_t nblocks = (n + kBlock - 1) / kBlock;
  s.part.assign(nblocks, Partial{});
  auto blocks = [&](auto&& body) {
    ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) body(b, b * kBlock, std::min(n, (b + 1) * kBlock));
    });
  };
  // Pass A.
  blocks([&](std::size_t b, std::size_t i0, std::size_t i1) {
    Partial& q = s.part[b];
    for (std::size_t i = i0; i < i1; ++i) {
      double v[3] = {0, 0, 0}, s2 = 0;
      for (int c = 0; c < D; ++c) {
        v[c] = double(s.v[c][i]);
        s2 += v[c] * v[c];
      }
      const double sp = std::sqrt(s2);
      q.speed += sp;
      if (!(sp > 0)) continue;
      q.moving += 1;
      for (int c = 0; c < D; ++c) {
        q.vhat[c] += v[c] / sp;
        const double x = double(s.p[c][i]);
        if (wrap) {
          q.centre_a[c] += std::sin(kTwoPi * x / def.size);
          q.centre_b[c] += std::cos(kTwoPi * x / def.size);
        } else {
          q.centre_a[c] += x;
        }
      }
    }
  });
  Partial t;
  for (const Partial& q : s.part) {
    t.speed += q.speed;
    t.moving += q.moving;
    for (int c = 0; c < 3; ++c) {
      t.vhat[c] += q.vhat[c];
      t.centre_a[c] += q.centre_a[c];
      t.centre_b[c] += q.centre_b[c];
    }
  }
  m.moving = t.moving;
  m.mean_speed = t.speed / double(n);
  double centre[3] = {0, 0, 0};
  if (t.moving > 0) {
    double pol2 = 0;
    for (int c = 0; c < D; ++c) {
      pol2 += t.vhat[c] * t.vhat[c];
      if (wrap) {
        double a = std::atan2(t.centre_a[c], t.centre_b[c]) / kTwoPi * def.size;
        centre[c] = a < 0 ? a + def.size : a;
      } else {
        centre[c] = t.centre_a[c] / double(t.moving);
      }
    }
    m.polarization = std::min(1.0, std::sqrt(pol2) / double(t.moving));
    // Pass B.
    blocks([&](std::size_t b, std::size_t i0, std::size_t i1) {
      Partial& q = s.part[b];
      for (std::size_t i = i0; i < i1; ++i) {
        double v[3] = {0, 0, 0}, r[3] = {0, 0, 0}, v2 = 0, r2 = 0;
        for (int c = 0; c < D; ++c) {
          v[c] = double(s.v[c][i]);
          v2 += v[c] * v[c];
          r[c] = double(s.p[c][i]) - centre[c];
          if (wrap) r[c] -= def.size * std::nearbyint(r[c] / def.size);
          r2 += r[c] * r[c];
        }
        if (!(v2 > 0) || !(r2 > 0)) continue;
        const double inv = 1.0 / (std::sqrt(v2) * std::sqrt(r2));
        q.mom[2] += (r[0] * v[1] - r[1] * v[0]) * inv;
        if (D == 3) {
          q.mom[0] += (r[1] * v[2] - r[2] * v[1]) * inv;
          q.mom[1] += (r[2] * v[0] - r[0] * v[2]) * inv;
        }
      }
    });
    double mom[3] = {0, 0, 0};
    for (const Partial& q : s.part) {
      for (int c = 0; c < 3; ++c) mom[c] += q.mom[c];
    }
    m.milling = std::min(
        1.0, std::sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / double(t.moving));
  }
  // Pass C: the cell list.
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) {
    const auto [mn, mx] = std::minmax_element(s.p[c].begin(), s.p[c].end());
    lo[c] = double(*mn);
    hi[c] = double(*mx);
  }
  const ModelParams<Real> mp = ModelParams<Real>::from_def(def);
  const Grid g = make_grid(def, def.kinds[kind].rules.radius, n, lo, hi);
  const std::size_t ncells = g.cells();
  s.cell.resize(n);
  s.sorted_cell.resize(n);
  s.start.assign(ncells + 1, 0);
  blocks([&](std::size_t, std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      int cc[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) cc[c] = g.coord(double(s.p[c][i]), c);
      s.cell[i] = std::uint32_t((std::size_t(cc[2]) * std::size_t(g.n[1]) + std::size_t(cc[1])) *
                                    std::size_t(g.n[0]) +
                                std::size_t(cc[0]));
    }
  });
  for (std::size_t i = 0; i < n; ++i) s.start[s.cell[i] + 1] += 1;
  for (std::size_t c = 0; c < ncells; ++c) s.start[c + 1] += s.start[c];
  {
    std::vector<std::uint32_t>& fill = s.size;  // reused as the scatter cursor
    fill.assign(s.start.begin(), s.start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t to = fill[s.cell[i]]++;
      s.sorted_cell[to] = s.cell[i];
      for (int c = 0; c < D; ++c) {
        s.sp[c][to] = s.p[c][i];
        s.sv[c][to] = s.v[c][i];
      }
    }
  }
  if (s.parent_cap < n) {
    s.parent.reset(new std::atomic<std::uint32_t>[n]);
    s.parent_cap = n;
  }
  for (std::size_t i = 0; i < n; ++i)
    s.parent[i].store(std::uint32_t(i), std::memory_order_relaxed);
  s.part.assign(nblocks, Partial{});
  auto run_kernel = [&](const auto& kernel) {
    blocks([&](std::size_t b, std::size_t i0, std::size_t i1) { kernel.run(i0, i1, s.part[b]); });
  };
  if (wrap) {
    run_kernel(Kernel<Real, D, true>(s, g, mp, kind, s.parent.get()));
  } else {
    run_kernel(Kernel<Real, D, false>(s, g, mp, kind, s.parent.get()));
  }
  std::uint64_t neighbours = 0, nnd_count = 0;
  double nnd = 0;
  for (const Partial& q : s.part) {
    neighbours += q.neighbours;
    nnd += q.nnd;
    nnd_count += q.nnd_count;
  }
  m.mean_neighbours = double(neighbours) / double(n);
  m.mean_nnd = nnd_count > 0 ? nnd / double(nnd_count) : 0.0;
  // Components: roots have parent[x] == x.
  s.size.assign(n, 0);
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = find_root(s.parent.get(), std::uint32_t(i));
    m.clusters += r == i;
    largest = std::max(largest, ++s.size[r]);
  }
  m.largest_cluster = double(largest) / double(n);
  return m;
}

}  // namespace

struct MetricsCalculator::Impl {
  Impl(int threads, HostParallelFor host, void* ctx) : ex(threads, host, ctx) {}
  Executor ex;
  Scratch<float> f;
  Scratch<double> d;
};

MetricsCalculator::MetricsCalculator(int threads, HostParallelFor host_parallel_for,
                                     void* host_context)
    : impl_(std::make_unique<Impl>(threads, host_parallel_for, host_context)) {}
MetricsCalculator::~MetricsCalculator() = default;
MetricsCalculator::MetricsCalculator(MetricsCalculator&&) noexcept = default;
MetricsCalculator& MetricsCalculator::operator=(MetricsCalculator&&) noexcept = default;

FlockMetrics MetricsCalculator::compute(const World& world, int kind) {
  if (kind < 0 || kind >= kKindCount) {
    throw Error("metrics kind: must be 0 (boids), 1 (predators) or 2 (leaders), got " +
                std::to_string(kind));
  }
  const bool three = world.dims() == 3;
  if (world.precision() == Precision::f32) {
    return three ? compute_typed<float, 3>(impl_->ex, impl_->f, world, kind)
                 : compute_typed<float, 2>(impl_->ex, impl_->f, world, kind);
  }
  return three ? compute_typed<double, 3>(impl_->ex, impl_->d, world, kind)
               : compute_typed<double, 2>(impl_->ex, impl_->d, world, kind);
}

FlockMetrics compute_metrics(const World& world, int kind) {
  MetricsCalculator calc(world.def().threads, world.def().host_parallel_for,
                         world.def().host_context);
  return calc.compute(world, kind);
}

}  // namespace boids
