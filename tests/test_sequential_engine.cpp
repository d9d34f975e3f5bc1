// world.update = "sequential" on the grid and cluster engines (parallel/sequential_engine.cpp):
// the naive engine's in-place random-order update with a cell index, bit for bit.
#include <catch2/catch.hpp>
#include <cmath>

#include "test_support.hpp"

namespace {

using namespace boids;
using boids::test::create_checked;

State run(const WorldDef& def, int steps) {
  World w = create_checked(def);
  w.step(steps);
  return w.state();
}

void require_same(const State& a, const State& b) {
  REQUIRE(a.id == b.id);
  REQUIRE(a.x == b.x);
  REQUIRE(a.y == b.y);
  REQUIRE(a.z == b.z);
  REQUIRE(a.vx == b.vx);
  REQUIRE(a.vy == b.vy);
  REQUIRE(a.vz == b.vz);
}

// Runs `d` sequentially on the naive engine and on `e` (1 and 3 threads): the same bits.
void check_engine_equals_naive(WorldDef d, EngineKind e, int steps = 6) {
  d.update = UpdateOrder::sequential;
  d.engine = EngineKind::naive;
  d.threads = 1;
  const State ref = run(d, steps);
  d.engine = e;
  for (int threads : {1, 3}) {
    d.threads = threads;
    INFO("engine " << boids::test::engine_name(e) << ", " << threads << " threads");
    require_same(run(d, steps), ref);
  }
  // It really is the in-place update: the synchronous step differs.
  d.update = UpdateOrder::synchronous;
  d.threads = 1;
  CHECK(run(d, steps).x != ref.x);
}

WorldDef flock(int dims, Boundary b, double size, std::uint32_t count, Precision p) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.boundary = b;
  d.size = size;
  d.count = count;
  d.precision = p;
  return d;
}

}  // namespace

TEST_CASE("sequential update on the grid engines equals the naive engine bit for bit",
          "[sequential]") {
  for (EngineKind e : {EngineKind::grid, EngineKind::cluster}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
      for (int dims : {2, 3}) {
        INFO("dims " << dims << ", boundary " << int(b));
        // 60 / 9: six cells per axis; 20 / 9: under wrap fewer than 3, every boid a candidate.
        check_engine_equals_naive(flock(dims, b, 60, dims == 2 ? 400 : 600, Precision::f32), e);
        check_engine_equals_naive(flock(dims, b, 20, 150, Precision::f64), e);
      }
    }
  }
}

TEST_CASE("sequential update: every kind, behaviour and profile equals the naive engine",
          "[sequential]") {
  SECTION("predators, leaders, threshold rules and steering") {
    WorldDef d = flock(3, Boundary::wrap, 70, 800, Precision::f32);
    d.predators = 8;
    d.leaders = 4;
    BehaviourDef& b = d.kinds[0].behaviour;
    b.closest_separation = 0.5;
    b.cohesion_max_distance = 3;
    b.follow_leader = 0.05;
    b.wander = 0.1;
    d.kinds[0].rules.view_angle = 270;
    check_engine_equals_naive(d, EngineKind::grid);
  }
  SECTION("rules.noise with steering behaviours") {
    WorldDef d = flock(2, Boundary::reflect, 60, 400, Precision::f64);
    d.kinds[0].rules.noise = 30;
    d.kinds[0].behaviour.wander = 0.1;
    d.kinds[0].behaviour.seek = 0.05;
    check_engine_equals_naive(d, EngineKind::grid);
  }
  SECTION("topological neighbours") {
    WorldDef d = flock(2, Boundary::wrap, 50, 500, Precision::f64);
    d.kinds[0].rules.neighbours = NeighbourRule::topological;
    d.kinds[0].rules.topological_k = 5;
    check_engine_equals_naive(d, EngineKind::grid);
  }
  SECTION("the couzin profile") {
    WorldDef d = default_world_def(Profile::couzin);
    d.count = 300;
    d.size = 60;
    d.boundary = Boundary::wrap;
    check_engine_equals_naive(d, EngineKind::grid);
  }
  SECTION("the abm profile (MASON's and Agents.jl's scheduler)") {
    WorldDef d = flock(2, Boundary::wrap, 100, 500, Precision::f64);
    d.profile = Profile::abm;
    d.dt = 1;
    RuleDef& r = d.kinds[0].rules;
    r.radius = 5;
    r.separation_radius = 1;
    r.separation = 0.015;
    r.alignment = 0.05;
    r.cohesion = 0.03;
    MotionDef& m = d.kinds[0].motion;
    m.max_speed = m.min_speed = 1;
    check_engine_equals_naive(d, EngineKind::grid, 10);
  }
}

TEST_CASE("sequential update: set_def cannot switch a grid world's update order", "[sequential]") {
  WorldDef d = flock(2, Boundary::wrap, 60, 200, Precision::f32);
  World w = World::create(d);
  d.update = UpdateOrder::sequential;
  CHECK_THROWS_WITH(w.set_def(d), Catch::Contains("world.update"));
  d.engine = EngineKind::naive;
  d.update = UpdateOrder::synchronous;
  World n = World::create(d);
  d.update = UpdateOrder::sequential;
  CHECK_NOTHROW(n.set_def(d));  // the naive engine runs both
}
