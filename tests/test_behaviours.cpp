// The steering behaviours, vehicles and the abm profile (docs/behaviours.md): each equation on
// a hand-checked case of one to three boids through the naive stepper, then outcome tests over
// many steps. Expected values are worked out in the comment beside each check.
#include <catch2/catch.hpp>
#include <cmath>

#include "boids/debug.hpp"
#include "core/rng.hpp"
#include "core/scenario.hpp"
#include "test_support.hpp"

using namespace boids;
using boids::test::make_state;
using boids::test::step_once;
using boids::test::tiny_def;

namespace {

constexpr double kTol = 1e-4;

// One kind-0 boid (or a few) with no flocking, no clamps in the way, dt = 1, open world.
WorldDef lone_def(int dims, std::uint32_t count = 1, double dt = 1.0) {
  WorldDef d = tiny_def(dims, 100.0, Boundary::open, count);
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.dt = dt;
  RuleDef& r = d.kinds[0].rules;
  r.separation = r.alignment = r.cohesion = 0;
  MotionDef& m = d.kinds[0].motion;
  m.max_force = 100;
  m.max_speed = 4;
  m.min_speed = 0;
  return d;
}

double dist(const State& s, std::size_t i, double x, double y, double z = 0) {
  const double dz = s.z.empty() ? 0 : s.z[i] - z;
  return std::sqrt((s.x[i] - x) * (s.x[i] - x) + (s.y[i] - y) * (s.y[i] - y) + dz * dz);
}

double angle_between(double ax, double ay, double az, double bx, double by, double bz) {
  const double na = std::sqrt(ax * ax + ay * ay + az * az);
  const double nb = std::sqrt(bx * bx + by * by + bz * bz);
  const double c = std::clamp((ax * bx + ay * by + az * bz) / (na * nb), -1.0, 1.0);
  return std::acos(c);
}

}  // namespace

TEST_CASE("seek steers at max_speed toward the goal", "[behaviour]") {
  // p = (10,10), v = (1,0), goal (20,10): desired = 4 * (1,0); F = desired - v = (3,0);
  // v' = (4,0), p' = (14,10).
  WorldDef d = lone_def(2);
  d.kinds[0].behaviour.seek = 1;
  d.goal = {20, 10};
  State s = step_once(d, make_state(2, {10, 10}, {1, 0}));
  CHECK(s.vx[0] == Approx(4).margin(kTol));
  CHECK(s.vy[0] == Approx(0).margin(kTol));
  CHECK(s.x[0] == Approx(14).margin(kTol));
}

TEST_CASE("arrive limits the desired speed by the braking distance", "[behaviour]") {
  // p = (10,10), v = 0, goal (12,10), s = 2, a = max_force / mass = 3, dt = 0.5:
  // u = a dt = 1.5, n = floor((sqrt(1 + 8*4/1.5) - 1)/2) = 1, r = (4 - 1.5)/2 = 1.25:
  // speed = min(4, 2.75, s/dt = 4) = 2.75; F = 2.75 / dt clamped to 3;
  // v' = 3 * 0.5 = 1.5, p' = 10 + 0.75.
  WorldDef d = lone_def(2, 1, 0.5);
  d.kinds[0].behaviour.arrive = 1;
  d.kinds[0].motion.max_force = 3;
  d.goal = {12, 10};
  State s = step_once(d, make_state(2, {10, 10}, {0, 0}));
  CHECK(s.vx[0] == Approx(1.5).margin(kTol));
  CHECK(s.x[0] == Approx(10.75).margin(kTol));
  // With mass 2 the braking acceleration halves: u = 0.75, n = 2, r = (4 - 2.25)/3 = 0.5833,
  // speed 2.0833; arrival asks for F = 2.0833 / dt = 4.17, clamped to 3; a = F / m = 1.5.
  // (Both cases clamp; the unclamped speed is checked by the outcome test below.)
  d.kinds[0].vehicle.mass = 2;
  s = step_once(d, make_state(2, {10, 10}, {0, 0}));
  CHECK(s.vx[0] == Approx(0.75).margin(kTol));
}

