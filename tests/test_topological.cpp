// Topological neighbours (rules.neighbours = "topological", core/neighbour_list.hpp): the k
// nearest visible boids within the radius, ties to the smaller id; naive = grid bit for bit
// for any thread count and instruction set; the metrics count what the model sees.
#include <catch2/catch.hpp>
#include <cmath>

#include "boids/metrics.hpp"
#include "core/scenario.hpp"
#include "parallel/list_step.hpp"
#include "test_support.hpp"

namespace {

// A 2D vicsek world (the new heading is the mean of the boid's and its neighbours' velocities)
// with k topological neighbours and no noise.
boids::WorldDef vicsek_topo(int k, double radius) {
  boids::WorldDef d = boids::test::tiny_def(2, 50, boids::Boundary::open, 3);
  d.profile = boids::Profile::vicsek;
  d.dt = 1;
  d.kinds[0].rules.radius = radius;
  d.kinds[0].rules.separation_radius = 0.5;
  d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
  d.kinds[0].rules.topological_k = k;
  d.kinds[0].motion.max_speed = 1;
  d.kinds[0].motion.min_speed = 1;
  return d;
}

std::pair<double, double> velocity0(boids::WorldDef d, boids::EngineKind e,
                                    const std::vector<double>& pos,
                                    const std::vector<double>& vel) {
  d.engine = e;
  const boids::State s = boids::test::step_once(d, boids::test::make_state(2, pos, vel));
  return {s.vx[0], s.vy[0]};
}

}  // namespace

TEST_CASE("topological: keys, defaults and errors", "[topological]") {
  const boids::WorldDef d = boids::parse_scenario("[rules]\nneighbours = \"topological\"\n", "t");
  CHECK(d.kinds[0].rules.neighbours == boids::NeighbourRule::topological);
  CHECK(d.kinds[0].rules.topological_k == 7);  // Ballerini et al. 2008
  CHECK(boids::parse_scenario("", "t").kinds[0].rules.neighbours == boids::NeighbourRule::metric);
  CHECK_THROWS_WITH(boids::parse_scenario("[rules]\nneighbours = \"topo\"\n", "t"),
                    Catch::Contains("t:2: rules.neighbours"));
  CHECK_THROWS_WITH(boids::parse_scenario("[rules]\ntopological_k = 0\n", "t"),
                    Catch::Contains("rules.topological_k"));
  CHECK_THROWS_WITH(boids::parse_scenario("[rules]\ntopological_k = 2.5\n", "t"),
                    Catch::Contains("rules.topological_k"));
}

TEST_CASE("topological: the k nearest, ties to the smaller id, within radius and view",
          "[topological]") {
  const double s = 1 / std::sqrt(2.0);
  for (auto e : boids::test::all_engines()) {
    INFO(boids::test::engine_name(e));
    // k = 1: boid 1 (1 u away, heading +y) is nearer than boid 2 (2.5 u, heading -y).
    auto v = velocity0(vicsek_topo(1, 5), e, {10, 10, 11, 10, 12.5, 10}, {1, 0, 0, 1, 0, -1});
    CHECK(v.first == Approx(s));
    CHECK(v.second == Approx(s));
    // Metric with the same radius: all three, (1, 0).
    boids::WorldDef metric = vicsek_topo(1, 5);
    metric.kinds[0].rules.neighbours = boids::NeighbourRule::metric;
    v = velocity0(metric, e, {10, 10, 11, 10, 12.5, 10}, {1, 0, 0, 1, 0, -1});
    CHECK(v.first == Approx(1));
    CHECK(v.second == Approx(0).margin(1e-6));
    // A tie at distance 1 goes to the smaller id, wherever it stands.
    v = velocity0(vicsek_topo(1, 5), e, {10, 10, 11, 10, 9, 10}, {1, 0, 0, 1, 0, -1});
    CHECK(v.second == Approx(s));
    v = velocity0(vicsek_topo(1, 5), e, {10, 10, 9, 10, 11, 10}, {1, 0, 0, -1, 0, 1});
    CHECK(v.second == Approx(-s));
    // k = 7 but only boid 1 is within the radius 2.
    v = velocity0(vicsek_topo(7, 2), e, {10, 10, 11, 10, 12.5, 10}, {1, 0, 0, 1, 0, -1});
    CHECK(v.second == Approx(s));
    // Boid 1 is nearest but behind, outside a 180 degree view: boid 2 is taken.
    boids::WorldDef cone = vicsek_topo(1, 5);
    cone.kinds[0].rules.view_angle = 180;
    v = velocity0(cone, e, {10, 10, 9, 10, 12.5, 10}, {1, 0, 0, 1, 0, -1});
    CHECK(v.second == Approx(-s));
  }
}

