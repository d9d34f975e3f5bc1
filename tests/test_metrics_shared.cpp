// The flock metrics on the grid engine's own cell list (parallel/grid_engine.hpp:
// grid_shared_cells): the row of a state builds the cell list the next step reads, and the step
// then does not build it again. Guards: the run's states are bit for bit those of a run without
// metrics, also when a view, a def change or a state change comes between the row and the
// step; the metrics equal those of the same state in a naive world (the metrics' own cells);
// and the engines whose cells are not of that shape are refused.
#include <catch2/catch.hpp>

#include <algorithm>

#include "boids/metrics.hpp"
#include "metrics_fixture.hpp"
#include "parallel/grid_engine.hpp"
#include "test_support.hpp"

namespace {

using boids::Boundary;
using boids::FlockMetrics;
using boids::WorldDef;

template <class Real>
bool shares(const boids::World& w) {
  boids::SharedCells<Real> c;
  return boids::grid_shared_cells<Real>(w, c);
}

bool shares(const boids::World& w) {
  return w.precision() == boids::Precision::f32 ? shares<float>(w) : shares<double>(w);
}

FlockMetrics naive_metrics(const boids::World& w, int kind = 0) {
  WorldDef n = w.def();
  n.engine = boids::EngineKind::naive;
  boids::World naive = boids::World::create(n);
  naive.set_state(w.state());
  return boids::MetricsCalculator(1).compute(naive, kind);
}

WorldDef shared_def(int dims, Boundary bnd, boids::Precision prec, double view) {
  WorldDef d = boids::default_world_def();
  d.dims = dims;
  d.boundary = bnd;
  d.precision = prec;
  d.count = 8000;
  d.size = dims == 3 ? 90 : 500;
  d.kinds[0].rules.view_angle = view;
  d.engine = boids::EngineKind::grid;
  return d;
}

}  // namespace

TEST_CASE("metrics share the grid engine's cell list and leave the run's states unchanged",
          "[metrics][parallel]") {
  struct Case {
    int dims;
    Boundary bnd;
    boids::Precision prec;
    double view;
  };
  for (const Case& k : {Case{3, Boundary::wrap, boids::Precision::f32, 360},
                        Case{2, Boundary::reflect, boids::Precision::f64, 360},
                        Case{3, Boundary::open, boids::Precision::f32, 240}}) {
    INFO("dims " << k.dims << " boundary " << int(k.bnd) << " view " << k.view);
    const WorldDef d = shared_def(k.dims, k.bnd, k.prec, k.view);
    boids::World with = boids::World::create(d);
    boids::World without = boids::World::create(d);
    boids::MetricsCalculator calc(2);
    for (int round = 0; round < 8; ++round) {
      INFO("round " << round);
      CHECK(shares(with));  // this shape of grid is shared (and now built for the next step)
      const FlockMetrics m = calc.compute(with);
      CHECK(m.count == d.count);
      CHECK(m.mean_neighbours > 0);
      if (round % 4 == 1) {  // a view rewrites the cell order's id column: built again
        CHECK(with.state_hash() == without.state_hash());
        if (k.prec == boids::Precision::f32)
          CHECK(with.positions<float>().x[0] == without.positions<float>().x[0]);
        else
          CHECK(with.positions<double>().x[0] == without.positions<double>().x[0]);
      } else if (round % 4 == 2) {  // another radius: other cells
        WorldDef e = with.def();
        e.kinds[0].rules.radius += 1.5;
        with.set_def(e);
        without.set_def(e);
      } else if (round % 4 == 3) {  // a metrics row of the same state twice, then a new state
        CHECK(boids::test::same_metrics(calc.compute(with), m));
        CHECK(boids::test::same_metrics(m, naive_metrics(with)));
        with.set_state(with.state());
        without.set_state(without.state());
      }
      with.step(1);
      without.step(1);
      CHECK(with.state_hash() == without.state_hash());
    }
    CHECK(boids::test::same_metrics(calc.compute(with), naive_metrics(with)));
  }
}

TEST_CASE("metrics build their own cells where the engine's are not shared", "[metrics]") {
  WorldDef half = shared_def(3, Boundary::wrap, boids::Precision::f32, 360);
  half.cells_per_radius = 2;  // half-radius cells, searched two out
  WorldDef cluster = shared_def(3, Boundary::wrap, boids::Precision::f32, 360);
  cluster.engine = boids::EngineKind::cluster;  // cells in cluster order
  WorldDef naive = shared_def(3, Boundary::wrap, boids::Precision::f32, 360);
  naive.engine = boids::EngineKind::naive;
  for (const WorldDef& d : {half, cluster, naive}) {
    boids::World w = boids::World::create(d);
    if (d.engine != boids::EngineKind::naive) w.step(2);  // the naive step is O(n^2)
    CHECK_FALSE(shares(w));
    const FlockMetrics m = boids::MetricsCalculator(2).compute(w);
    CHECK(m.mean_neighbours > 0);
    CHECK(boids::test::same_metrics(m, naive_metrics(w)));
  }
  // A grid world of that shape shares them, and its metrics are the same bits.
  boids::World grid =
      boids::World::create(shared_def(3, Boundary::wrap, boids::Precision::f32, 360));
  grid.step(2);
  CHECK(shares(grid));
  CHECK(boids::test::same_metrics(boids::MetricsCalculator(2).compute(grid), naive_metrics(grid)));
}

