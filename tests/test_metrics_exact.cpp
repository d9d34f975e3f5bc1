// The metrics pair pass (parallel/metrics_pairs*.cpp) against the model itself: neighbour
// counts equal to the naive stepper's own count (naive_sums) bit for bit, in float and double,
// in every wrap mode of the pass; the same bits on every instruction set; and the same bits
// whether the world's engine keeps slots in id order (naive) or in cell order (grid).
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "boids/metrics.hpp"
#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "metrics_fixture.hpp"
#include "parallel/grid_engine.hpp"
#include "parallel/metrics_pairs.hpp"
#include "test_support.hpp"

namespace {

using boids::Boundary;
using boids::FlockMetrics;
using boids::State;
using boids::WorldDef;

WorldDef exact_def(int dims, Boundary bnd, boids::Precision prec, double size, double radius,
                   double view, std::uint32_t count) {
  WorldDef d = boids::test::tiny_def(dims, size, bnd, count);
  d.precision = prec;
  d.engine = boids::EngineKind::naive;
  d.kinds[0].rules.radius = radius;
  d.kinds[0].rules.separation_radius = std::min(1.0, radius);
  d.kinds[0].rules.view_angle = view;
  return d;
}

// Uniform positions in [0, size), some boids sharing a position (distance 0), some at rest.
State exact_state(const WorldDef& d, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> pos, vel;
  for (std::uint32_t i = 0; i < d.count; ++i) {
    for (int c = 0; c < d.dims; ++c) {
      pos.push_back(i % 23 == 5 && i > 0 ? pos[pos.size() - std::size_t(d.dims)] : d.size * u(g));
      vel.push_back(i % 13 == 2 ? 0.0 : 4 * u(g) - 2);
    }
  }
  return boids::test::make_state(d.dims, pos, vel);
}

template <class Real>
std::uint64_t model_neighbours(const boids::World& w) {
  const auto& e = dynamic_cast<const boids::EngineT<Real>&>(boids::engine_of(w));
  const boids::BoidStore<Real>& s = e.slots();
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < s.n; ++i) {
    if (s.kind[i] != 0) continue;
    total += std::uint64_t(w.dims() == 3 ? boids::naive_sums<Real, 3>(e.params(), s, i).k
                                         : boids::naive_sums<Real, 2>(e.params(), s, i).k);
  }
  return total;
}

}  // namespace

TEST_CASE("metrics count neighbours exactly as the model does, float and double", "[metrics]") {
  // Box 60 with radius 2.5 gives 23 cells per axis (image shifts per stencil run); radius 14
  // gives 4 (per-pair minimum image); reflect clamps the stencil.
  for (auto prec : {boids::Precision::f32, boids::Precision::f64}) {
    for (int dims : {2, 3}) {
      for (Boundary bnd : {Boundary::wrap, Boundary::reflect}) {
        for (double radius : {2.5, 14.0}) {
          for (double view : {360.0, 230.0}) {
            const std::uint32_t count = dims == 3 ? 3000 : 1500;
            const WorldDef d = exact_def(dims, bnd, prec, 60, radius, view, count);
            boids::World w = boids::World::create(d);
            w.set_state(exact_state(d, unsigned(dims * 7 + int(radius))));
            INFO("f32 " << (prec == boids::Precision::f32) << " dims " << dims << " boundary "
                        << int(bnd) << " radius " << radius << " view " << view);
            const std::uint64_t total = prec == boids::Precision::f32 ? model_neighbours<float>(w)
                                                                      : model_neighbours<double>(w);
            const FlockMetrics m = boids::compute_metrics(w);
            CHECK(total > count / 2);  // enough pairs to mean something
            CHECK(m.mean_neighbours == double(total) / double(count));
          }
        }
      }
    }
  }
}

TEST_CASE("metrics give the same bits on every instruction set", "[metrics]") {
  for (auto prec : {boids::Precision::f32, boids::Precision::f64}) {
    for (int dims : {2, 3}) {
      for (double radius : {2.5, 14.0}) {
        for (double view : {360.0, 230.0}) {
          const WorldDef d = exact_def(dims, Boundary::wrap, prec, 60, radius, view, 2500);
          boids::World w = boids::World::create(d);
          w.set_state(exact_state(d, 3));
          INFO("f32 " << (prec == boids::Precision::f32) << " dims " << dims << " radius " << radius
                      << " view " << view);
          FlockMetrics ref;
          {
            boids::test::MaxIsaScope cap(boids::Isa::scalar);
            ref = boids::MetricsCalculator(1).compute(w);
          }
          CHECK(ref.mean_neighbours > 0);
          for (boids::Isa isa : boids::test::testable_isas()) {
            boids::test::MaxIsaScope cap(isa);
            INFO("isa " << boids::isa_name(isa));
            CHECK(boids::test::same_metrics(boids::MetricsCalculator(2).compute(w), ref));
          }
        }
      }
    }
  }
}

