// The fused metrics row (MetricsCalculator::defer / compute_deferred, docs/metrics.md): the step
// after defer() counts the neighbours and finds each boid's nearest one in its stencil with its
// own row kernel (the row_nn flavour, core/kernels_impl.hpp), and compute_deferred() takes them
// from there, running the pair pass only for the cells on a wrapping grid's faces and those with
// a boid whose nearest boid lies beyond the stencil. Guards: the deferred row is bit for bit the
// row compute() gives for the same state, on every instruction set and thread count; most boids
// are taken from the kernel (metrics_fused_boids); the steps are those of a run without rows;
// and a row whose state is gone is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "boids/metrics.hpp"
#include "metrics_fixture.hpp"
#include "parallel/metrics_limits.hpp"
#include "parallel/metrics_pairs.hpp"
#include "test_support.hpp"

namespace {

using boids::Boundary;
using boids::FlockMetrics;
using boids::WorldDef;

struct Setup {
  const char* name;
  int dims;
  Boundary bnd;
  boids::Precision prec;
  double view;
  int predators = 0;
  double closest = 0;  // behaviour.closest_separation: the kernel's threshold tracker
  double size = 0;     // 0: a size giving the default density
  int count = 12000;
};

WorldDef def_of(const Setup& k) {
  WorldDef d = boids::default_world_def();
  d.dims = k.dims;
  d.boundary = k.bnd;
  d.precision = k.prec;
  d.count = std::size_t(k.count);
  // The default density (1M boids at size 464.16), or the given size.
  d.size = k.size > 0    ? k.size
           : k.dims == 3 ? 464.16 * std::cbrt(double(k.count) / 1e6)
                         : 464.16 * 10 * std::sqrt(double(k.count) / 1e6);
  d.kinds[0].rules.view_angle = k.view;
  d.predators = std::size_t(k.predators);
  d.kinds[0].behaviour.closest_separation = k.closest;
  d.engine = boids::EngineKind::grid;
  return d;
}

}  // namespace

TEST_CASE("a deferred metrics row takes the next step's kernel counts and is the same bits",
          "[metrics][parallel]") {
  const Setup setups[] = {
      {"3d wrap float", 3, Boundary::wrap, boids::Precision::f32, 360},
      {"3d wrap double", 3, Boundary::wrap, boids::Precision::f64, 360},
      {"3d reflect cone 240", 3, Boundary::reflect, boids::Precision::f32, 240},
      {"3d open double cone 230", 3, Boundary::open, boids::Precision::f64, 230},
      {"2d wrap", 2, Boundary::wrap, boids::Precision::f32, 360},
      {"2d reflect double cone 200", 2, Boundary::reflect, boids::Precision::f64, 200},
      {"3d wrap predators", 3, Boundary::wrap, boids::Precision::f32, 360, 30},
      {"3d wrap threshold tracker", 3, Boundary::wrap, boids::Precision::f32, 360, 0, 2.0},
      {"3d wrap sparse", 3, Boundary::wrap, boids::Precision::f32, 360, 0, 0, 300, 2000},
      {"3d wrap dense", 3, Boundary::wrap, boids::Precision::f32, 360, 0, 0, 80, 20000},
  };
  // The sanitizer builds run the best instruction set, two threads and one round (the engine
  // is 10-20x slower there; the Release stage runs every set, 1 and 2 threads).
  std::vector<boids::Isa> isas = boids::test::testable_isas();
  if (boids::test::under_sanitizer) isas.erase(isas.begin(), isas.end() - 1);
  for (const Setup& k : setups) {
    for (boids::Isa isa : isas) {
      boids::test::MaxIsaScope cap(isa);
      for (int threads : {1, 2}) {
        if (boids::test::under_sanitizer && threads == 1) continue;
        INFO(k.name << " isa " << boids::isa_name(isa) << " threads " << threads);
        WorldDef d = def_of(k);
        d.threads = threads;
        boids::World fused = boids::World::create(d);
        boids::World plain = boids::World::create(d);
        fused.step(2);
        plain.step(2);
        boids::MetricsCalculator calc(threads), ref(threads);
        for (int round = 0; round < (boids::test::under_sanitizer ? 1 : 2); ++round) {
          const FlockMetrics want = ref.compute(plain);
          const std::uint64_t rows = boids::metrics_detail::metrics_fused_rows();
          const std::uint64_t boids0 = boids::metrics_detail::metrics_fused_boids();
          REQUIRE(calc.defer(fused));
          fused.step(1);
          plain.step(1);
          const FlockMetrics got = calc.compute_deferred(fused);
          CHECK(boids::test::same_metrics(got, want));
          CHECK(got.mean_neighbours > 0);
          // In float the row came from the kernel, and so did most of its boids (all but the
          // cells on the faces of a wrapping grid and those near a boid with no near
          // neighbour); double has no row_nn kernel (core/kernels_table_impl.hpp), so its
          // deferred row is the metrics' own pass on the kept state.
          const bool f32 = k.prec == boids::Precision::f32;
          CHECK(boids::metrics_detail::metrics_fused_rows() == rows + (f32 ? 1 : 0));
          const std::uint64_t taken = boids::metrics_detail::metrics_fused_boids() - boids0;
          if (f32) {
            CHECK(taken > d.count / 4);
            CHECK(taken <= d.count);
          } else {
            CHECK(taken == 0);
          }
          CHECK(fused.state_hash() == plain.state_hash());  // the step is unchanged
        }
      }
    }
  }
}