namespace {
// The engine's cell list of the current state, only when it is built already.
bool built(const boids::World& w) {
  if (w.precision() == boids::Precision::f32) {
    boids::SharedCells<float> c;
    return boids::grid_shared_cells<float>(w, c, /*build=*/false);
  }
  boids::SharedCells<double> c;
  return boids::grid_shared_cells<double>(w, c, /*build=*/false);
}
}  // namespace

TEST_CASE("compute_final gives compute()'s bits without building the engine's cell list",
          "[metrics][parallel]") {
  WorldDef pred = shared_def(3, Boundary::wrap, boids::Precision::f32, 360);
  pred.predators = 30;
  for (const WorldDef& d : {shared_def(3, Boundary::wrap, boids::Precision::f32, 360),
                            shared_def(2, Boundary::reflect, boids::Precision::f64, 360),
                            shared_def(3, Boundary::open, boids::Precision::f32, 240), pred}) {
    INFO("dims " << d.dims << " boundary " << int(d.boundary) << " predators " << d.predators);
    boids::World w = boids::World::create(d);
    boids::World without = boids::World::create(d);
    w.step(2);
    without.step(2);
    boids::MetricsCalculator calc(2);
    for (int kind : {0, 1}) {
      if (kind == 1 && d.predators == 0) continue;
      INFO("kind " << kind);
      CHECK_FALSE(built(w));  // a step leaves the next state's cells unbuilt
      const FlockMetrics f = calc.compute_final(w, kind);
      CHECK(f.count == (kind == 0 ? d.count - d.predators : d.predators));  // count: all kinds
      CHECK(f.mean_neighbours > 0);
      CHECK_FALSE(built(w));  // the row sorted the boids itself
      const FlockMetrics m = calc.compute(w, kind);
      CHECK(built(w) == (kind == 0));  // compute() builds them for the next step (kind 0)
      CHECK(boids::test::same_metrics(f, m));
      CHECK(boids::test::same_metrics(calc.compute_final(w, kind), m));  // on the built list
      CHECK(boids::test::same_metrics(f, naive_metrics(w, kind)));
      w.step(1);  // the state goes on as without the rows
      without.step(1);
      CHECK(w.state_hash() == without.state_hash());
    }
  }
}

#ifdef BOIDS_CLI_PATH
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string cli_tmp(const std::string& name) {
  return "/tmp/boids_metrics_cli_" + std::to_string(::getpid()) + "_" + name;
}

int cli_run(const std::string& args) {
  const std::string cmd = std::string(BOIDS_CLI_PATH) + " run --quiet " + args + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

}  // namespace

TEST_CASE("boids run writes the same trajectory with and without --metrics", "[metrics][cli]") {
  // The rows share the grid engine's cell list with the next step (grid_shared_cells): the
  // step's results must not depend on whether a row came before it. 3D wrap (image shifts),
  // 2D reflect, a view cone; rows every step and every 4th.
  const std::string a = cli_tmp("plain.csv"), b = cli_tmp("rows.csv"), m = cli_tmp("m.csv"),
                    m2 = cli_tmp("m2.csv");
  for (const std::string setup :
       {"--set boids.count=6000 --set world.size=60",
        "--set world.dims=2 --set boids.count=6000 "
        "--set world.size=400 --set "
        "world.boundary=reflect",
        "--set boids.count=6000 --set world.size=60 --set rules.view_angle=250"}) {
    for (const std::string every : {"1", "4"}) {
      INFO(setup << " every " << every);
      const std::string common = setup + " --steps 9 --threads 2 ";
      REQUIRE(cli_run(common + "--out " + a) == 0);
      REQUIRE(cli_run(common + "--out " + b + " --metrics " + m + " --metrics-every " + every) ==
              0);
      const std::string plain = boids::test::slurp(a), rows = boids::test::slurp(b);
      REQUIRE(plain.size() > 6000 * 10);
      CHECK(plain == rows);
      // One header, step 0, every `every`-th step and the last.
      const std::string metrics = boids::test::slurp(m);
      const long nl = long(std::count(metrics.begin(), metrics.end(), '\n'));
      CHECK(nl == (every == "1" ? 1 + 10 : 1 + 1 + 2 + 1));
      // And the same rows on one thread.
      REQUIRE(cli_run(setup + " --steps 9 --threads 1 --metrics " + m2 + " --metrics-every " +
                      every) == 0);
      CHECK(boids::test::slurp(m2) == metrics);
    }
  }
  for (const std::string& f : {a, b, m, m2}) std::remove(f.c_str());
}
#endif