TEST_CASE("metrics of a grid world equal those of the same state in a naive world",
          "[metrics][parallel]") {
  // The grid engine keeps its boids in cell order, kinds apart: the metrics gather them back
  // in id order through its rank map, so every sum sees the same order as in a naive world.
  for (int dims : {2, 3}) {
    WorldDef d = boids::default_world_def();
    d.dims = dims;
    d.count = 6000;
    d.predators = 40;
    d.size = dims == 3 ? 80 : 400;
    d.engine = boids::EngineKind::grid;
    boids::World grid = boids::World::create(d);
    grid.step(4);
    WorldDef n = d;
    n.engine = boids::EngineKind::naive;
    boids::World naive = boids::World::create(n);
    naive.set_state(grid.state());
    for (int kind : {0, 1}) {
      INFO("dims " << dims << " kind " << kind);
      const FlockMetrics a = boids::MetricsCalculator(2).compute(grid, kind);
      const FlockMetrics b = boids::MetricsCalculator(1).compute(naive, kind);
      CHECK(a.count > 0);
      CHECK(a.mean_neighbours > 0);
      CHECK(boids::test::same_metrics(a, b));
    }
  }
}

// `clumps` clumps of base + c % spread boids each, within a cube of edge `width`, in a box of 80
// with radius 2; the metrics' clusters against an O(n^2) union-find in double, which equals the
// pass's float test because no pair lies within 1e-3 of the radius.
void check_clumps(unsigned seed, int clumps, int base, int spread, double width, std::uint64_t lo,
                  std::uint64_t hi) {
  for (Boundary bnd : {Boundary::wrap, Boundary::reflect}) {
    WorldDef d = exact_def(3, bnd, boids::Precision::f32, 80, 2.0, 360, 0);
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> pos, vel;
    for (int c = 0; c < clumps; ++c) {
      const double cx = 4 + 72 * u(g), cy = 4 + 72 * u(g), cz = 4 + 72 * u(g);
      for (int k = 0; k < base + c % spread; ++k) {
        pos.insert(pos.end(), {cx + width * u(g), cy + width * u(g), cz + width * u(g)});
        vel.insert(vel.end(), {u(g) - 0.5, u(g) - 0.5, u(g) - 0.5});
      }
    }
    const std::size_t n = pos.size() / 3;
    d.count = std::uint32_t(n);
    boids::World w = boids::World::create(d);
    w.set_state(boids::test::make_state(3, pos, vel));
    const State s = w.state();  // the float positions
    std::vector<std::size_t> root(n);
    for (std::size_t i = 0; i < n; ++i) root[i] = i;
    auto find = [&](std::size_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    bool near_edge = false;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const double dx = s.x[j] - s.x[i], dy = s.y[j] - s.y[i], dz = s.z[j] - s.z[i];
        const double dist = std::sqrt(dx * dx + dy * dy + dz * dz);
        near_edge = near_edge || std::fabs(dist - 2.0) < 1e-3;
        if (dist < 2.0) root[find(i)] = find(j);
      }
    }
    REQUIRE_FALSE(near_edge);
    std::vector<std::size_t> size(n, 0);
    std::uint64_t clusters = 0;
    std::size_t largest = 0;
    for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, ++size[find(i)]);
    for (std::size_t i = 0; i < n; ++i) clusters += find(i) == i;
    INFO("boundary " << int(bnd) << " boids " << n << " clusters " << clusters);
    CHECK(clusters > lo);
    CHECK(clusters < hi);
    const FlockMetrics ref = boids::MetricsCalculator(1).compute(w);
    CHECK(ref.clusters == clusters);
    CHECK(ref.largest_cluster == double(largest) / double(n));
    for (boids::Isa isa : boids::test::testable_isas()) {
      boids::test::MaxIsaScope cap(isa);
      for (int threads : {1, 2, 3}) {
        INFO("isa " << boids::isa_name(isa) << " threads " << threads);
        CHECK(boids::test::same_metrics(boids::MetricsCalculator(threads).compute(w), ref));
      }
    }
  }
}

