// Flock metrics (include/boids/metrics.hpp, docs/metrics.md).
//
// Design. The boids of the chosen kind are copied straight from the engine's store, in its
// own slot order (sequential reads; no id-order copy of the world). Every sum is taken in
// 128-bit fixed point (FixedSum, parallel/metrics_pairs.hpp): integer additions, exact in any
// order, so no result depends on the slot order, the engine, the thread count or how the
// executor splits a loop. Three passes over blocks of kBlock boids follow:
//   A. speeds, unit velocities and the centre sums (circular under `wrap`, with a
//      table-and-series sine and cosine: a fixed sequence of correctly rounded operations);
//   B. the angular momentum sum r_hat x v_hat about that centre;
//   C. cell order: a private cell list (cells of edge >= the radius, boids counting-sorted by
//      cell) and the pair pass (parallel/metrics_pairs.hpp, compiled per instruction set):
//      every boid's neighbour count (radius, view cone, with the model's own arithmetic in the
//      world's precision), its nearest same-kind neighbour and the cluster links fed to a
//      lock-free union-find.
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

#include "core/engine.hpp"
#include "core/model.hpp"
#include "parallel/metrics_cells.hpp"
#include "parallel/metrics_pairs.hpp"
#include "parallel/metrics_turn.hpp"
#include "parallel/threading.hpp"