TEST_CASE("flee, pursue and evade use the target and its predicted position", "[behaviour]") {
  WorldDef d = lone_def(2);
  d.target.position = {20, 10};
  d.target.velocity = {0, 2};
  d.target.hold = 0;
  d.target.move = 1000;
  SECTION("flee") {
    // away = (10,10) - (20,10) = (-10,0): desired (-4,0), F = (-4,0), v' = (-4,0).
    d.kinds[0].behaviour.flee = 1;
    State s = step_once(d, make_state(2, {10, 10}, {0, 0}));
    CHECK(s.vx[0] == Approx(-4).margin(kTol));
    CHECK(s.vy[0] == Approx(0).margin(kTol));
  }
  SECTION("flee_radius switches flee off farther away") {
    d.kinds[0].behaviour.flee = 1;
    d.kinds[0].behaviour.flee_radius = 5;
    State s = step_once(d, make_state(2, {10, 10}, {0, 0}));
    CHECK(s.vx[0] == Approx(0).margin(kTol));
  }
  SECTION("pursue") {
    // to = (10,0), T = 10/4 = 2.5, predicted = (10,0) + (0,2)*2.5 = (10,5);
    // desired = 4 * (10,5)/|(10,5)| = (3.57771, 1.78885).
    d.kinds[0].behaviour.pursue = 1;
    State s = step_once(d, make_state(2, {10, 10}, {0, 0}));
    CHECK(s.vx[0] == Approx(3.57771).margin(kTol));
    CHECK(s.vy[0] == Approx(1.78885).margin(kTol));
  }
  SECTION("evade") {
    d.kinds[0].behaviour.evade = 1;
    State s = step_once(d, make_state(2, {10, 10}, {0, 0}));
    CHECK(s.vx[0] == Approx(-3.57771).margin(kTol));
    CHECK(s.vy[0] == Approx(-1.78885).margin(kTol));
  }
}

TEST_CASE("wander seeks a point on the circle ahead from the counter-based generator",
          "[behaviour]") {
  // Step 0: the smoothstep weight is 0, so the jitter is the keyframe u0 of (seed, id, key 0):
  // target = h * L + R * u0 with h = (1,0), L = 4, R = 2; desired = 4 * target / |target|;
  // F = desired - v; v' = v + F = desired.
  WorldDef d = lone_def(2);
  d.kinds[0].behaviour.wander = 1;
  d.seed = 7;
  const double a = 2.0 * 3.14159265358979323846 * random_unit(7, 0, kStreamWander, 0);
  const double tx = 4 + 2 * std::cos(a), ty = 2 * std::sin(a);
  const double n = std::hypot(tx, ty);
  State s = step_once(d, make_state(2, {50, 50}, {1, 0}));
  CHECK(s.vx[0] == Approx(4 * tx / n).margin(kTol));
  CHECK(s.vy[0] == Approx(4 * ty / n).margin(kTol));
}

TEST_CASE("wander paths turn smoothly and stay deterministic", "[behaviour]") {
  // The wander target lies within asin(R/L) = 30 deg of the heading; with max_force 2,
  // dt 0.1 and speeds >= min_speed 1, one step turns at most asin(0.2 / 1) = 11.54 deg.
  WorldDef d = tiny_def(2, 100.0, Boundary::wrap, 5);
  d.engine = EngineKind::naive;
  d.kinds[0].rules.radius = 1e-3;  // no flocking
  d.kinds[0].rules.separation_radius = 1e-3;
  d.kinds[0].behaviour.wander = 1;
  World w = World::create(d);
  State prev = w.state();
  double max_turn = 0, total_turn = 0;
  for (int k = 0; k < 200; ++k) {
    w.step();
    State cur = w.state();
    for (std::size_t i = 0; i < cur.id.size(); ++i) {
      const double t = angle_between(prev.vx[i], prev.vy[i], 0, cur.vx[i], cur.vy[i], 0);
      max_turn = std::max(max_turn, t);
      total_turn += t;
    }
    prev = cur;
  }
  CHECK(max_turn <= std::asin(0.2) + 1e-5);
  CHECK(total_turn / 5 > 0.5);  // it does wander: more than ~30 degrees per boid in 20 s
  World w2 = World::create(d);
  w2.step(200);
  CHECK(w2.state_hash() == w.state_hash());
}