TEST_CASE("topological: naive = grid bit for bit, any thread count and instruction set",
          "[topological][parallel]") {
  for (int dims : {2, 3}) {
    for (auto profile : {boids::Profile::standard, boids::Profile::vicsek}) {
      boids::WorldDef d = boids::test::tiny_def(dims, 40, boids::Boundary::wrap, 600);
      d.profile = profile;
      d.kinds[0].rules.radius = 8;
      d.kinds[0].rules.separation_radius = 2;
      d.kinds[0].rules.view_angle = 300;
      d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
      d.kinds[0].rules.topological_k = 5;
      if (profile == boids::Profile::vicsek) d.kinds[0].rules.noise = 30;
      INFO("dims " << dims << " profile " << int(profile));
      auto hash = [&](boids::EngineKind e, int threads) {
        boids::WorldDef x = d;
        x.engine = e;
        x.threads = threads;
        boids::World w = boids::test::create_checked(x);
        w.step(15);
        return w.state_hash();
      };
      const auto naive = hash(boids::EngineKind::naive, 1);
      CHECK(hash(boids::EngineKind::grid, 1) == naive);
      CHECK(hash(boids::EngineKind::grid, 3) == naive);
      for (boids::Isa isa : boids::test::testable_isas()) {
        boids::test::MaxIsaScope cap(isa);
        CHECK(hash(boids::EngineKind::grid, 2) == naive);
      }
      // And the rule matters: the metric world goes elsewhere.
      boids::WorldDef m = d;
      m.kinds[0].rules.neighbours = boids::NeighbourRule::metric;
      boids::World wm = boids::World::create(m);
      wm.step(15);
      CHECK(wm.state_hash() != naive);
    }
  }
}