namespace boids {
namespace {

constexpr std::size_t kBlock = 2048;
constexpr double kTwoPi = 6.283185307179586476925286766559;

// The table of the circular centre's sines (parallel/metrics_turn.hpp), built once.
struct TurnTable {
  double sin[metrics_detail::kTurnSize], cos[metrics_detail::kTurnSize];
  TurnTable() {
    for (int k = 0; k < metrics_detail::kTurnSize; ++k) {
      sin[k] = std::sin(kTwoPi * k / metrics_detail::kTurnSize);
      cos[k] = std::cos(kTwoPi * k / metrics_detail::kTurnSize);
    }
  }
};

using namespace metrics_detail;

template <class Real, int D>
FlockMetrics compute_typed(Executor& ex, Scratch<Real>& s, const World& world, int kind) {
  const WorldDef& def = world.def();
  const auto* engine = dynamic_cast<const EngineT<Real>*>(&engine_of(world));
  if (!engine) throw Error("metrics: the world's precision does not match its engine");
  const BoidStore<Real>& store = engine->slots();
  const std::size_t total = store.n;
  // Gather the kind's boids in the store's own slot order (sequential reads; every sum below
  // is exact in fixed point, so the order cannot change a bit): count per block, then copy.
  const std::size_t gblocks = (total + kBlock - 1) / kBlock;
  s.offset.assign(gblocks + 1, 0);
  ex.parallel_for(gblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t k = 0;
      for (std::size_t r = b * kBlock; r < std::min(total, (b + 1) * kBlock); ++r)
        k += store.kind[r] == kind;
      s.offset[b + 1] = k;
    }
  });
  for (std::size_t b = 0; b < gblocks; ++b) s.offset[b + 1] += s.offset[b];
  const std::size_t n = s.offset[gblocks];
  for (int c = 0; c < D; ++c) {
    s.p[c].resize(n);
    s.v[c].resize(n);
    s.sp[c].resize(n + kPairPad);
    s.sv[c].resize(n + kPairPad);
  }
  ex.parallel_for(gblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::size_t o = s.offset[b];
      for (std::size_t slot = b * kBlock; slot < std::min(total, (b + 1) * kBlock); ++slot) {
        if (store.kind[slot] != kind) continue;
        for (int c = 0; c < D; ++c) {
          s.p[c][o] = store.p[c][slot];
          s.v[c][o] = store.v[c][slot];
        }
        ++o;
      }
    }
  });
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
  static const TurnTable table;
  const TurnFn<Real> turn = select_turn_fn<Real>();
  blocks([&](std::size_t b, std::size_t i0, std::size_t i1) {
    Partial& q = s.part[b];
    for (int c = 0; c < D && !wrap; ++c) {
      const auto [mn, mx] = std::minmax_element(s.p[c].begin() + std::ptrdiff_t(i0),
                                                s.p[c].begin() + std::ptrdiff_t(i1));
      q.lo[c] = double(*mn);
      q.hi[c] = double(*mx);
    }
    // The sines and cosines of a chunk of boids first, W lanes at a time (turn_many).
    constexpr std::size_t kChunk = 256;
    double sn[3][kChunk], cs[3][kChunk];
    for (std::size_t i = i0; i < i1; ++i) {
      const std::size_t l = (i - i0) % kChunk;
      if (wrap && l == 0) {
        for (int c = 0; c < D; ++c) {
          turn(s.p[c].data() + i, std::min(kChunk, i1 - i), def.size, table.sin, table.cos, sn[c],
               cs[c]);
        }
      }
      double v[3] = {0, 0, 0}, s2 = 0;
      for (int c = 0; c < D; ++c) {
        v[c] = double(s.v[c][i]);
        s2 += v[c] * v[c];
      }
      const double sp = std::sqrt(s2);
      q.speed += fixed_value(sp);
      if (!(sp > 0)) continue;
      q.moving += 1;
      for (int c = 0; c < D; ++c) {
        q.vhat[c] += fixed_unit(v[c] / sp);
        if (wrap) {
          q.centre_a[c] += fixed_unit(sn[c][l]);
          q.centre_b[c] += fixed_unit(cs[c][l]);
        } else {
          q.centre_a[c] += fixed_value(double(s.p[c][i]));
        }
      }
    }
  });
  Partial t;
  for (const Partial& q : s.part) {
    for (int c = 0; c < 3; ++c) {
      t.lo[c] = std::min(t.lo[c], q.lo[c]);
      t.hi[c] = std::max(t.hi[c], q.hi[c]);
    }
    t.speed += q.speed;
    t.moving += q.moving;
    for (int c = 0; c < 3; ++c) {
      t.vhat[c] += q.vhat[c];
      t.centre_a[c] += q.centre_a[c];
      t.centre_b[c] += q.centre_b[c];
    }
  }
  for (int c = D; c < 3; ++c) t.lo[c] = t.hi[c] = 0;
  m.moving = t.moving;
  m.mean_speed = double(t.speed) / kValueScale / double(n);
  double centre[3] = {0, 0, 0};
  if (t.moving > 0) {
    double pol2 = 0;
    for (int c = 0; c < D; ++c) {
      const double vh = double(t.vhat[c]) / kUnitScale;
      pol2 += vh * vh;
      if (wrap) {
        double a =
            std::atan2(double(t.centre_a[c]) / kUnitScale, double(t.centre_b[c]) / kUnitScale) /
            kTwoPi * def.size;
        centre[c] = a < 0 ? a + def.size : a;
      } else {
        centre[c] = double(t.centre_a[c]) / kValueScale / double(t.moving);
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
          if (wrap) {  // r - L*nearbyint(r/L) for |r/L| < 1, without a libm call
            const double turns = r[c] / def.size;
            r[c] -= def.size * double(int(turns > 0.5) - int(turns < -0.5));
          }
          r2 += r[c] * r[c];
        }
        if (!(v2 > 0) || !(r2 > 0)) continue;
        const double inv = 1.0 / (std::sqrt(v2) * std::sqrt(r2));
        q.mom[2] += fixed_unit((r[0] * v[1] - r[1] * v[0]) * inv);
        if (D == 3) {
          q.mom[0] += fixed_unit((r[1] * v[2] - r[2] * v[1]) * inv);
          q.mom[1] += fixed_unit((r[2] * v[0] - r[0] * v[2]) * inv);
        }
      }
    });
    FixedSum momf[3] = {0, 0, 0};
    for (const Partial& q : s.part) {
      for (int c = 0; c < 3; ++c) momf[c] += q.mom[c];
    }
    double mom[3];
    for (int c = 0; c < 3; ++c) mom[c] = double(momf[c]) / kUnitScale;
    m.milling = std::min(
        1.0, std::sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / double(t.moving));
  }
  // Pass C: the cell list.
  const ModelParams<Real> mp = ModelParams<Real>::from_def(def);
  const Grid g = make_grid(def, def.kinds[kind].rules.radius, n, t.lo, t.hi);
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
  const KindParams<Real>& kp = mp.kind[kind];
  {
    std::vector<std::uint32_t>& fill = s.size;  // reused as the scatter cursor
    fill.assign(s.start.begin(), s.start.end() - 1);
    const bool velocities = !kp.full_view;  // only the view test reads them
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t to = fill[s.cell[i]]++;
      s.sorted_cell[to] = s.cell[i];
      for (int c = 0; c < D; ++c) s.sp[c][to] = s.p[c][i];
      if (!velocities) continue;
      for (int c = 0; c < D; ++c) s.sv[c][to] = s.v[c][i];
    }
  }
  if (s.parent_cap < n) {  // padded: the pair pass reads whole batches of entries
    s.parent.reset(new std::atomic<std::uint32_t>[n + kPairPad]);
    s.parent_cap = n;
  }
  for (std::size_t i = n; i < n + kPairPad; ++i) s.parent[i].store(0, std::memory_order_relaxed);
  blocks([&](std::size_t, std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      s.parent[i].store(std::uint32_t(i), std::memory_order_relaxed);
  });
  PairInput<Real> in;
  for (int c = 0; c < D; ++c) {
    in.p[c] = s.sp[c].data();
    in.v[c] = s.sv[c].data();
  }
  in.start = s.start.data();
  in.sorted_cell = s.sorted_cell.data();
  bool five = true;
  for (int a = 0; a < 3; ++a) {
    in.n[a] = g.n[a];
    in.lo[a] = g.lo[a];
    five = five && (a >= D || g.n[a] >= 5);
  }
  in.edge = g.edge;
  in.wrap = !wrap ? PairWrap::none : five ? PairWrap::shift : PairWrap::min_image;
  in.size = mp.size;
  in.inv_size = mp.inv_size;
  in.radius2 = kp.radius2;
  in.cos_half_view = kp.cos_half_view;
  // Topological neighbours: the model sees at most the k nearest of the visible ones.
  in.topo_k = kind == 0 ? std::uint64_t(mp.list.topo_k) : 0;
  in.parent = s.parent.get();
  const PairFn<Real> pairs = select_pair_fn<Real>(D, in.wrap, !kp.full_view);
  std::vector<PairSums>& sums = s.sums;
  sums.assign(nblocks, PairSums{});
  blocks([&](std::size_t b, std::size_t i0, std::size_t i1) { pairs(in, i0, i1, sums[b]); });
  std::uint64_t neighbours = 0, nnd_count = 0;
  FixedSum nnd = 0;
  for (const PairSums& q : sums) {
    neighbours += q.neighbours;
    nnd += q.nnd;
    nnd_count += q.nnd_count;
  }
  m.mean_neighbours = double(neighbours) / double(n);
  m.mean_nnd = nnd_count > 0 ? double(nnd) / kValueScale / double(nnd_count) : 0.0;
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
