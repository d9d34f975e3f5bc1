// The standard model's equations on hand-computed cases of 1-3 boids, through the public API
// and the naive stepper. Every expected value below is worked out in the comment beside it.
#include <catch2/catch.hpp>
#include <cmath>

#include "test_support.hpp"

using namespace boids;
using boids::test::make_state;
using boids::test::step_once;
using boids::test::tiny_def;

namespace {

// A def where only the named weight acts and no clamp interferes.
WorldDef rule_def(int dims, Boundary b, double sep, double ali, double coh, double dt = 1.0) {
  WorldDef d = tiny_def(dims, 100.0, b, 2);
  d.engine = EngineKind::naive;
  d.dt = dt;
  RuleDef& r = d.kinds[0].rules;
  r.radius = 5;
  r.separation_radius = 5;
  r.separation = sep;
  r.alignment = ali;
  r.cohesion = coh;
  MotionDef& m = d.kinds[0].motion;
  m.max_force = 100;
  m.max_speed = 9;  // above every speed below; max_speed * dt stays < size
  m.min_speed = 0;
  return d;
}

constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("separation alone pushes two boids apart by -d/|d|^2", "[model]") {
  // Boid 0 at (10,10), boid 1 at (12,10), both v = (1,0). d01 = (2,0), |d|^2 = 4:
  // sep0 = -(2,0)/4 = (-0.5,0) -> v0' = (0.5,0), p0' = (10.5,10).
  // sep1 = -(-2,0)/4 = (0.5,0) -> v1' = (1.5,0), p1' = (13.5,10).
  WorldDef d = rule_def(2, Boundary::open, 1, 0, 0);
  State s = step_once(d, make_state(2, {10, 10, 12, 10}, {1, 0, 1, 0}));
  CHECK(s.vx[0] == Approx(0.5).margin(kTol));
  CHECK(s.vx[1] == Approx(1.5).margin(kTol));
  CHECK(s.x[0] == Approx(10.5).margin(kTol));
  CHECK(s.x[1] == Approx(13.5).margin(kTol));
  CHECK(s.vy[0] == Approx(0).margin(kTol));
  CHECK(s.y[1] == Approx(10).margin(kTol));
}

TEST_CASE("separation only counts neighbours inside the separation radius", "[model]") {
  // r = 5, r_s = 1.5: the pair at distance 2 are neighbours but too far to separate.
  WorldDef d = rule_def(2, Boundary::open, 1, 0, 0);
  d.kinds[0].rules.separation_radius = 1.5;
  State s = step_once(d, make_state(2, {10, 10, 12, 10}, {1, 0, 1, 0}));
  CHECK(s.vx[0] == Approx(1).margin(kTol));
  CHECK(s.vx[1] == Approx(1).margin(kTol));
}

TEST_CASE("cohesion alone steers to the mean offset of the neighbours", "[model]") {
  // Boids at (10,10), (12,10), (10,12), at rest, dt = 0.5.
  // Boid 0: coh = ((2,0) + (0,2))/2 = (1,1) -> v' = (0.5,0.5), p' = (10.25,10.25).
  // Boid 1: coh = ((-2,0) + (-2,2))/2 = (-2,1) -> v' = (-1,0.5), p' = (11.5,10.25).
  // Boid 2: coh = ((0,-2) + (2,-2))/2 = (1,-2) -> v' = (0.5,-1), p' = (10.25,11.5).
  WorldDef d = rule_def(2, Boundary::open, 0, 0, 1, 0.5);
  d.count = 3;
  State s = step_once(d, make_state(2, {10, 10, 12, 10, 10, 12}, {0, 0, 0, 0, 0, 0}));
  CHECK(s.vx[0] == Approx(0.5).margin(kTol));
  CHECK(s.vy[0] == Approx(0.5).margin(kTol));
  CHECK(s.x[1] == Approx(11.5).margin(kTol));
  CHECK(s.y[1] == Approx(10.25).margin(kTol));
  CHECK(s.vx[2] == Approx(0.5).margin(kTol));
  CHECK(s.vy[2] == Approx(-1).margin(kTol));
  CHECK(s.y[2] == Approx(11.5).margin(kTol));
}

TEST_CASE("alignment alone steers to the mean neighbour velocity", "[model]") {
  // Boid 0 v = (1,0), boid 1 v = (0,1), one apart. ali0 = (0,1) - (1,0) = (-1,1);
  // dt = 0.5 -> v0' = (0.5,0.5), p0' = (10.25,10.25). ali1 = (1,-1) -> v1' = (0.5,0.5).
  WorldDef d = rule_def(2, Boundary::open, 0, 1, 0, 0.5);
  State s = step_once(d, make_state(2, {10, 10, 11, 10}, {1, 0, 0, 1}));
  CHECK(s.vx[0] == Approx(0.5).margin(kTol));
  CHECK(s.vy[0] == Approx(0.5).margin(kTol));
  CHECK(s.x[0] == Approx(10.25).margin(kTol));
  CHECK(s.vx[1] == Approx(0.5).margin(kTol));
  CHECK(s.vy[1] == Approx(0.5).margin(kTol));
}

TEST_CASE("the rules combine with their weights in 3D", "[model]") {
  // Boid 0 at (10,10,10) v=(1,0,0); boid 1 at (11,10,10) v=(0,0,1). d01 = (1,0,0).
  // sep0 = (-1,0,0), ali0 = (-1,0,1), coh0 = (1,0,0); weights 2, 0.5, 3:
  // F0 = (-2,0,0) + (-0.5,0,0.5) + (3,0,0) = (0.5,0,0.5); dt = 1 -> v0' = (1.5,0,0.5).
  WorldDef d = rule_def(3, Boundary::open, 2, 0.5, 3);
  State s = step_once(d, make_state(3, {10, 10, 10, 11, 10, 10}, {1, 0, 0, 0, 0, 1}));
  CHECK(s.vx[0] == Approx(1.5).margin(kTol));
  CHECK(s.vy[0] == Approx(0).margin(kTol));
  CHECK(s.vz[0] == Approx(0.5).margin(kTol));
  CHECK(s.z[0] == Approx(10.5).margin(kTol));
}

TEST_CASE("the force clamp scales F down to max_force", "[model]") {
  // As in the separation case, F0 = (-0.5,0); max_force 0.25 -> F0 = (-0.25,0), v0' = (0.75,0).
  WorldDef d = rule_def(2, Boundary::open, 1, 0, 0);
  d.kinds[0].motion.max_force = 0.25;
  State s = step_once(d, make_state(2, {10, 10, 12, 10}, {1, 0, 1, 0}));
  CHECK(s.vx[0] == Approx(0.75).margin(kTol));
  CHECK(s.vx[1] == Approx(1.25).margin(kTol));
}

TEST_CASE("both speed clamps", "[model]") {
  WorldDef d = rule_def(2, Boundary::open, 0, 0, 0);
  d.kinds[0].motion.max_speed = 2;
  d.kinds[0].motion.min_speed = 1;
  // Speed 5 -> 2 along (3,4)/5; speed 0.5 -> 1 along (3,4)/5. Far apart, no neighbours.
  State s = step_once(d, make_state(2, {10, 10, 50, 50}, {3, 4, 0.3, 0.4}));
  CHECK(s.vx[0] == Approx(1.2).margin(kTol));
  CHECK(s.vy[0] == Approx(1.6).margin(kTol));
  CHECK(s.vx[1] == Approx(0.6).margin(kTol));
  CHECK(s.vy[1] == Approx(0.8).margin(kTol));
  CHECK(s.x[1] == Approx(50.6).margin(kTol));
}

TEST_CASE("the view cone edge decides who is a neighbour", "[model]") {
  // view_angle 90 -> half angle 45 deg. Boid 0 looks along +x. Boid 1 at 42 deg is seen,
  // boid 1 at 47.7 deg is not. Cohesion only, dt = 1, boid 0's velocity change tells.
  WorldDef d = rule_def(2, Boundary::open, 0, 0, 1);
  d.kinds[0].rules.view_angle = 90;
  State seen = step_once(d, make_state(2, {10, 10, 11, 10.9}, {1, 0, 0, 0}));
  CHECK(seen.vx[0] == Approx(2).margin(kTol));  // 1 + coh (1, 0.9)
  CHECK(seen.vy[0] == Approx(0.9).margin(kTol));
  State hidden = step_once(d, make_state(2, {10, 10, 11, 11.1}, {1, 0, 0, 0}));
  CHECK(hidden.vx[0] == Approx(1).margin(kTol));  // unchanged
  CHECK(hidden.vy[0] == Approx(0).margin(kTol));
  // Boid 1 is at rest (|v| = 0), so it sees boid 0 despite the cone: coh1 = (-1,-1.1).
  CHECK(hidden.vx[1] == Approx(-1).margin(kTol));
  CHECK(hidden.vy[1] == Approx(-1.1).margin(kTol));
}

TEST_CASE("wrap uses the minimum image across the seam and folds positions", "[model]") {
  // L = 10, boids at x = 0.5 and 9.5: d01 = 9 - 10 round(0.9) = -1. Separation only, at
  // rest, dt = 0.5: sep0 = (1,0) -> v0' = (0.5,0), p0' = 0.75; sep1 = (-1,0) -> p1' = 9.25.
  WorldDef d = rule_def(2, Boundary::wrap, 1, 0, 0, 0.5);
  d.size = 10;
  d.kinds[0].rules.radius = 2;
  d.kinds[0].rules.separation_radius = 2;
  State s = step_once(d, make_state(2, {0.5, 5, 9.5, 5}, {0, 0, 0, 0}));
  CHECK(s.x[0] == Approx(0.75).margin(kTol));
  CHECK(s.x[1] == Approx(9.25).margin(kTol));
  // A boid crossing the seam re-enters on the other side: 9.9 + 1 * 0.5 = 10.4 -> 0.4.
  d.count = 1;
  State c = step_once(d, make_state(2, {9.9, 5}, {1, 0}));
  CHECK(c.x[0] == Approx(0.4).margin(kTol));
  CHECK(c.vx[0] == Approx(1).margin(kTol));
}

TEST_CASE("reflect mirrors at both walls and flips the velocity component", "[model]") {
  // L = 10, dt = 0.5. Upper wall: 9.8 + 0.5 = 10.3 -> 20 - 10.3 = 9.7, vx -> -1.
  // Lower wall: 0.2 - 0.5 = -0.3 -> 0.3, vy -> +1. Far apart: no neighbours.
  WorldDef d = rule_def(2, Boundary::reflect, 0, 0, 0, 0.5);
  d.size = 10;
  d.kinds[0].rules.radius = 1;
  d.kinds[0].rules.separation_radius = 1;
  State s = step_once(d, make_state(2, {9.8, 5, 5, 0.2}, {1, 0, 0, -1}));
  CHECK(s.x[0] == Approx(9.7).margin(kTol));
  CHECK(s.vx[0] == Approx(-1).margin(kTol));
  CHECK(s.y[1] == Approx(0.3).margin(kTol));
  CHECK(s.vy[1] == Approx(1).margin(kTol));
}

TEST_CASE("degenerate cases stay finite", "[model]") {
  auto all_finite = [](const State& s) {
    for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz})
      for (double x : *v)
        if (!std::isfinite(x)) return false;
    return true;
  };
  SECTION("coincident boids: neighbours, but no separation and no cohesion") {
    WorldDef d = rule_def(3, Boundary::wrap, 1, 1, 1);
    State s = step_once(d, make_state(3, {5, 5, 5, 5, 5, 5}, {1, 0, 0, 1, 0, 0}));
    CHECK(all_finite(s));
    CHECK(s.vx[0] == Approx(1).margin(kTol));
    CHECK(s.x[0] == Approx(6).margin(kTol));
  }
  SECTION("zero velocity and min_speed: stays at rest") {
    WorldDef d = rule_def(2, Boundary::open, 0, 0, 0);
    d.kinds[0].motion.min_speed = 1;
    d.kinds[0].rules.view_angle = 120;
    State s = step_once(d, make_state(2, {5, 5, 50, 50}, {0, 0, 0, 0}), 3);
    CHECK(all_finite(s));
    CHECK(s.vx[0] == 0);
    CHECK(s.x[0] == Approx(5).margin(kTol));
  }
  SECTION("zero weights, zero force limit") {
    WorldDef d = rule_def(3, Boundary::reflect, 0, 0, 0);
    d.kinds[0].motion.max_force = 0;
    State s = step_once(d, make_state(3, {5, 5, 5, 5.5, 5, 5}, {1, 1, 1, -1, 0, 0}), 5);
    CHECK(all_finite(s));
    CHECK(s.vy[0] == Approx(1).margin(kTol));
  }
  SECTION("a boid with no neighbours keeps its velocity") {
    WorldDef d = rule_def(3, Boundary::open, 1, 1, 1);
    d.count = 1;
    State s = step_once(d, make_state(3, {1, 2, 3}, {0.5, 0.25, -1}));
    CHECK(s.vx[0] == Approx(0.5).margin(kTol));
    CHECK(s.z[0] == Approx(2).margin(kTol));
  }
}