TEST_CASE("topological: mean_neighbours counts at most k per boid", "[topological][metrics]") {
  boids::WorldDef d = boids::test::tiny_def(3, 30, boids::Boundary::wrap, 900);
  d.kinds[0].rules.radius = 6;
  d.kinds[0].rules.view_angle = 270;
  d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
  d.kinds[0].rules.topological_k = 4;
  boids::World w = boids::World::create(d);
  const boids::State s = w.state();
  // Brute force: visible within the radius (double arithmetic; no pair sits on the edge).
  double total = 0;
  for (std::size_t i = 0; i < s.id.size(); ++i) {
    int k = 0;
    const double vl = std::sqrt(s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
    for (std::size_t j = 0; j < s.id.size(); ++j) {
      if (j == i) continue;
      double dd[3] = {s.x[j] - s.x[i], s.y[j] - s.y[i], s.z[j] - s.z[i]};
      for (double& c : dd) c -= 30 * std::nearbyint(c / 30);
      const double r = std::sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
      if (!(r < 6)) continue;
      const double dot = dd[0] * s.vx[i] + dd[1] * s.vy[i] + dd[2] * s.vz[i];
      if (dot >= r * vl * std::cos(135 * 3.14159265358979323846 / 180)) ++k;
    }
    total += std::min(k, 4);
  }
  const boids::FlockMetrics m = boids::compute_metrics(w);
  CHECK(m.mean_neighbours == Approx(total / double(s.id.size())).epsilon(1e-3));
  CHECK(m.mean_neighbours <= 4);
  CHECK(m.mean_neighbours > 3);  // about 30 visible on average: nearly every boid has 4
}

TEST_CASE("topological: ties on a lattice, naive = grid for small and large k",
          "[topological][parallel]") {
  // 20 x 20 boids one unit apart in a wrapped box of 20: every boid has 4 neighbours at 1,
  // 4 at sqrt(2), 4 at 2, ..., so the k-th place is a tie that only the id settles. k = 6 takes
  // the grid's early selection (nlist::KBest), k = 40 the partial sort (beyond kMaxKBest).
  for (int k : {6, 40}) {
    boids::WorldDef d = boids::test::tiny_def(2, 20, boids::Boundary::wrap, 400);
    d.kinds[0].rules.radius = 4.5;
    d.kinds[0].rules.separation_radius = 1.5;
    d.kinds[0].rules.view_angle = 300;
    d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
    d.kinds[0].rules.topological_k = k;
    std::vector<double> pos, vel;
    for (int i = 0; i < 400; ++i) {
      pos.insert(pos.end(), {double(i % 20) + 0.5, double(i / 20) + 0.5});
      vel.insert(vel.end(), {std::cos(i * 0.7), std::sin(i * 0.7)});
    }
    const boids::State s0 = boids::test::make_state(2, pos, vel);
    INFO("k " << k);
    auto hash = [&](boids::EngineKind e, int threads, int steps) {
      boids::WorldDef x = d;
      x.engine = e;
      x.threads = threads;
      boids::World w = boids::test::create_checked(x);
      w.set_state(s0);
      w.step(steps);
      return w.state_hash();
    };
    for (int steps : {1, 6}) {
      const auto naive = hash(boids::EngineKind::naive, 1, steps);
      CHECK(hash(boids::EngineKind::grid, 1, steps) == naive);
      CHECK(hash(boids::EngineKind::grid, 2, steps) == naive);
    }
    // And k matters on this lattice.
    boids::WorldDef other = d;
    other.kinds[0].rules.topological_k = k + 1;
    boids::World w = boids::World::create(other);
    w.set_state(s0);
    w.step(1);
    CHECK(w.state_hash() != hash(boids::EngineKind::grid, 1, 1));
  }
}

TEST_CASE("topological: naive = grid on every grid layout, precision and k",
          "[topological][parallel]") {
  // The grid engine's gather (parallel/list_gather.hpp) takes each x-row's stencil as one copy
  // where it can and the runs with their image shifts where the stencil crosses a wrap seam;
  // it prunes the list beyond the k-th nearest so far for k <= 12, ranks the candidates
  // without branches up to 16 and sorts beyond. Each layout and path against the naive
  // stepper: reflecting and open boxes (no images), a wrapped box with 4 cells per axis
  // (shifts) and one whose radius collapses the grid (per-pair minimum image), float and
  // double, full view and a cone, k from 3 (pruned) to 20 (not pruned, often > 16 visible).
  struct Case {
    boids::Boundary b;
    double size, radius;
  };
  const Case cases[] = {{boids::Boundary::reflect, 40, 8},
                        {boids::Boundary::open, 40, 8},
                        {boids::Boundary::wrap, 40, 9.5},
                        {boids::Boundary::wrap, 40, 15}};
  for (int dims : {2, 3}) {
    for (const Case& cs : cases) {
      for (auto prec : {boids::Precision::f32, boids::Precision::f64}) {
        for (int k : {3, 12, 20}) {
          const double view = k == 12 ? 250 : 360;
          boids::WorldDef d = boids::test::tiny_def(dims, cs.size, cs.b, dims == 2 ? 300 : 900);
          d.precision = prec;
          d.kinds[0].rules.radius = cs.radius;
          d.kinds[0].rules.separation_radius = 2;
          d.kinds[0].rules.view_angle = view;
          d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
          d.kinds[0].rules.topological_k = k;
          INFO("dims " << dims << " boundary " << int(cs.b) << " radius " << cs.radius << " f64 "
                       << (prec == boids::Precision::f64) << " k " << k);
          auto hash = [&](boids::EngineKind e, int threads) {
            boids::WorldDef x = d;
            x.engine = e;
            x.threads = threads;
            boids::World w = boids::test::create_checked(x);
            w.step(boids::test::steps_or_sanitized(4, 2));
            return w.state_hash();
          };
          const auto naive = hash(boids::EngineKind::naive, 1);
          CHECK(hash(boids::EngineKind::grid, 2) == naive);
          for (boids::Isa isa : boids::test::testable_isas()) {
            boids::test::MaxIsaScope cap(isa);
            CHECK(hash(boids::EngineKind::grid, 1) == naive);
          }
        }
      }
    }
  }
}

TEST_CASE("topological: naive = grid on the pass's own grid (large radii, pure topological)",
          "[topological][parallel]") {
  // A radius far beyond the k-th neighbour distance: the grid engine's topological pass sorts
  // the boids into cells about the k-th neighbour distance, scans the 3^D block around each
  // boid's cell and keeps the result only when the k-th nearest is nearer than the block's
  // faces, else scans blocks of 5^D, 9^D ... cells (parallel/list_fine_grid.hpp). Against the naive
  // stepper, bit for bit: wrapped, reflecting and open boxes (open with r far beyond the box:
  // the pure topological rule), 2D and 3D, float and double, a view cone, k from 1 to 20. The
  // counters check that the own grid ran and that some boids fell back.
  struct Case {
    int dims;
    boids::Boundary b;
    double size, radius;
    int k;
    double view;
    boids::Precision prec;
  };
  using B = boids::Boundary;
  using P = boids::Precision;
  const Case cases[] = {
      {3, B::wrap, 40, 15, 7, 360, P::f32},      {3, B::wrap, 40, 15, 3, 270, P::f64},
      {3, B::open, 40, 200, 7, 360, P::f32},     {3, B::reflect, 40, 14, 12, 360, P::f64},
      {2, B::wrap, 160, 40, 5, 360, P::f32},     {2, B::open, 160, 1000, 1, 300, P::f64},
      {2, B::reflect, 160, 50, 20, 360, P::f32}, {3, B::wrap, 40, 19, 16, 360, P::f32}};
  const std::uint64_t steps0 = boids::list_own_grid_steps();
  const std::uint64_t fallbacks0 = boids::list_own_grid_fallbacks();
  for (const Case& cs : cases) {
    boids::WorldDef d = boids::test::tiny_def(cs.dims, cs.size, cs.b, 2000);
    d.precision = cs.prec;
    d.kinds[0].rules.radius = cs.radius;
    d.kinds[0].rules.separation_radius = 2;
    d.kinds[0].rules.view_angle = cs.view;
    d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
    d.kinds[0].rules.topological_k = cs.k;
    INFO("dims " << cs.dims << " boundary " << int(cs.b) << " radius " << cs.radius << " k "
                 << cs.k);
    auto hash = [&](boids::EngineKind e, int threads) {
      boids::WorldDef x = d;
      x.engine = e;
      x.threads = threads;
      boids::World w = boids::test::create_checked(x);
      w.step(4);
      return w.state_hash();
    };
    const std::uint64_t before = boids::list_own_grid_steps();
    const auto naive = hash(boids::EngineKind::naive, 1);
    CHECK(hash(boids::EngineKind::grid, 2) == naive);
    CHECK(boids::list_own_grid_steps() > before);
    for (boids::Isa isa : boids::test::testable_isas()) {
      boids::test::MaxIsaScope cap(isa);
      INFO("isa " << int(isa));
      const std::uint64_t lanes = boids::list_own_grid_lane_boids();
      CHECK(hash(boids::EngineKind::grid, 1) == naive);
      // For k up to the lane kernel's largest (15) the own grid's cells go through the lane
      // kernel (parallel/list_fine_step.hpp): about every boid of every step.
      if (cs.k <= 15)
        CHECK(boids::list_own_grid_lane_boids() - lanes > 4u * 2000u * 9u / 10u);
      else
        CHECK(boids::list_own_grid_lane_boids() == lanes);
    }
  }
  CHECK(boids::list_own_grid_steps() > steps0);
  CHECK(boids::list_own_grid_fallbacks() > fallbacks0);
}

TEST_CASE("topological: the row pass's lane kernel, not the own grid, at a few times k per cell",
          "[topological][parallel]") {
  // About 7 boids per engine cell (r = 4, 7,000 boids in a wrapped box of 40): the engine's
  // stencil holds about 27 x 8 = 216 candidates, about twice the own grid's block (3^3 x 0.53 k
  // = 100 at k = 7). The gather alone would take the own grid there (kFineGain), but the lane
  // kernel scans the engine's stencil faster than the own grid (docs/bench.md, fourteenth
  // session), so the row pass runs; with the threshold rule's closest-neighbour tracking (no
  // lane kernel) the own grid.
  for (bool closest : {false, true}) {
    const int k = 7;
    boids::WorldDef d = boids::test::tiny_def(3, 40, boids::Boundary::wrap, 7000);
    d.kinds[0].rules.radius = 4;
    d.kinds[0].rules.separation_radius = 1.5;
    d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
    d.kinds[0].rules.topological_k = k;
    if (closest) d.kinds[0].behaviour.closest_separation = 1;
    auto hash = [&](boids::EngineKind e) {
      boids::WorldDef x = d;
      x.engine = e;
      x.threads = 1;
      boids::World w = boids::test::create_checked(x);
      w.step(2);
      return w.state_hash();
    };
    const auto naive = hash(boids::EngineKind::naive);
    for (boids::Isa isa : boids::test::testable_isas()) {
      boids::test::MaxIsaScope cap(isa);
      INFO("closest " << closest << " isa " << int(isa));
      const std::uint64_t own = boids::list_own_grid_steps();
      const std::uint64_t lanes = boids::list_lane_boids();
      CHECK(hash(boids::EngineKind::grid) == naive);
      if (!closest) {
        CHECK(boids::list_own_grid_steps() == own);
        CHECK(boids::list_lane_boids() - lanes > 2u * 7000u * 9u / 10u);
      } else {
        CHECK(boids::list_own_grid_steps() - own == 2u);
      }
    }
  }
}