TEST_CASE("metrics find the clusters of a brute-force union-find, clumped, on any thread count",
          "[metrics][parallel]") {
  // 240 clumps of 1 to 24 boids (cells of up to 24 boids: several SIMD groups per cell, and
  // blocks of the parallel loop split cells), the radius just above a clump's size, so most
  // clumps are clusters of their own and some touch: the cluster count is in the hundreds
  // and every link matters; many cells hold more than one cluster (the link pass's cells
  // that are not one set).
  check_clumps(41, 240, 1, 24, 1.2, 100, 240);
}

TEST_CASE("metrics find the clusters of large clumps (cells of more than 64 boids)",
          "[metrics][parallel]") {
  // 30 tight clumps of 70 to 129 boids: most lie in one or two cells, so cells hold more than
  // 64 boids and the link pass unites their own pairs one by one instead of by bit masks.
  check_clumps(42, 30, 70, 60, 0.5, 10, 31);
}

TEST_CASE("metrics sums in SIMD lanes equal the one-boid loop at extreme values, kinds mixed",
          "[metrics]") {
  // Passes A and B form each fixed-point term in double lanes split below 2^32 and add them
  // exactly (parallel/metrics_moments.hpp); the scalar unit is the one-boid loop. Positions
  // beyond the 2^50 clamp, speeds from 1e-20 to 1e12, boids at rest, another kind's boids
  // interleaved (their lanes must add nothing), and counts that leave partial lane sets and
  // partial 256-boid chunks: every instruction set must give the scalar loop's bits, and the
  // speed and polarization must equal a direct long double computation to rounding.
  for (Boundary bnd : {Boundary::open, Boundary::wrap}) {
    for (int dims : {2, 3}) {
      WorldDef d = exact_def(dims, bnd, boids::Precision::f64, 1000, 5.0, 360, 0);
      std::mt19937_64 g(unsigned(7 * dims + int(bnd)));
      std::uniform_real_distribution<double> u(0, 1);
      std::vector<double> pos, vel;
      const std::uint32_t count = 2 * 2048 + 517;
      for (std::uint32_t i = 0; i < count; ++i) {
        const double scale = i % 5 == 0 ? 1e12 : i % 5 == 1 ? 1e-20 : i % 5 == 2 ? 0.0 : 3.0;
        for (int c = 0; c < dims; ++c) {
          double x = d.size * u(g);
          if (bnd == Boundary::open && i % 11 == 3) x = (u(g) < 0.5 ? -3e15 : 3e15) * u(g);
          pos.push_back(x);
          vel.push_back(scale * (2 * u(g) - 1));
        }
      }
      State st = boids::test::make_state(dims, pos, vel);
      std::uint32_t others = 0;
      for (std::uint32_t i = 0; i < count; ++i) {
        if (i % 7 != 4) continue;
        st.kind[i] = 1;
        ++others;
      }
      d.count = count;
      d.predators = others;
      boids::World w = boids::World::create(d);
      w.set_state(st);
      const State s = w.state();
      long double speed = 0, vh[3] = {0, 0, 0};
      std::uint64_t n = 0, moving = 0;
      for (std::size_t i = 0; i < s.id.size(); ++i) {
        if (s.kind[i] != 0) continue;
        const double v[3] = {s.vx[i], s.vy[i], dims == 3 ? s.vz[i] : 0.0};
        const double sp = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        ++n;
        speed += sp;
        if (!(sp > 0)) continue;
        ++moving;
        for (int c = 0; c < 3; ++c) vh[c] += v[c] / sp;
      }
      const double pol =
          double(std::sqrt(vh[0] * vh[0] + vh[1] * vh[1] + vh[2] * vh[2]) / (long double)moving);
      INFO("boundary " << int(bnd) << " dims " << dims);
      FlockMetrics ref;
      {
        boids::test::MaxIsaScope cap(boids::Isa::scalar);
        ref = boids::MetricsCalculator(1).compute(w);
      }
      CHECK(ref.count == n);
      CHECK(ref.moving == moving);
      CHECK(ref.mean_speed == Approx(double(speed / (long double)n)).epsilon(1e-12));
      CHECK(ref.polarization == Approx(pol).epsilon(1e-9).margin(1e-12));
      CHECK(ref.milling > 0);
      for (boids::Isa isa : boids::test::testable_isas()) {
        boids::test::MaxIsaScope cap(isa);
        for (int threads : {1, 2}) {
          INFO("isa " << boids::isa_name(isa) << " threads " << threads);
          CHECK(boids::test::same_metrics(boids::MetricsCalculator(threads).compute(w), ref));
        }
      }
    }
  }
}

