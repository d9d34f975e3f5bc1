// Outcome: arrival comes to rest on the goal, without overshoot, for any mass, force limit
// and vehicle, with the default min_speed (docs/behaviours.md, "Arrival"); both engines, 2D
// and 3D, float and double.
#include <catch2/catch.hpp>

#include "outcome_support.hpp"
#include "test_support.hpp"

using namespace boids;
using namespace boids::test;

namespace {

struct ArriveRun {
  double end_dist = 0, end_speed = 0;
  double worst_rise = 0;  // largest increase of the distance to the goal in one step
  double overshoot = 0;   // how far past the goal along the approach direction
};

// Three boids 12 u from the goal on different sides, flocking off, min_speed left at its
// default (1), so the floor must give way to the arrival.
ArriveRun run_arrival(int dims, Flavour fl, Vehicle model, double mass, double max_force, int start,
                      int steps) {
  WorldDef d = tiny_def(dims, 60.0, Boundary::reflect, 3);
  d.engine = fl.engine;
  d.precision = fl.precision;
  KindDef& k = d.kinds[0];
  k.rules.separation = k.rules.alignment = k.rules.cohesion = 0;
  k.behaviour.arrive = 1;
  k.vehicle.model = model;
  k.vehicle.mass = mass;
  k.vehicle.turn_rate = 90;
  k.motion.max_force = max_force;
  k.vehicle.accel_force = max_force;  // the ellipse's forward semi-axis
  k.vehicle.brake_force = 2 * max_force;
  k.vehicle.lateral_force = max_force;
  REQUIRE(k.motion.min_speed == 1.0);
  d.goal = dims == 2 ? std::vector<double>{30, 30} : std::vector<double>{30, 30, 30};
  // The starting speed: max_speed, or less when braking at a = max_force / mass could not
  // stop within the 12 u (no vehicle can: that would be an overshoot by physics).
  const double a = max_force / mass;
  const double v0 = std::min(4.0, 0.9 * std::sqrt(2 * a * 12));
  // Start directions (unit): +x, -y, and diagonal; start 12 u away against them.
  const double dirs[3][3] = {{1, 0, 0}, {0, -1, 0}, {0.6, 0.8, 0}};
  std::vector<double> pos, vel;
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < dims; ++c) {
      pos.push_back(30 - 12 * dirs[i][c]);
      // start 0: at rest; 1: at speed v0 toward the goal; 2: at v0 across the line.
      double vc = 0;
      if (start == 1) vc = v0 * dirs[i][c];
      if (start == 2) vc = c == 0 ? -v0 * dirs[i][1] : (c == 1 ? v0 * dirs[i][0] : 0);
      vel.push_back(vc);
    }
  }
  World w = World::create(d);
  w.set_state(make_state(dims, pos, vel));
  ArriveRun r;
  std::vector<double> last(3, 12.0);
  for (int s = 0; s < steps; ++s) {
    w.step();
    const State st = w.state();
    for (std::size_t i = 0; i < 3; ++i) {
      const Row b = row(st, i);
      double to[3] = {0, 0, 0};
      for (int c = 0; c < dims; ++c) to[c] = b.p[c] - 30;
      const double dist = norm3(to);
      r.worst_rise = std::max(r.worst_rise, dist - last[i]);
      last[i] = dist;
      double past = 0;  // (p - g) . approach direction
      for (int c = 0; c < dims; ++c) past += to[c] * dirs[i][c];
      r.overshoot = std::max(r.overshoot, past);
      if (s == steps - 1) {
        r.end_dist = std::max(r.end_dist, dist);
        r.end_speed = std::max(r.end_speed, norm3(b.v));
      }
    }
  }
  return r;
}

const char* vehicle_name(Vehicle v) {
  return v == Vehicle::point_mass ? "point_mass" : v == Vehicle::ellipse ? "ellipse" : "turn_rate";
}

}  // namespace

TEST_CASE("arrival rests on the goal without overshoot for any mass, force and vehicle",
          "[outcome][arrive]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines(false)) {
      for (Vehicle model : {Vehicle::point_mass, Vehicle::ellipse, Vehicle::turn_rate}) {
        for (double mass : {0.25, 1.0, 10.0}) {
          for (double max_force : {0.5, 2.0, 50.0}) {
            for (int start : {0, 1}) {
              // The slowest case (mass 10, force 0.5: 0.05 u/s^2) needs about 31 s for 12 u.
              const ArriveRun r = run_arrival(dims, fl, model, mass, max_force, start, 700);
              INFO(dims << "D " << fl.name() << " " << vehicle_name(model) << " mass " << mass
                        << " max_force " << max_force << " start " << start);
              CHECK(r.end_dist < 0.05);
              CHECK(r.end_speed < 0.05);
              CHECK(r.worst_rise < 1e-4);  // the distance never grows: no overshoot, no orbit
              CHECK(r.overshoot < 1e-3);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("arrival from a crossing velocity still comes to rest on the goal", "[outcome][arrive]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      for (Vehicle model : {Vehicle::point_mass, Vehicle::ellipse, Vehicle::turn_rate}) {
        for (double mass : {0.25, 4.0}) {
          const ArriveRun r = run_arrival(dims, fl, model, mass, 2.0, 2, 600);
          INFO(dims << "D " << fl.name() << " " << vehicle_name(model) << " mass " << mass);
          CHECK(r.end_dist < 0.05);
          CHECK(r.end_speed < 0.05);
        }
      }
    }
  }
}