TEST_CASE("the initial state is a function of (seed, id) only", "[model]") {
  WorldDef d = default_world_def();
  d.engine = EngineKind::naive;
  d.count = 100;
  World a = World::create(d);
  World b = World::create(d);
  CHECK(a.state_hash() == b.state_hash());
  d.count = 10;
  World small = World::create(d);
  State sa = a.state(), ss = small.state();
  for (std::size_t i = 0; i < 10; ++i) {
    CHECK(sa.x[i] == ss.x[i]);
    CHECK(sa.vz[i] == ss.vz[i]);
  }
  d.count = 100;
  d.seed = 2;
  World other = World::create(d);
  CHECK(other.state_hash() != a.state_hash());
  // Positions inside the box, speed halfway between min and max speed.
  const double speed = 0.5 * (d.kinds[0].motion.min_speed + d.kinds[0].motion.max_speed);
  for (std::size_t i = 0; i < sa.x.size(); ++i) {
    CHECK(sa.x[i] >= 0);
    CHECK(sa.x[i] < d.size);
    const double s = std::sqrt(sa.vx[i] * sa.vx[i] + sa.vy[i] * sa.vy[i] + sa.vz[i] * sa.vz[i]);
    CHECK(s == Approx(speed).epsilon(1e-5));
  }
}

TEST_CASE("boids closer than a denormal distance stay finite on every engine", "[model]") {
  // |d|^2 = 1e-40 is a float denormal: 1/|d|^2 was inf and the separation force NaN.
  for (boids::EngineKind e :
       {boids::EngineKind::naive, boids::EngineKind::grid, boids::EngineKind::cluster}) {
    boids::WorldDef def = boids::default_world_def();
    def.count = 2;
    def.dims = 2;
    def.engine = e;
    boids::World w = boids::World::create(def);
    boids::State s = w.state();
    s.x = {0.0, 1e-20};  // representable only near 0
    s.y = {50.0, 50.0};
    s.vx = {1.0, 1.0};
    s.vy = {0.0, 0.0};
    w.set_state(s);
    w.step(3);
    const boids::State out = w.state();
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(std::isfinite(out.x[i]));
      CHECK(std::isfinite(out.y[i]));
      CHECK(std::isfinite(out.vx[i]));
      CHECK(std::isfinite(out.vy[i]));
    }
  }
}
