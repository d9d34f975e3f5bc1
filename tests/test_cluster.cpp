// The cluster engine (engine.kind = "cluster", core/cluster_kernels.hpp): against the naive
// stepper over the grid tests' matrix, bit-identical for every thread count and instruction
// set, its pair counts, and which path ran for rules it does not cover yet.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/cluster_kernels.hpp"
#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "core/scenario.hpp"
#include "engine_matrix.hpp"
#include "parallel/grid_engine.hpp"
#include "test_support.hpp"

using namespace boids;
using test::matrix_def;
using test::max_diff;
using test::random_state;

namespace {

// One step of naive and cluster from `init`: the largest difference over the world size. Also
// checks that the cluster kernel, not a fallback, ran (the standard pair rule).
double cluster_vs_naive(WorldDef d, const State& init) {
  d.count = std::uint32_t(init.id.size());
  d.engine = EngineKind::naive;
  const State a = test::step_once(d, init);
  d.engine = EngineKind::cluster;
  World w = World::create(d);
  w.set_state(init);
  w.step(1);
  CHECK(engine_of(w).kernel_name().rfind("cluster-", 0) == 0);
  return max_diff(a, w.state(), d.dims, d.boundary, d.size) / d.size;
}

const char* bname(Boundary b) {
  return b == Boundary::wrap ? "wrap" : b == Boundary::reflect ? "reflect" : "open";
}

WorldDef flock_def(Precision prec, int threads) {
  WorldDef d = default_world_def();
  d.engine = EngineKind::cluster;
  d.count = 3000;
  d.size = 100.0 * std::cbrt(0.3);  // default density: ~30 neighbours
  d.precision = prec;
  d.threads = threads;
  return d;
}

std::uint64_t hash_after(const WorldDef& d, int steps) {
  World w = World::create(d);
  w.step(steps);
  return w.state_hash();
}

}  // namespace

TEST_CASE("cluster matches naive after one step over dims x boundary x view x density",
          "[cluster]") {
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (int dims : {2, 3}) {
      for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
        for (double view : {360.0, 270.0, 90.0}) {
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
              CHECK(cluster_vs_naive(d, init) < 1e-5);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("cluster matches naive for tiny counts, one cell, collapsed axes, mixed kinds",
          "[cluster]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
      INFO(bname(b) << " " << dims << "D");
      for (std::uint32_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 33u}) {
        INFO("n " << n);
        CHECK(cluster_vs_naive(matrix_def(dims, b, 100, n, Precision::f32),
                               random_state(dims, n, 40.0, 8.0, n)) < 1e-5);
      }
      // Everyone in one cell (groups all overlap, separation everywhere).
      CHECK(cluster_vs_naive(matrix_def(dims, b, 100, 200, Precision::f32),
                             random_state(dims, 200, 50.0, 3.0, 11)) < 1e-5);
      CHECK(cluster_vs_naive(matrix_def(dims, b, 100, 400, Precision::f64),
                             random_state(dims, 400, 20.0, 40.0, 12, 9)) < 1e-5);
    }
    // A wrap box of 25 with r = 9: 2 cells per axis, so every axis collapses (min image).
    CHECK(cluster_vs_naive(matrix_def(dims, Boundary::wrap, 25, 300, Precision::f32),
                           random_state(dims, 300, 0.0, 24.9, 5)) < 1e-5);
    // Lattice on cell faces and the seam: boids exactly on group box faces.
    State s;
    std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
    std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
    std::uint32_t id = 0;
    const int per = dims == 3 ? 11 : 40;
    for (int i = 0; i < per; ++i)
      for (int j = 0; j < per; ++j)
        for (int k = 0; k < (dims == 3 ? per : 1); ++k) {
          const int ijk[3] = {i, j, k};
          s.id.push_back(id++);
          s.kind.push_back(0);
          for (int c = 0; c < dims; ++c) {
            p[c]->push_back(std::min(9.0 * ijk[c], std::nextafter(99.0, 0.0)));
            v[c]->push_back(c == 0 ? 1.0 : 0.5);
          }
        }
    CHECK(cluster_vs_naive(matrix_def(dims, Boundary::wrap, 99, id, Precision::f32), s) < 1e-5);
  }
}

TEST_CASE("cluster: bit-identical for any thread count", "[cluster][parallel]") {
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (Boundary b : {Boundary::wrap, Boundary::open}) {
      WorldDef d = flock_def(prec, 1);
      d.boundary = b;
      for (auto& k : d.kinds) k.rules.view_angle = 270;
      const int steps = test::steps_or_sanitized(15, 6);
      const std::uint64_t h1 = hash_after(d, steps);
      for (int t : {2, 3, 4, 8}) {
        d.threads = t;
        INFO("threads " << t << " f64 " << (prec == Precision::f64) << " boundary " << int(b));
        CHECK(hash_after(d, steps) == h1);
      }
    }
  }
}

