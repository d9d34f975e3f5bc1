// rules.noise together with the steering behaviours, vehicles, predators, leaders and
// obstacles (docs/profiles.md, "Standard model with noise"): the noise turns the velocity the
// vehicle made, keeping its speed; both engines agree; the result is the same on every
// thread count and instruction set.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/scenario.hpp"
#include "engine_matrix.hpp"
#include "test_support.hpp"

using namespace boids;
using test::max_diff;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A small flock with behaviours on kind 0, 2 predators and 2 leaders (the highest ids).
WorldDef noisy_def(int dims, Boundary b, Precision prec, Vehicle vehicle, double noise) {
  WorldDef d = test::tiny_def(dims, 40.0, b, 300);
  d.precision = prec;
  d.predators = 2;
  d.leaders = 2;
  d.kinds[1].rules.radius = 15;
  d.goal.assign(std::size_t(dims), 30.0);
  BehaviourDef& k = d.kinds[0].behaviour;
  k.seek = 0.3, k.wander = 0.5, k.follow_leader = 0.3, k.evade_predators = 0.5;
  d.kinds[0].vehicle.model = vehicle;
  d.kinds[0].rules.noise = noise;
  return d;
}

WorldDef with_obstacles(WorldDef d) {
  d.kinds[0].behaviour.avoid = 1;
  if (d.dims == 2) {
    d.spheres = {{{15, 15}, 4}};
    d.boxes = {{{25, 5}, {32, 12}}};
  } else {
    d.spheres = {{{15, 15, 15}, 4}};
    d.boxes = {{{25, 5, 5}, {32, 12, 12}}};
  }
  return d;
}

}  // namespace

TEST_CASE("rules.noise with behaviours: the vehicle's velocity turned, its speed kept",
          "[noise][behaviour]") {
  for (Vehicle veh : {Vehicle::point_mass, Vehicle::ellipse, Vehicle::turn_rate}) {
    for (int dims : {2, 3}) {
      // One step from the same state with and without noise: the terms and the vehicle are
      // the same, so kind 0's new velocities differ only by the noise's turn.
      const double noise = 60, half = noise / 2 * kPi / 180;
      WorldDef quiet = noisy_def(dims, Boundary::wrap, Precision::f64, veh, 0);
      WorldDef loud = noisy_def(dims, Boundary::wrap, Precision::f64, veh, noise);
      World wq = test::create_checked(quiet);
      const State init = wq.state();
      wq.step();
      const State a = wq.state();
      const State b = test::step_once(loud, init);
      REQUIRE(a.id == b.id);
      double max_turn = 0;
      int turned = 0;
      for (std::size_t i = 0; i < a.id.size(); ++i) {
        double va[3] = {a.vx[i], a.vy[i], dims == 3 ? a.vz[i] : 0.0};
        double vb[3] = {b.vx[i], b.vy[i], dims == 3 ? b.vz[i] : 0.0};
        const double la = std::sqrt(va[0] * va[0] + va[1] * va[1] + va[2] * va[2]);
        const double lb = std::sqrt(vb[0] * vb[0] + vb[1] * vb[1] + vb[2] * vb[2]);
        INFO("vehicle " << int(veh) << " " << dims << "D boid " << a.id[i] << " kind "
                        << int(a.kind[i]));
        CHECK(lb == Approx(la).epsilon(1e-12));  // the turn keeps the speed
        if (a.kind[i] != 0) {
          // Predators and leaders have no noise: bit-identical.
          CHECK(va[0] == vb[0]);
          CHECK(va[1] == vb[1]);
          CHECK(va[2] == vb[2]);
          continue;
        }
        const double cosang =
            std::clamp((va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2]) / (la * lb), -1.0, 1.0);
        const double ang = std::acos(cosang);
        CHECK(ang <= half + 1e-6);
        max_turn = std::max(max_turn, ang);
        if (ang > 1e-3) ++turned;
      }
      INFO("vehicle " << int(veh) << " " << dims << "D");
      CHECK(max_turn > 0.9 * half);          // the noise acts, over its whole width
      CHECK(turned > int(a.id.size()) / 2);  // on most boids
    }
  }
}

TEST_CASE("rules.noise with behaviours and obstacles: grid matches naive", "[noise][behaviour]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
      for (Vehicle veh : {Vehicle::point_mass, Vehicle::turn_rate}) {
        WorldDef d = with_obstacles(
            noisy_def(dims, b, Precision::f64, veh, veh == Vehicle::turn_rate ? 90 : 40));
        d.engine = EngineKind::naive;
        World naive = test::create_checked(d);
        d.engine = EngineKind::grid;
        World grid = test::create_checked(d);
        d.kinds[0].rules.noise = 0;
        World quiet = test::create_checked(d);
        INFO(dims << "D " << (b == Boundary::wrap ? "wrap" : "reflect") << " vehicle " << int(veh));
        naive.step();
        grid.step();
        quiet.step();
        CHECK(max_diff(naive.state(), grid.state(), dims, b, d.size) < 1e-9);
        // ... and the noise changed the step.
        CHECK(max_diff(quiet.state(), grid.state(), dims, b, d.size) > 1e-3);
        naive.step(9);
        grid.step(9);
        CHECK(max_diff(naive.state(), grid.state(), dims, b, d.size) < 1e-6);
      }
    }
  }
}

TEST_CASE("rules.noise with behaviours: same bits on every instruction set and thread count",
          "[noise][behaviour][parallel]") {
  for (int dims : {2, 3}) {
    for (Precision prec : {Precision::f32, Precision::f64}) {
      WorldDef d =
          with_obstacles(noisy_def(dims, Boundary::reflect, prec, Vehicle::point_mass, 30));
      d.count = 1200;
      d.size = 60;
      d.threads = 1;
      d.simd = false;
      World ws = test::create_checked(d);
      REQUIRE(engine_of(ws).kernel_name() == "scalar");
      ws.step(8);
      const std::uint64_t ref = ws.state_hash();
      d.kinds[0].rules.noise = 0;
      World wq = test::create_checked(d);
      wq.step(8);
      CHECK(wq.state_hash() != ref);  // the noise is on
      d.kinds[0].rules.noise = 30;
      d.simd = true;
      for (Isa isa : test::testable_isas()) {
        test::MaxIsaScope cap(isa);
        for (int threads : {1, 3}) {
          INFO(isa_name(isa) << " " << dims << "D f64 " << (prec == Precision::f64) << " threads "
                             << threads);
          d.threads = threads;
          World w = test::create_checked(d);
          REQUIRE(engine_of(w).kernel_name() == isa_name(isa));
          w.step(8);
          CHECK(w.state_hash() == ref);
        }
      }
    }
  }
}

TEST_CASE("rules.noise is accepted with behaviours and refused with the abm profile",
          "[noise][behaviour]") {
  const WorldDef d = parse_scenario(
      "[rules]\nnoise = 10\n[predators]\ncount = 2\n[leaders]\ncount = 1\n"
      "[behaviour]\nseek = 0.5\nwander = 0.2\n",
      "t.toml");
  CHECK(d.kinds[0].rules.noise == 10);
  CHECK(d.predators == 2);
  CHECK_THROWS_WITH(parse_scenario("[world]\nprofile = \"abm\"\n[rules]\nnoise = 10\n", "t.toml"),
                    Catch::Contains("rules.noise") && Catch::Contains("abm"));
}