TEST_CASE("arrival stops near the goal without overshooting", "[behaviour]") {
  // From 40 u away at full speed toward the goal; the distance must shrink monotonically
  // (never pass the goal) and end below 0.05 u.
  WorldDef d = lone_def(2, 1, 0.1);
  d.kinds[0].behaviour.arrive = 1;
  d.kinds[0].motion.max_force = 2;
  d.goal = {60, 50};
  World w = World::create(d);
  w.set_state(make_state(2, {20, 50}, {4, 0}));
  double last = 40;
  double max_x = 0;
  for (int k = 0; k < 400; ++k) {
    w.step();
    State s = w.state();
    max_x = std::max(max_x, s.x[0]);
    const double now = dist(s, 0, 60, 50);
    CHECK(now <= last + 1e-9);
    last = now;
  }
  CHECK(max_x <= 60 + 1e-9);
  CHECK(last < 0.05);
}

TEST_CASE("pursuit catches a straight-moving target sooner than seek", "[behaviour]") {
  // Target starts at (50,20) moving +x at 2 u/s; the chaser starts at (20,60) at rest.
  auto catch_steps = [](bool pursue) {
    WorldDef d = lone_def(2, 1, 0.1);
    d.size = 400;
    d.kinds[0].motion.max_force = 4;
    (pursue ? d.kinds[0].behaviour.pursue : d.kinds[0].behaviour.seek) = 1;
    d.target.position = {50, 20};
    d.target.velocity = {2, 0};
    d.target.hold = 0;
    d.target.move = 1e6;
    World w = World::create(d);
    w.set_state(make_state(2, {20, 60}, {0, 0}));
    for (int k = 1; k <= 2000; ++k) {
      if (pursue) {
        w.step();
      } else {
        // Plain seek at the target's current position: the goal is moved to it every step.
        WorldDef nd = d;
        nd.goal = {50 + 2 * 0.1 * (k - 1), 20};
        World nw = World::create(nd);
        nw.set_state(w.state());
        nw.step();
        w = std::move(nw);
      }
      State s = w.state();
      if (dist(s, 0, 50 + 2 * 0.1 * k, 20) < 1.0) return k;
    }
    return 100000;
  };
  const int p = catch_steps(true), s = catch_steps(false);
  INFO("pursue " << p << " steps, seek " << s << " steps");
  CHECK(p < s);
  CHECK(p < 2000);
}

