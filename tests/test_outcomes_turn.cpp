// Outcome: the turn-rate vehicle never turns by more than vehicle.turn_rate * dt in one step,
// exactly (measured in double from the stored velocities), in float and double, for
// near-opposite desired headings and at reflecting walls and obstacles (docs/behaviours.md,
// "Vehicles"); both engines, 2D and 3D.
#include <catch2/catch.hpp>

#include "outcome_support.hpp"
#include "test_support.hpp"

using namespace boids;
using namespace boids::test;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Largest turn of any boid over `steps` steps, and the smallest speed seen.
struct TurnRun {
  double max_turn = 0, min_speed = 1e9;
  long inside = 0;  // boid-steps ending inside an obstacle
};

bool inside_any(const WorldDef& d, const double* p) {
  for (const SphereObstacle& o : d.spheres) {
    double r2 = 0;
    for (int c = 0; c < d.dims; ++c) r2 += (p[c] - o.center[c]) * (p[c] - o.center[c]);
    if (r2 < o.radius * o.radius) return true;
  }
  for (const BoxObstacle& b : d.boxes) {
    bool in = true;
    for (int c = 0; c < d.dims; ++c) in = in && p[c] > b.lo[c] && p[c] < b.hi[c];
    if (in) return true;
  }
  return false;
}

TurnRun run_turns(const WorldDef& d, const State* init, int steps) {
  World w = World::create(d);
  if (init) w.set_state(*init);
  State prev = w.state();
  TurnRun r;
  for (int s = 0; s < steps; ++s) {
    w.step();
    const State cur = w.state();
    for (std::size_t i = 0; i < cur.id.size(); ++i) {
      const Row a = row(prev, i), b = row(cur, i);
      if (norm3(a.v) > 0 && norm3(b.v) > 0) r.max_turn = std::max(r.max_turn, angle3(a.v, b.v));
      r.min_speed = std::min(r.min_speed, norm3(b.v));
      if (inside_any(d, b.p)) ++r.inside;
    }
    prev = cur;
  }
  return r;
}

}  // namespace

TEST_CASE("turn rate is a hard limit for near-opposite headings, in float too", "[outcome][turn]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      WorldDef d = tiny_def(dims, 200.0, Boundary::open, 8);
      d.engine = fl.engine;
      d.precision = fl.precision;
      KindDef& k = d.kinds[0];
      k.rules.separation = k.rules.alignment = k.rules.cohesion = 0;
      k.vehicle.model = Vehicle::turn_rate;
      k.vehicle.turn_rate = 200;  // 20 degrees per step at dt 0.1
      k.behaviour.seek = 1;
      d.goal = dims == 2 ? std::vector<double>{20, 100} : std::vector<double>{20, 100, 100};
      // Heading +x, the goal straight behind, each boid a hair off the line so the desired
      // direction is within 1e-3..1e-7 rad of opposite.
      std::vector<double> pos, vel;
      for (int i = 0; i < 8; ++i) {
        const double off = std::pow(10.0, -3 - 0.5 * i);
        pos.insert(pos.end(), {100, 100 + off});
        vel.insert(vel.end(), {4, 0});
        if (dims == 3) {
          pos.push_back(100 - off);
          vel.push_back(0);
        }
      }
      const State init = make_state(dims, pos, vel);
      const TurnRun r = run_turns(d, &init, 30);
      const double limit = 200.0 * kPi / 180.0 * 0.1;
      INFO(dims << "D " << fl.name() << ": max turn " << r.max_turn * 180 / kPi << " deg");
      CHECK(r.max_turn <= limit);
      CHECK(r.max_turn > limit * 0.999);  // the limit is used
    }
  }
}

TEST_CASE("turn rate holds at reflecting walls and obstacles, which are never entered",
          "[outcome][turn]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      WorldDef d = tiny_def(dims, 30.0, Boundary::reflect, 40);
      d.engine = fl.engine;
      d.precision = fl.precision;
      d.seed = 11;
      KindDef& k = d.kinds[0];
      k.vehicle.model = Vehicle::turn_rate;
      k.vehicle.turn_rate = 150;  // 15 degrees per step
      k.behaviour.wander = 1;
      k.behaviour.seek = 0.3;
      if (dims == 2) {
        d.goal = {2, 2};
        d.spheres = {{{10, 10}, 4}};
        d.boxes = {{{-3, 18}, {6, 24}}, {{20, 20}, {26, 33}}};  // both cross a wall
      } else {
        d.goal = {2, 2, 2};
        d.spheres = {{{10, 10, 10}, 4}};
        d.boxes = {{{-3, 18, 5}, {6, 24, 15}}, {{20, 20, 20}, {26, 33, 26}}};
      }
      const TurnRun r = run_turns(d, nullptr, 300);
      const double limit = 150.0 * kPi / 180.0 * 0.1;
      INFO(dims << "D " << fl.name() << ": max turn " << r.max_turn * 180 / kPi << " deg");
      CHECK(r.max_turn <= limit);
      CHECK(r.inside == 0);
      CHECK(r.min_speed > 3.99);  // constant speed: neither wall nor push-out changed it
    }
  }
}
