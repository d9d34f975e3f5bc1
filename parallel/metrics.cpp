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
#include "parallel/metrics_cells.hpp"
#include "parallel/threading.hpp"

namespace boids {
namespace {

constexpr std::size_t kBlock = 2048;
constexpr double kTwoPi = 6.283185307179586476925286766559;

using namespace metrics_detail;

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