TEST_CASE("cluster: the engine's sweep slides each row's copy from the row before it",
          "[cluster]") {
  // The blocked sweep visits y-rows in order within a plane, so the rows of a task after its
  // first reuse the previous row's stencil rows (core/cluster_row_copy.hpp): 7 x 7 x 7
  // cells here, so at most 6 x 7 rows a step, fewer where a task starts (the engine's tasks
  // hold several rows).
  for (int threads : {1, 2}) {
    WorldDef d = flock_def(Precision::f32, threads);
    World w = World::create(d);
    const std::uint64_t before = cluster_slid_rows();
    w.step(2);
    const std::uint64_t slid = cluster_slid_rows() - before;
    INFO("threads " << threads);
    CHECK(slid > 2 * 6 * 7 / 4);
    CHECK(slid <= 2 * 6 * 7);
  }
}

TEST_CASE("cluster: every instruction set, scalar included, gives the same bits", "[cluster]") {
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (int dims : {2, 3}) {
      for (Boundary boundary : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
        WorldDef d = flock_def(prec, 1);
        d.dims = dims;
        d.count = dims == 2 ? 1500 : 3000;
        d.boundary = boundary;
        if (boundary != Boundary::open)
          for (auto& k : d.kinds) k.rules.view_angle = 300;
        d.simd = false;
        World ws = World::create(d);
        CHECK(engine_of(ws).kernel_name() == "cluster-scalar");
        ws.step(15);
        const std::uint64_t scalar = ws.state_hash();
        d.simd = true;
        for (const char* isa : {"sse4.2", "avx2", "avx512"}) {
          setenv("BOIDS_MAX_ISA", isa, 1);
          INFO("isa " << isa << " (dispatched " << isa_name(dispatched_isa(true)) << ") " << dims
                      << "D f64 " << (prec == Precision::f64) << " boundary " << int(boundary));
          World w = World::create(d);
          CHECK(engine_of(w).kernel_name() ==
                std::string("cluster-") + isa_name(dispatched_isa(true)));
          w.step(15);
          CHECK(w.state_hash() == scalar);
        }
        unsetenv("BOIDS_MAX_ISA");
      }
    }
  }
}

TEST_CASE("cluster: pair counts, and the SIMD kernel's neighbour count is exact", "[cluster]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::open}) {
      WorldDef d = flock_def(Precision::f32, 2);
      d.dims = dims;
      d.boundary = b;
      if (dims == 2) d.size = 170;
      d.engine = EngineKind::grid;
      World rows = World::create(d);
      d.engine = EngineKind::cluster;
      World cl = World::create(d);
      d.engine = EngineKind::naive;
      World nv = World::create(d);
      const PairCounts pr = engine_of(rows).count_pairs();
      const PairCounts pc = engine_of(cl).count_pairs();
      const PairCounts pn = engine_of(nv).count_pairs();
      INFO(dims << "D " << bname(b) << " rows " << pr.candidates << "/" << pr.neighbours
                << " cluster " << pc.candidates << "/" << pc.neighbours);
      CHECK(pn.neighbours > 10 * d.count);  // a real flock, not an empty test
      CHECK(pc.neighbours == pn.neighbours);
      CHECK(pr.neighbours == pn.neighbours);
      // Pruning by group boxes examines fewer pairs than the whole stencil, never fewer than
      // the neighbours.
      CHECK(pc.candidates >= pc.neighbours);
      CHECK(pc.candidates < pr.candidates * 3 / 4);
      // The kernel pass (SIMD, integer popcounts) finds exactly the scalar count.
      grid_build_cells(cl);
      CHECK(grid_neighbour_pass(cl) == pc.neighbours);
    }
  }
}

TEST_CASE("cluster: rules it does not cover run the row path's generic kernel", "[cluster]") {
  for (int variant = 0; variant < 2; ++variant) {
    WorldDef d = matrix_def(2, Boundary::wrap, 100, 400, Precision::f64);
    if (variant == 0) {
      d.profile = Profile::abm;
      d.kinds[0].motion.min_speed = d.kinds[0].motion.max_speed;
    } else {
      d.kinds[0].behaviour.closest_separation = 1;
    }
    const State init = random_state(2, 400, 0.0, 99.0, 3);
    d.engine = EngineKind::cluster;
    World w = World::create(d);
    INFO("variant " << variant);
    CHECK(engine_of(w).kernel_name() == "generic");
    w.set_state(init);
    w.step(1);
    d.engine = EngineKind::naive;
    CHECK(max_diff(test::step_once(d, init), w.state(), 2, d.boundary, d.size) / d.size < 1e-5);
  }
}

TEST_CASE("cluster: engine.kind names, and the round trip through scenario TOML", "[cluster]") {
  const std::string base = std::string(default_scenario_text());
  CHECK(parse_scenario(base, "s.toml", {"engine.kind=\"cluster\""}).engine == EngineKind::cluster);
  CHECK(parse_scenario(base, "s.toml", {"engine.kind=\"grid-rows\""}).engine == EngineKind::grid);
  CHECK(parse_scenario(base, "s.toml", {"engine.kind=\"grid\""}).engine == EngineKind::grid);
  WorldDef d = parse_scenario(base, "s.toml", {"engine.kind=\"cluster\""});
  CHECK(parse_scenario(scenario_to_toml(d), "again.toml").engine == EngineKind::cluster);
  try {
    parse_scenario(base, "s.toml", {"engine.kind=\"clusters\""});
    FAIL("an unknown engine name was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("\"cluster\"") != std::string::npos);
  }
}