TEST_CASE("the metrics pair pass spans focal groups over sparse cells, with the same sums",
          "[metrics]") {
  // parallel/metrics_pairs_impl.hpp (plan_row): a focal group may take 2 or 3 cells of an x-row
  // when their boids then fill fewer registers. The pass over the grid engine's cell list,
  // called directly: the SIMD sets must span groups at this density (about 2 boids per cell),
  // the one-lane scalar pass never does, and every set gives the scalar pass's sums and links.
  namespace md = boids::metrics_detail;
  for (Boundary bnd : {Boundary::wrap, Boundary::reflect}) {
    WorldDef d = exact_def(3, bnd, boids::Precision::f32, 60, 3.0, 360, 16000);
    d.engine = boids::EngineKind::grid;
    boids::World w = boids::World::create(d);
    w.set_state(exact_state(d, 5));
    boids::SharedCells<float> sh;
    REQUIRE(boids::grid_shared_cells<float>(w, sh));
    md::PairInput<float> in;
    for (int c = 0; c < 3; ++c) {
      in.p[c] = sh.p[c];
      in.v[c] = sh.v[c];
      in.n[c] = sh.n[c];
      in.lo[c] = sh.lo[c];
    }
    REQUIRE(in.n[0] >= 6);
    in.start = sh.cell_start;
    in.edge = sh.edge * (1 - 1e-9);
    in.wrap = bnd == Boundary::wrap ? md::PairWrap::shift : md::PairWrap::none;
    in.size = float(d.size);
    in.inv_size = float(1 / d.size);
    in.radius2 = 9.0f;
    const std::size_t n =
        sh.cell_start[std::size_t(in.n[0]) * std::size_t(in.n[1]) * std::size_t(in.n[2])];
    REQUIRE(n == 16000);
    REQUIRE(sh.readable >= n + md::kPairRead);
    const std::size_t ncells = std::size_t(in.n[0]) * std::size_t(in.n[1]) * std::size_t(in.n[2]);
    std::vector<std::uint8_t> uniform(ncells);
    in.uniform = uniform.data();
    auto pass = [&](std::vector<std::uint32_t>& roots) {
      std::vector<std::atomic<std::uint32_t>> parent(n + md::kPairPad);
      for (std::size_t i = 0; i < parent.size(); ++i) parent[i].store(std::uint32_t(i));
      in.parent = parent.data();
      md::PairSums sums;
      md::select_pair_fn<float>(3, in.wrap, false)(in, 0, n, sums);
      const md::LinkFn<float> links = md::select_link_fn<float>(3, in.wrap);
      links(in, 0, ncells, 0, sums);
      links(in, 0, ncells, 1, sums);
      roots.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t r = std::uint32_t(i);
        while (parent[r].load() != r) r = parent[r].load();
        roots[i] = r;
      }
      return sums;
    };
    std::vector<std::uint32_t> ref_roots, roots;
    md::PairSums ref;
    {
      boids::test::MaxIsaScope cap(boids::Isa::scalar);
      ref = pass(ref_roots);
    }
    CHECK(ref.spanned == 0);
    // The links by cells (every set, scalar too): each cell meets the non-empty ones of its 13
    // earlier neighbours (about 2 boids a cell here), and many of those pairs are already
    // joined (no distance computed).
    CHECK(ref.cell_pairs > ncells * 6);
    CHECK(ref.joined > ref.cell_pairs / 3);
    CHECK(ref.neighbours > n);
    CHECK(ref.nnd_count == n);
    for (boids::Isa isa : boids::test::testable_isas()) {
      if (isa == boids::Isa::scalar) continue;
      boids::test::MaxIsaScope cap(isa);
      INFO("isa " << boids::isa_name(isa) << " wrap " << (bnd == Boundary::wrap));
      const md::PairSums s = pass(roots);
      CHECK(s.spanned > n / 100);
      CHECK(s.cell_pairs == ref.cell_pairs);
      CHECK(s.joined > s.cell_pairs / 3);
      CHECK(s.neighbours == ref.neighbours);
      CHECK(s.nnd == ref.nnd);
      CHECK(s.nnd_count == ref.nnd_count);
      CHECK(roots == ref_roots);  // the same components, each under its smallest index
    }
  }
}