TEST_CASE("a deferred metrics row refuses a state that is gone and other kinds and engines",
          "[metrics]") {
  const Setup k{"3d wrap", 3, Boundary::wrap, boids::Precision::f32, 360, 20};
  const WorldDef d = def_of(k);
  boids::World w = boids::World::create(d);
  boids::MetricsCalculator calc(1);
  CHECK_THROWS_AS(calc.compute_deferred(w), boids::Error);  // no defer()
  REQUIRE(calc.defer(w));
  w.step(2);  // the second step rebuilds the cells: the deferred state is gone
  CHECK_THROWS_AS(calc.compute_deferred(w), boids::Error);
  REQUIRE(calc.defer(w));
  w.set_state(w.state());  // a new state before the step
  w.step(1);
  CHECK_THROWS_AS(calc.compute_deferred(w), boids::Error);
  CHECK_FALSE(calc.defer(w, 1));  // predators are not in the engine's cells
  for (auto kind : {boids::EngineKind::cluster, boids::EngineKind::naive}) {
    WorldDef e = d;
    e.engine = kind;
    e.count = 500;
    boids::World o = boids::World::create(e);
    CHECK_FALSE(calc.defer(o));
  }
  WorldDef topo = d;
  topo.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
  boids::World t = boids::World::create(topo);
  CHECK_FALSE(calc.defer(t));
}

TEST_CASE("the metrics' thresholds decide as the division and the root they replace", "[metrics]") {
  // half_turn: pass B's lanes test r >= t for r / size > 0.5 (and r <= -t for < -0.5);
  // ring_limit: the fused row tests nearest2 <= t for sqrt(double(nearest2)) <= edge
  // (parallel/metrics_limits.hpp). Both must decide every value as the replaced operation, in
  // particular the few ulps around the boundary.
  using boids::metrics_detail::half_turn;
  using boids::metrics_detail::ring_limit;
  const double inf = std::numeric_limits<double>::infinity();
  int checked = 0;
  for (double size : {464.16, 30.0, 1000.0, 1e-3, 7.3e5, 0.1, 3.0, 2.0 / 3.0, 1.0e300}) {
    const double t = half_turn(size);
    double lo = size * 0.5, hi = size * 0.5;
    for (int k = 0; k < 40; ++k) {
      lo = std::nextafter(lo, -inf);
      hi = std::nextafter(hi, inf);
    }
    for (double r = lo; r <= hi; r = std::nextafter(r, inf)) {
      INFO("size " << size << " r " << r);
      REQUIRE((r >= t) == (r / size > 0.5));
      REQUIRE((-r <= -t) == (-r / size < -0.5));
      ++checked;
    }
  }
  for (double edge : {4.000040004, 1.0, 9.00000900009, 0.3, 123.456}) {
    const float tf = ring_limit<float>(edge);
    const double td = ring_limit<double>(edge);
    float xf = float(edge * edge);
    double xd = edge * edge;
    for (int k = 0; k < 40; ++k) {
      xf = std::nextafter(xf, 0.0f);
      xd = std::nextafter(xd, 0.0);
    }
    for (int k = 0; k < 80; ++k) {
      INFO("edge " << edge << " x " << xf << " " << xd);
      REQUIRE((xf <= tf) == (std::sqrt(double(xf)) <= edge));
      REQUIRE((xd <= td) == (std::sqrt(xd) <= edge));
      xf = std::nextafter(xf, std::numeric_limits<float>::infinity());
      xd = std::nextafter(xd, inf);
      ++checked;
    }
    REQUIRE(!(std::numeric_limits<float>::infinity() <= tf));
    REQUIRE(!(std::nanf("") <= tf));
  }
  CHECK(checked > 1000);
}