TEST_CASE("the closest-neighbour and cohesion thresholds", "[behaviour]") {
  WorldDef d = lone_def(2, 2);
  d.kinds[0].rules.radius = 5;
  d.kinds[0].rules.separation_radius = 0.1;
  SECTION("closest separation acts only nearer than closest_min_distance") {
    // Boids at (10,10) and (11,10), v = 0: for boid 0 the closest offset is (1,0), 1 < 2:
    // desired = 4 * (-1,0), F = (-4,0): v0' = (-4,0); boid 1 mirrors: (4,0).
    d.kinds[0].behaviour.closest_separation = 1;
    State s = step_once(d, make_state(2, {10, 10, 11, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(-4).margin(kTol));
    CHECK(s.vx[1] == Approx(4).margin(kTol));
    d.kinds[0].behaviour.closest_min_distance = 0.5;
    s = step_once(d, make_state(2, {10, 10, 11, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(0).margin(kTol));
  }
  SECTION("cohesion acts only beyond cohesion_max_distance from the local centroid") {
    // Offset to the centroid (3,0): with the threshold 2 cohesion acts: F = 0.5*(3,0).
    d.kinds[0].rules.cohesion = 0.5;
    d.kinds[0].behaviour.cohesion_max_distance = 2;
    State s = step_once(d, make_state(2, {10, 10, 13, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(1.5).margin(kTol));
    d.kinds[0].behaviour.cohesion_max_distance = 4;
    s = step_once(d, make_state(2, {10, 10, 13, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(0).margin(kTol));
  }
}

TEST_CASE("simplified rules: global centre and alignment toward the destination", "[behaviour]") {
  // Boids at (10,10) and (30,10) (too far to see each other): centre (20,10).
  WorldDef d = lone_def(2, 2);
  d.kinds[0].rules.radius = 5;
  d.kinds[0].rules.separation_radius = 1;
  SECTION("global cohesion") {
    // F0 = 0.1 * (10,0) = (1,0); F1 = (-1,0).
    d.kinds[0].behaviour.global_cohesion = 0.1;
    State s = step_once(d, make_state(2, {10, 10, 30, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(1).margin(kTol));
    CHECK(s.vx[1] == Approx(-1).margin(kTol));
  }
  SECTION("destination alignment") {
    // Goal (20,50): direction from the centre (0,1); desired (0,4) for both.
    d.kinds[0].behaviour.destination_alignment = 1;
    d.goal = {20, 50};
    State s = step_once(d, make_state(2, {10, 10, 30, 10}, {0, 0, 0, 0}));
    CHECK(s.vx[0] == Approx(0).margin(kTol));
    CHECK(s.vy[0] == Approx(4).margin(kTol));
    CHECK(s.vy[1] == Approx(4).margin(kTol));
  }
}

TEST_CASE("containment steers back inside the margin", "[behaviour]") {
  // x = 2, margin 5: F = 1 * 4 * (5 - 2) / 5 = 2.4 along +x.
  WorldDef d = lone_def(2);
  d.kinds[0].behaviour.containment = 1;
  State s = step_once(d, make_state(2, {2, 50}, {0, 0}));
  CHECK(s.vx[0] == Approx(2.4).margin(kTol));
  CHECK(s.vy[0] == Approx(0).margin(kTol));
}

TEST_CASE("the ellipse vehicle limits forward, braking and lateral force", "[behaviour]") {
  // v = (2,0), dt 0.1, accel 3, brake 4, lateral 1 (falloff 0).
  WorldDef d = lone_def(2, 1, 0.1);
  d.kinds[0].vehicle.model = Vehicle::ellipse;
  d.kinds[0].vehicle.accel_force = 3;
  d.kinds[0].vehicle.brake_force = 4;
  d.kinds[0].vehicle.lateral_force = 1;
  SECTION("forward: F = 5*((4,0)-(2,0)) = (10,0) -> (3,0); v' = 2.3") {
    d.kinds[0].behaviour.seek = 5;
    d.goal = {90, 50};
    State s = step_once(d, make_state(2, {50, 50}, {2, 0}));
    CHECK(s.vx[0] == Approx(2.3).margin(kTol));
  }
  SECTION("braking: F = (-6,0) -> (-4,0); v' = 1.6") {
    d.kinds[0].behaviour.seek = 1;
    d.goal = {10, 50};
    State s = step_once(d, make_state(2, {50, 50}, {2, 0}));
    CHECK(s.vx[0] == Approx(1.6).margin(kTol));
  }
  SECTION("sideways: F = (-2,4), e = 0.25 + 16 = 16.25, F /= 4.0311") {
    d.kinds[0].behaviour.seek = 1;
    d.goal = {50, 90};
    State s = step_once(d, make_state(2, {50, 50}, {2, 0}));
    const double k = 1 / std::sqrt(16.25);
    CHECK(s.vx[0] == Approx(2 - 2 * k * 0.1).margin(kTol));
    CHECK(s.vy[0] == Approx(4 * k * 0.1).margin(kTol));
  }
  SECTION("lateral falloff 0.5 at |v| = 2 of max 4 leaves 0.75 of the lateral limit") {
    d.kinds[0].vehicle.lateral_falloff = 0.5;
    d.kinds[0].behaviour.seek = 1;
    d.goal = {50, 90};
    State s = step_once(d, make_state(2, {50, 50}, {2, 0}));
    const double e = 0.25 + 16 / (0.75 * 0.75);
    const double k = 1 / std::sqrt(e);
    CHECK(s.vy[0] == Approx(4 * k * 0.1).margin(kTol));
  }
}

TEST_CASE("the turn-rate vehicle never turns faster than its limit", "[behaviour]") {
  for (int dims : {2, 3}) {
    WorldDef d = tiny_def(dims, 60.0, Boundary::wrap, 20);
    d.engine = EngineKind::naive;
    d.kinds[0].vehicle.model = Vehicle::turn_rate;
    d.kinds[0].vehicle.turn_rate = 45;  // 4.5 deg per step at dt 0.1
    d.kinds[0].behaviour.seek = 1;
    d.kinds[0].behaviour.wander = 1;
    World w = World::create(d);
    State prev = w.state();
    double max_turn = 0;
    for (int k = 0; k < 100; ++k) {
      w.step();
      State cur = w.state();
      for (std::size_t i = 0; i < cur.id.size(); ++i) {
        const double pz = dims == 3 ? prev.vz[i] : 0, cz = dims == 3 ? cur.vz[i] : 0;
        max_turn =
            std::max(max_turn, angle_between(prev.vx[i], prev.vy[i], pz, cur.vx[i], cur.vy[i], cz));
        const double sp = std::sqrt(cur.vx[i] * cur.vx[i] + cur.vy[i] * cur.vy[i] + cz * cz);
        CHECK(sp == Approx(4).margin(1e-4));
      }
      prev = cur;
    }
    INFO("dims " << dims);
    CHECK(max_turn <= 4.5 * 3.14159265358979323846 / 180 + 1e-4);
    CHECK(max_turn > 4.0 * 3.14159265358979323846 / 180);  // the limit is reached
  }
}

TEST_CASE("the abm profile reproduces the ABM comparison's velocity rule", "[behaviour]") {
  // 2D wrap, speed 1, dt 1. Boid 0 at (10,10) v (1,0); boid 1 at (10.5,10) v (0,1);
  // heading d01 = (0.5,0) < separation 1. For boid 0 (N = 1):
  // cohere = 0.03*(0.5,0) = (0.015,0); separate = 0.015*(-0.5,0) = (-0.0075,0);
  // match = 0.05*(0,1) = (0,0.05); v = ((1,0) + those)/2 = (0.50375, 0.025) -> normalised
  // (0.998772, 0.049567); p' = p + v.
  WorldDef d = tiny_def(2, 100.0, Boundary::wrap, 2);
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.profile = Profile::abm;
  d.dt = 1;
  RuleDef& r = d.kinds[0].rules;
  r.radius = 5;
  r.separation_radius = 1;
  r.cohesion = 0.03;
  r.separation = 0.015;
  r.alignment = 0.05;
  d.kinds[0].motion.max_speed = d.kinds[0].motion.min_speed = 1;
  State s = step_once(d, make_state(2, {10, 10, 10.5, 10}, {1, 0, 0, 1}));
  const double vx = 0.50375, vy = 0.025, n = std::hypot(vx, vy);
  CHECK(s.vx[0] == Approx(vx / n).margin(1e-9));
  CHECK(s.vy[0] == Approx(vy / n).margin(1e-9));
  CHECK(s.x[0] == Approx(10 + vx / n).margin(1e-9));
  // Boid 1: cohere (-0.015,0), separate (0.0075,0), match (0.05,0):
  // ((0,1) + (0.0425,0))/2 = (0.02125, 0.5).
  const double wx = 0.02125, wy = 0.5, m = std::hypot(wx, wy);
  CHECK(s.vx[1] == Approx(wx / m).margin(1e-9));
  CHECK(s.vy[1] == Approx(wy / m).margin(1e-9));
}

TEST_CASE("prey escape a predator they see, away and out of its path, boosted", "[behaviour]") {
  // Prey 0 at (10,10) at rest, predator 1 at (13,10) (3 < prey radius 9): a = (-1,0).
  // Predator heading (0,1): a.h = 0, e = 2a = (-1,0) normalised; desired = flee_boost 1.5 *
  // max_speed 4 = 6 along e; F = 1 * ((-6,0) - 0) -> v' = (-6,0): the boosted limit is 6.
  WorldDef d = lone_def(2, 2);
  d.predators = 1;
  d.kinds[1].behaviour.chase = 0;
  REQUIRE(d.kinds[0].behaviour.flee_predators == 1.0);
  REQUIRE(d.kinds[0].behaviour.flee_boost == 1.5);
  State init = make_state(2, {10, 10, 13, 10}, {0, 0, 0, 2});
  init.kind = {0, 1};
  State s = step_once(d, init);
  CHECK(s.vx[0] == Approx(-6).margin(kTol));
  CHECK(s.vy[0] == Approx(0).margin(kTol));
  // Predator heading (-1,1)/sqrt2 (across the prey's front): a.h = 1/sqrt2,
  // e = (-2,0) - (-0.5,0.5) = (-1.5,-0.5) -> (-0.948683,-0.316228); w = 0.5: v' = 3 e.
  d.kinds[0].behaviour.flee_predators = 0.5;
  init.vx[1] = -std::sqrt(2.0);
  init.vy[1] = std::sqrt(2.0);
  s = step_once(d, init);
  CHECK(s.vx[0] == Approx(-2.846050).margin(kTol));
  CHECK(s.vy[0] == Approx(-0.948683).margin(kTol));
  // A predator out of sight (farther than 9): no term, no boost.
  init.x[1] = 30;
  s = step_once(d, init);
  CHECK(s.vx[0] == 0);
  CHECK(s.vy[0] == 0);
}

TEST_CASE("prey evade the predicted position of the nearest predator", "[behaviour]") {
  // Prey at (10,10), predator at (13,10) moving (0,2): d = (3,0), T = 3/4 = 0.75,
  // predicted (3,1.5); desired = 4 * -(3,1.5)/3.3541 = (-3.57771, -1.78885) = v'.
  WorldDef d = lone_def(2, 2);
  d.predators = 1;
  d.kinds[0].behaviour.flee_predators = 0;
  d.kinds[0].behaviour.evade_predators = 1;
  d.kinds[1].behaviour.chase = 0;
  State init = make_state(2, {10, 10, 13, 10}, {0, 0, 0, 2});
  init.kind = {0, 1};
  State s = step_once(d, init);
  CHECK(s.vx[0] == Approx(-3.57771).margin(kTol));
  CHECK(s.vy[0] == Approx(-1.78885).margin(kTol));
}

TEST_CASE("predators chase the centroid or the nearest prey they see", "[behaviour]") {
  // Predator 2 at (10,10), prey 0 at (20,10) and 1 at (10,30) (both within 27), v = 0.
  // centroid offset (5,10): desired 6 * (5,10)/11.1803 = (2.68328, 5.36656), F clamped to 3.
  // nearest: prey 0 (d 10), at rest: desired (6,0) -> F (6,0) clamped to (3,0).
  WorldDef d = lone_def(2, 3);
  d.predators = 1;
  d.kinds[0].behaviour.flee_predators = 0;
  d.kinds[1].rules.separation = d.kinds[1].rules.alignment = d.kinds[1].rules.cohesion = 0;
  d.kinds[1].motion.min_speed = 0;
  State init = make_state(2, {20, 10, 10, 30, 10, 10}, {0, 0, 0, 0, 0, 0});
  init.kind = {0, 0, 1};
  State s = step_once(d, init);
  const double n = std::hypot(5.0, 10.0);
  CHECK(s.vx[2] == Approx(3 * 5 / n).margin(kTol));
  CHECK(s.vy[2] == Approx(3 * 10 / n).margin(kTol));
  d.kinds[1].behaviour.chase_mode = ChaseMode::nearest;
  s = step_once(d, init);
  CHECK(s.vx[2] == Approx(3).margin(kTol));
  CHECK(s.vy[2] == Approx(0).margin(kTol));
}

TEST_CASE("prey keep a larger distance from a predator with flee on", "[behaviour]") {
  // A predator crosses a loose group of resting prey in a straight line at 3 u/s; with flee
  // on, the closest approach to any prey must be larger than with flee off (where the prey
  // just sit and the predator passes within 0.5 u of one).
  auto closest = [](double flee) {
    WorldDef d = tiny_def(2, 100.0, Boundary::open, 6);
    d.engine = EngineKind::naive;
    d.predators = 1;
    d.kinds[0].behaviour.flee_predators = flee;
    d.kinds[0].motion.min_speed = 0;
    d.kinds[0].rules.separation = d.kinds[0].rules.alignment = d.kinds[0].rules.cohesion = 0;
    d.kinds[1].behaviour.chase = 0;
    d.kinds[1].motion.min_speed = d.kinds[1].motion.max_speed = 3;
    State init = make_state(2, {40, 50.5, 45, 48, 50, 52, 55, 49.5, 60, 51, 10, 50},
                            {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0});
    init.kind = {0, 0, 0, 0, 0, 1};
    World w = World::create(d);
    w.set_state(init);
    double best = 1e9;
    for (int k = 0; k < 250; ++k) {
      w.step();
      State s = w.state();
      for (std::size_t i = 0; i < 5; ++i) best = std::min(best, dist(s, i, s.x[5], s.y[5]));
    }
    return best;
  };
  const double on = closest(1), off = closest(0);
  INFO("closest approach: flee on " << on << ", off " << off);
  CHECK(off < 0.6);
  CHECK(on > 3 * off);
  CHECK(on > 2);
}

TEST_CASE("followers' centroid approaches the leader", "[behaviour]") {
  WorldDef d = tiny_def(2, 100.0, Boundary::reflect, 13);
  d.engine = EngineKind::naive;
  d.leaders = 1;
  d.goal = {80, 80};
  d.kinds[0].behaviour.follow_leader = 1;
  d.kinds[0].motion.max_speed = 5;  // followers can catch up with a leader at 4
  World w = World::create(d);
  auto gap = [](const State& s) {
    double cx = 0, cy = 0;
    for (std::size_t i = 0; i < 12; ++i) {
      cx += s.x[i] / 12;
      cy += s.y[i] / 12;
    }
    return std::hypot(cx - s.x[12], cy - s.y[12]);
  };
  const double before = gap(w.state());
  w.step(300);
  State s = w.state();
  const double after = gap(s);
  INFO("gap " << before << " -> " << after);
  CHECK(after < 0.3 * before);
  CHECK(after < 6);
  CHECK(dist(s, 12, 80, 80) < 1.0);  // the leader arrived
}

TEST_CASE("no boid ever ends a step inside an obstacle", "[behaviour]") {
  for (int dims : {2, 3}) {
    WorldDef d = tiny_def(dims, 40.0, Boundary::wrap, 60);
    d.engine = EngineKind::naive;
    d.kinds[0].behaviour.avoid = 1;
    d.kinds[0].behaviour.seek = 0.5;  // drive them through the obstacles
    if (dims == 2) {
      d.goal = {5, 5};
      d.spheres = {{{20, 20}, 6}, {{33, 8}, 3}};
      d.boxes = {{{2, 28}, {12, 34}}};
    } else {
      d.goal = {5, 5, 5};
      d.spheres = {{{20, 20, 20}, 6}};
      d.boxes = {{{25, 2, 2}, {35, 12, 12}}};
    }
    World w = World::create(d);
    int inside = 0;
    for (int k = 0; k < 150; ++k) {
      w.step();
      State s = w.state();
      for (std::size_t i = 0; i < s.id.size(); ++i) {
        const double z = dims == 3 ? s.z[i] : 0;
        for (const auto& o : d.spheres) {
          const double oz = dims == 3 ? o.center[2] : 0;
          if (dist(s, i, o.center[0], o.center[1], oz) < o.radius) ++inside;
          (void)z;
        }
        for (const auto& b : d.boxes) {
          bool in = true;
          const double p[3] = {s.x[i], s.y[i], z};
          for (int c = 0; c < dims; ++c) in = in && p[c] > b.lo[c] && p[c] < b.hi[c];
          if (in) ++inside;
        }
      }
    }
    INFO("dims " << dims);
    CHECK(inside == 0);
  }
}

TEST_CASE("formation settles on the sphere, attacks a moving target and re-forms", "[behaviour]") {
  // Target at (30,30,30): rests 30 s, moves 8 s at 2 u/s (+x), rests again.
  WorldDef d = tiny_def(3, 60.0, Boundary::reflect, 24);
  d.engine = EngineKind::naive;
  d.kinds[0].rules.separation = 0.3;
  d.kinds[0].rules.alignment = 0;
  d.kinds[0].rules.cohesion = 0;
  d.kinds[0].behaviour.formation = 2;
  d.formation.radius = 8;
  d.formation.settle_time = 2;
  d.formation.glide_speed = 1.5;
  d.target.position = {30, 30, 30};
  d.target.velocity = {2, 0, 0};
  d.target.hold = 30;
  d.target.move = 8;
  World w = World::create(d);
  auto radial_error = [&](double tx) {
    State s = w.state();
    double e = 0, mean = 0;
    for (std::size_t i = 0; i < s.id.size(); ++i) {
      const double r = dist(s, i, tx, 30, 30);
      e = std::max(e, std::abs(r - 8));
      mean += r / double(s.id.size());
    }
    return std::pair<double, double>(e, mean);
  };
  w.step(290);  // 29 s at rest
  auto [e1, m1] = radial_error(30);
  INFO("settled: max |r - R| " << e1);
  CHECK(e1 < 0.5);
  w.step(80);  // 8 s: the target moves to x = 46; the swarm attacks
  auto [e2, m2] = radial_error(46);
  INFO("attack: mean distance " << m2);
  CHECK(m2 < 4);
  w.step(290);  // at rest again at (46,30,30): re-form
  auto [e3, m3] = radial_error(46);
  INFO("re-formed: max |r - R| " << e3);
  CHECK(e3 < 0.5);
  (void)m1;
  (void)m3;
}

TEST_CASE("explain_forces lists the terms, their total and the neighbours", "[behaviour]") {
  WorldDef d = tiny_def(2, 100.0, Boundary::open, 3);
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.dt = 1;
  d.kinds[0].rules.radius = 5;
  d.kinds[0].behaviour.seek = 1;
  d.kinds[0].motion.max_force = 100;
  d.kinds[0].motion.min_speed = 0;
  d.goal = {20, 10};
  World w = World::create(d);
  w.set_state(make_state(2, {10, 10, 12, 10, 40, 40}, {1, 0, 1, 0, 0, 1}));
  ForceExplanation ex = explain_forces(w, 0);
  REQUIRE(ex.neighbours == std::vector<std::uint32_t>{1});
  double sum[2] = {0, 0};
  ForceTerm total, applied;
  for (const ForceTerm& t : ex.terms) {
    if (t.name == "total") {
      total = t;
    } else if (t.name == "applied") {
      applied = t;
    } else {
      sum[0] += t.x;
      sum[1] += t.y;
    }
  }
  // separation -1.5 * (2,0)/4 = (-0.75,0); alignment 0; cohesion 0.2*(2,0) = (0.4,0);
  // seek 4*(1,0) - (1,0) = (3,0); total (2.65, 0).
  CHECK(total.x == Approx(2.65).margin(1e-9));
  CHECK(sum[0] == Approx(total.x).margin(1e-12));
  CHECK(sum[1] == Approx(total.y).margin(1e-12));
  const State before = w.state();
  w.step();
  const State after = w.state();
  CHECK(applied.x == Approx(after.vx[0] - before.vx[0]).margin(1e-9));
  CHECK_THROWS_AS(explain_forces(w, 99), Error);
}

TEST_CASE("behaviour keys load from scenario files and survive a round trip", "[behaviour]") {
  const std::string text = R"(
[world]
dims = 2
size = 50.0
boundary = "reflect"
[boids]
count = 10
[predators]
count = 2
[predators.behaviour]
chase_mode = "nearest"
[leaders]
count = 1
[behaviour]
seek = 0.5
[vehicle]
model = "ellipse"
[goal]
position = [10, 20]
[obstacles]
spheres = [{center = [25, 25], radius = 3}]
boxes = [{lo = [1, 1], hi = [4, 5]}]
)";
  WorldDef d = parse_scenario(text, "t.toml");
  CHECK(d.predators == 2);
  CHECK(d.leaders == 1);
  CHECK(d.kinds[1].behaviour.chase_mode == ChaseMode::nearest);
  CHECK(d.kinds[0].vehicle.model == Vehicle::ellipse);
  CHECK(d.goal == std::vector<double>{10, 20});
  REQUIRE(d.spheres.size() == 1);
  CHECK(d.spheres[0].radius == 3);
  REQUIRE(d.boxes.size() == 1);
  CHECK(d.boxes[0].hi == std::vector<double>{4, 5});
  const std::string again = scenario_to_toml(d);
  WorldDef d2 = parse_scenario(again, "again.toml");
  CHECK(scenario_to_toml(d2) == again);
  World w = World::create(d);
  CHECK(w.kinds()[7] == 1);
  CHECK(w.kinds()[8] == 1);
  CHECK(w.kinds()[9] == 2);
  CHECK(w.kinds()[6] == 0);
}

TEST_CASE("bad behaviour input names file, line and key", "[behaviour]") {
  auto err = [](const std::string& text) {
    try {
      parse_scenario(text, "b.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("[world]\ndims = 2\n[goal]\nposition = [1, \"x\"]\n") ==
        "b.toml:4: goal.position: element 2: expected a number, got a string");
  CHECK(err("[world]\ndims = 2\n[goal]\nposition = [1, 2, 3]\n") ==
        "b.toml:4: goal.position: needs 2 numbers (world.dims), got 3");
  CHECK(err("[obstacles]\nspheres = [{center = [1, 2, 3], r = 1}]\n") ==
        "b.toml:2: obstacles.spheres[1]: missing key radius");
  CHECK(err("[obstacles]\nboxes = [{lo = [1, 2, 3], hi = [0, 5, 5]}]\n") ==
        "b.toml:2: obstacles.boxes: box 1: lo must be < hi in every coordinate");
  CHECK(err("[boids]\ncount = 3\n[predators]\ncount = 4\n") ==
        "b.toml:4: predators.count: predators.count + leaders.count (4) must be <= boids.count "
        "(3)");
  CHECK(err("[vehicle]\nbrake_force = 1.0\n") ==
        "b.toml:2: vehicle.brake_force: must be >= vehicle.accel_force (2), got 1");
}
