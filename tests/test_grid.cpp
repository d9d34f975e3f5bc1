// The grid engine against the naive stepper (the source of truth): one step over a matrix of
// worlds and awkward placements, and 200 steps of a real flock. Plus the cell planner's
// fallbacks. Timings never appear here (bench/ has them).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "core/engine.hpp"
#include "engine_matrix.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/grid_engine.hpp"
#include "test_support.hpp"

using namespace boids;
using test::matrix_def;
using test::max_diff;
using test::random_state;

namespace {

// One step of both engines from `init`; returns the largest difference over the world size.
double grid_vs_naive(WorldDef d, const State& init, int steps = 1) {
  d.count = std::uint32_t(init.id.size());
  d.engine = EngineKind::naive;
  const State a = test::step_once(d, init, steps);
  d.engine = EngineKind::grid;
  const State b = test::step_once(d, init, steps);
  return max_diff(a, b, d.dims, d.boundary, d.size) / d.size;
}

const char* bname(Boundary b) {
  return b == Boundary::wrap ? "wrap" : b == Boundary::reflect ? "reflect" : "open";
}

}  // namespace

TEST_CASE("grid matches naive after one step over dims x boundary x view x density", "[grid]") {
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (int dims : {2, 3}) {
      for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
        for (double view : {360.0, 270.0, 90.0}) {
          // (count, extent): sparse with empty cells, ~30 neighbours, very dense.
          const std::pair<std::uint32_t, double> densities[] = {
              {60, 100.0}, {dims == 3 ? 900u : 500u, dims == 3 ? 45.0 : 70.0}, {300, 12.0}};
          for (auto [n, extent] : densities) {
            for (int cpr : {1, 2}) {
              WorldDef d = matrix_def(dims, b, 100.0, n, prec);
              d.cells_per_radius = cpr;
              for (auto& k : d.kinds) k.rules.view_angle = view;
              const State init = random_state(dims, n, 0.0, std::min(extent, 99.9), n + 7 * dims);
              INFO(bname(b) << " " << dims << "D view " << view << " n " << n << " extent "
                            << extent << " cpr " << cpr << " f64 " << (prec == Precision::f64));
              CHECK(grid_vs_naive(d, init) < 1e-5);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("grid matches naive for tiny counts, one cell and predators/leaders", "[grid]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
      INFO(bname(b) << " " << dims << "D");
      for (std::uint32_t n : {0u, 1u, 2u, 3u, 7u, 15u, 17u}) {
        INFO("n " << n);
        CHECK(grid_vs_naive(matrix_def(dims, b, 100, n, Precision::f32),
                            random_state(dims, n, 40.0, 8.0, n)) < 1e-5);
      }
      // Everyone in one cell (dense: separation everywhere), and a mixed-kind crowd: kinds
      // only see their own kind, and boids never count predators as flockmates.
      CHECK(grid_vs_naive(matrix_def(dims, b, 100, 200, Precision::f32),
                          random_state(dims, 200, 50.0, 3.0, 11)) < 1e-5);
      CHECK(grid_vs_naive(matrix_def(dims, b, 100, 400, Precision::f64),
                          random_state(dims, 400, 20.0, 40.0, 12, 9)) < 1e-5);
    }
  }
}

TEST_CASE("grid matches naive with boids on cell edges and on the wrap seam", "[grid]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
      // Lattices at multiples of the radius and of size / cells (10 cells of 10 in a box of
      // 100 with r = 9), including x = 0 and the last float below size, so boids sit exactly
      // on cell faces and on both sides of the seam.
      for (double step : {9.0, 10.0, 100.0 / 11.0}) {
        State s;
        std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
        std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
        std::uint32_t id = 0;
        const double below = std::nextafter(100.0f, 0.0f);
        std::vector<double> coords;
        for (double x = 0; x < 100; x += step) coords.push_back(x);
        coords.push_back(below);
        for (std::size_t i = 0; i < coords.size(); ++i) {
          for (std::size_t j = 0; j < coords.size(); j += (dims == 3 ? 3 : 1)) {
            s.id.push_back(id);
            s.kind.push_back(0);
            const double pos[3] = {coords[i], coords[j], coords[(i + j) % coords.size()]};
            for (int c = 0; c < dims; ++c) {
              p[c]->push_back(pos[c]);
              v[c]->push_back(((id * 7 + std::uint32_t(c) * 3) % 9) * 0.5 - 2.0);
            }
            ++id;
          }
        }
        for (int cpr : {1, 2}) {
          WorldDef d = matrix_def(dims, b, 100, id, Precision::f32);
          d.cells_per_radius = cpr;
          INFO(bname(b) << " " << dims << "D lattice step " << step << " cpr " << cpr);
          CHECK(grid_vs_naive(d, s) < 1e-5);
        }
      }
    }
  }
}

TEST_CASE("grid matches naive when a wrapping axis has fewer than 3 cells", "[grid]") {
  // size 20, r = 9: 2 cells of r per axis, too few for the stencil, so the axis collapses to
  // one cell with the per-pair minimum image; size 30 keeps 3 cells but not 5 for r / 2.
  for (double size : {20.0, 30.0}) {
    for (int dims : {2, 3}) {
      for (int cpr : {1, 2}) {
        WorldDef d = matrix_def(dims, Boundary::wrap, size, 150, Precision::f32);
        d.cells_per_radius = cpr;
        for (auto& k : d.kinds) k.motion.max_speed = 4;
        INFO("size " << size << " " << dims << "D cpr " << cpr);
        CHECK(grid_vs_naive(d, random_state(dims, 150, 0.0, size * 0.999, 5)) < 1e-5);
      }
    }
  }
}

TEST_CASE("the cell planner caps the grid and collapses short wrapping axes", "[grid]") {
  const double lo[3] = {-1e6, -1e6, -1e6}, hi[3] = {1e6, 1e6, 1e6};
  GridSettings gs;
  gs.boundary = Boundary::open;
  gs.radius = 1;
  // A flock spread over 2e6 u with r = 1 would want 8e18 cells; it gets at most one per two
  // boids, and not much fewer (the planner grows cells by 1.25x steps).
  GridPlan p = plan_grid(gs, lo, hi, 1000);
  CHECK(p.ncells <= 500);
  CHECK(p.ncells >= 100);
  CHECK(p.ncells >= 1);
  CHECK(p.reach[0] == 1);
  gs.boundary = Boundary::wrap;
  gs.size = 20;
  gs.radius = 9;
  p = plan_grid(gs, lo, hi, 1000);
  CHECK(p.n[0] == 1);
  CHECK(p.reach[0] == 0);
  CHECK(p.wrap == WrapMode::min_image);
  gs.size = 100;
  p = plan_grid(gs, lo, hi, 100000);
  CHECK(p.n[0] == 11);  // floor(100 / 9.0009...)
  CHECK(p.reach[0] == 1);
  CHECK(p.wrap == WrapMode::shift);
  gs.cells_per_radius = 2;
  p = plan_grid(gs, lo, hi, 100000);
  CHECK(p.n[0] == 22);
  CHECK(p.reach[0] == 2);
}

TEST_CASE("a widely spread open flock stays correct with capped cells", "[grid]") {
  // Two clusters 1e5 apart: the bounding box is huge, the cap makes cells far bigger than r.
  State s = random_state(3, 300, 0.0, 30.0, 3);
  for (std::size_t i = 150; i < 300; ++i) s.x[i] += 1e5;
  WorldDef d = matrix_def(3, Boundary::open, 100, 300, Precision::f64);
  CHECK(grid_vs_naive(d, s) < 1e-5);
}

TEST_CASE("200 steps of 3,000 boids: grid and naive stay close and agree on the flock",
          "[grid][slow]") {
  // Float, 3D wrap, ~30 neighbours. The engines differ only in summation order (~1e-7
  // relative per step); flocking is chaotic, so per-boid differences grow over the run, but the
  // flock-level outcomes are robust. Bounds: the median boid is within 0.5 u of its naive
  // twin after 200 steps (0.8% of the box), and mean speed and polarisation agree within 1%
  // and 0.01 (docs/engine.md). 3,000 boids rather than 5,000: the naive side is O(n^2) and was
  // CI's longest test (100 s); the density, and so the chaos per boid, is the same.
  WorldDef d = default_world_def();
  d.count = 3000;
  d.size = 100.0 * std::cbrt(0.3);
  d.threads = 1;
  d.engine = EngineKind::naive;
  World a = test::create_checked(d);
  d.engine = EngineKind::grid;
  World b = test::create_checked(d);
  a.step(200);
  b.step(200);
  const State sa = a.state(), sb = b.state();
  std::vector<double> dist;
  auto flock = [](const State& s, double& speed, double& pol) {
    double vx = 0, vy = 0, vz = 0;
    speed = 0;
    for (std::size_t i = 0; i < s.id.size(); ++i) {
      const double sp = std::sqrt(s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
      speed += sp;
      vx += s.vx[i] / sp;
      vy += s.vy[i] / sp;
      vz += s.vz[i] / sp;
    }
    speed /= double(s.id.size());
    pol = std::sqrt(vx * vx + vy * vy + vz * vz) / double(s.id.size());
  };
  for (std::size_t i = 0; i < sa.id.size(); ++i) {
    double d2 = 0;
    const double da[3] = {sa.x[i] - sb.x[i], sa.y[i] - sb.y[i], sa.z[i] - sb.z[i]};
    for (double c : da) {
      const double w = c - d.size * std::nearbyint(c / d.size);
      d2 += w * w;
    }
    dist.push_back(std::sqrt(d2));
  }
  std::nth_element(dist.begin(), dist.begin() + dist.size() / 2, dist.end());
  CHECK(dist[dist.size() / 2] < 0.5);
  double speed_a, pol_a, speed_b, pol_b;
  flock(sa, speed_a, pol_a);
  flock(sb, speed_b, pol_b);
  CHECK(speed_b == Approx(speed_a).epsilon(0.01));
  CHECK(pol_b == Approx(pol_a).margin(0.01));
}

TEST_CASE("grid reports its kernel, bytes per boid and pair counts", "[grid]") {
  WorldDef d = default_world_def();
  d.count = 2000;
  d.size = 100.0 * std::cbrt(0.2);  // same density as the default scenario: ~30 neighbours
  d.threads = 1;
  World w = test::create_checked(d);
  // The best instruction set this CPU and build have (BOIDS_MAX_ISA aside), asked of the CPU.
  CHECK(engine_of(w).kernel_name() == isa_name(test::expected_isa()));
  d.simd = false;
  CHECK(engine_of(test::create_checked(d)).kernel_name() == "scalar");
  d.simd = true;
  w.step(1);
  CHECK(engine_of(w).bytes_per_boid() > 2 * BoidStore<float>::bytes_per_boid());
  CHECK(engine_of(w).bytes_per_boid() < 120);
  const PairCounts pc = engine_of(w).count_pairs();
  // Naive counts the same neighbours (the useful pairs do not depend on the search).
  d.engine = EngineKind::naive;
  World nw = test::create_checked(d);
  nw.set_state(w.state());
  const PairCounts pn = engine_of(nw).count_pairs();
  CHECK(pc.neighbours == pn.neighbours);
  CHECK(pc.neighbours > 20u * 2000u);
  CHECK(pc.candidates > pc.neighbours);
  CHECK(pc.candidates < pn.candidates / 5);
  // The bench hooks: the kernel alone finds the same neighbours, the build alone changes
  // nothing.
  const std::uint64_t h = w.state_hash();
  grid_build_cells(w);
  CHECK(grid_neighbour_pass(w) == pc.neighbours);
  CHECK(w.state_hash() == h);
}
