// Every behaviour, vehicle and profile in the grid engine against the naive stepper, and the
// grid engine's determinism across thread counts with all of them on; plus every scenario
// file of scenarios/ loading and running in both engines.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

#include "core/scenario.hpp"
#include "engine_matrix.hpp"
#include "test_support.hpp"

using namespace boids;
using test::max_diff;

namespace {

struct Config {
  const char* name;
  std::function<void(WorldDef&)> apply;
};

// One configuration per behaviour family, each on top of a small flock with 2 predators and
// 2 leaders (the highest ids).
std::vector<Config> configs() {
  return {
      {"plain rules with predators and leaders (defaults)", [](WorldDef&) {}},
      {"seek and arrive",
       [](WorldDef& d) {
         d.kinds[0].behaviour.seek = 0.5;
         d.kinds[0].behaviour.arrive = 0.5;
       }},
      {"flee, pursue, evade a moving target",
       [](WorldDef& d) {
         d.target.velocity.assign(std::size_t(d.dims), 1.5);
         d.target.hold = 0.2;
         d.target.move = 1;
         d.kinds[0].behaviour.flee = 0.5;
         d.kinds[0].behaviour.flee_radius = 10;
         d.kinds[0].behaviour.pursue = 0.3;
         d.kinds[2].behaviour.evade = 1;
       }},
      {"wander", [](WorldDef& d) { d.kinds[0].behaviour.wander = 1; }},
      {"leader following", [](WorldDef& d) { d.kinds[0].behaviour.follow_leader = 1; }},
      {"predators pursue the nearest prey",
       [](WorldDef& d) {
         d.kinds[1].behaviour.chase_mode = ChaseMode::nearest;
         d.kinds[0].behaviour.evade_predators = 1;
       }},
      {"obstacles and avoidance",
       [](WorldDef& d) {
         d.kinds[0].behaviour.avoid = 1;
         d.kinds[1].behaviour.avoid = 1;
         if (d.dims == 2) {
           d.spheres = {{{15, 15}, 4}};
           d.boxes = {{{25, 5}, {32, 12}}};
         } else {
           d.spheres = {{{15, 15, 15}, 4}};
           d.boxes = {{{25, 5, 5}, {32, 12, 12}}};
         }
       }},
      {"containment", [](WorldDef& d) { d.kinds[0].behaviour.containment = 1; }},
      {"sphere formation with attack",
       [](WorldDef& d) {
         d.kinds[0].behaviour.formation = 2;
         d.formation.radius = 8;
         d.target.velocity.assign(std::size_t(d.dims), 1.0);
         d.target.hold = 0.5;
         d.target.move = 0.5;
       }},
      {"simplified rules",
       [](WorldDef& d) {
         d.kinds[0].behaviour.global_cohesion = 0.05;
         d.kinds[0].behaviour.destination_alignment = 0.3;
       }},
      {"threshold rules",
       [](WorldDef& d) {
         d.kinds[0].behaviour.cohesion_max_distance = 2;
         d.kinds[0].behaviour.closest_separation = 1;
         d.kinds[0].behaviour.closest_min_distance = 2;
       }},
      {"ellipse vehicle", [](WorldDef& d) { d.kinds[0].vehicle.model = Vehicle::ellipse; }},
      {"turn-rate vehicle",
       [](WorldDef& d) {
         d.kinds[0].vehicle.model = Vehicle::turn_rate;
         d.kinds[0].behaviour.seek = 1;
       }},
      {"abm profile",
       [](WorldDef& d) {
         d.profile = Profile::abm;
         d.kinds[0].rules.separation_radius = 1;
         d.kinds[0].rules.cohesion = 0.03;
         d.kinds[0].rules.separation = 0.015;
         d.kinds[0].rules.alignment = 0.05;
         d.kinds[0].motion.min_speed = d.kinds[0].motion.max_speed = 1;
       }},
  };
}

WorldDef base_def(int dims, Boundary b, Precision prec) {
  WorldDef d = test::tiny_def(dims, 40.0, b, 240);
  d.precision = prec;
  d.predators = 2;
  d.leaders = 2;
  d.kinds[1].rules.radius = 15;
  d.goal.assign(std::size_t(dims), 30.0);
  return d;
}

}  // namespace

TEST_CASE("every behaviour: grid matches naive", "[behaviour][grid]") {
  for (const Config& cfg : configs()) {
    for (int dims : {2, 3}) {
      for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
        if (cfg.name == std::string("abm profile") && (dims != 2 || b != Boundary::wrap)) continue;
        WorldDef d = base_def(dims, b, Precision::f64);
        cfg.apply(d);
        d.engine = EngineKind::naive;
        World naive = World::create(d);
        d.engine = EngineKind::grid;
        World grid = World::create(d);
        INFO(cfg.name << ", " << dims << "D, " << (b == Boundary::wrap ? "wrap" : "reflect"));
        naive.step();
        grid.step();
        CHECK(max_diff(naive.state(), grid.state(), dims, b, d.size) < 1e-9);
        naive.step(9);
        grid.step(9);
        CHECK(max_diff(naive.state(), grid.state(), dims, b, d.size) < 1e-6);
      }
    }
  }
}

TEST_CASE("all behaviours on: the grid engine is deterministic across thread counts",
          "[behaviour][grid][parallel]") {
  for (int dims : {2, 3}) {
    WorldDef d = base_def(dims, Boundary::reflect, Precision::f32);
    d.count = 1000;
    d.size = 60;
    for (const Config& cfg : configs()) {
      if (cfg.name != std::string("abm profile")) cfg.apply(d);
    }
    d.engine = EngineKind::grid;
    std::uint64_t hash[3] = {0, 0, 0};
    const int threads[3] = {1, 2, 4};
    for (int t = 0; t < 3; ++t) {
      d.threads = threads[t];
      World w = World::create(d);
      w.step(15);
      hash[t] = w.state_hash();
    }
    INFO(dims << "D");
    CHECK(hash[0] == hash[1]);
    CHECK(hash[0] == hash[2]);
  }
}

TEST_CASE("every scenario file runs in both engines and round-trips", "[behaviour][scenario]") {
  const char* files[] = {"destination",         "leader",
                         "predators_obstacles", "formation",
                         "steering_playground", "steering_playground_seek_evade",
                         "abm_comparison"};
  for (const char* f : files) {
    const std::string path = std::string(BOIDS_SOURCE_DIR) + "/scenarios/" + f + ".toml";
    INFO(path);
    WorldDef d = load_scenario(path);
    CHECK(parse_scenario(scenario_to_toml(d), "again").count == d.count);
    CHECK(scenario_to_toml(parse_scenario(scenario_to_toml(d), "again")) == scenario_to_toml(d));
    // A small copy keeps the test quick: the same file with at most 120 agents.
    const std::uint32_t specials = d.predators + d.leaders;
    d.count = std::min<std::uint32_t>(d.count, 120 + specials);
    d.threads = 1;
    d.engine = EngineKind::naive;
    World naive = World::create(d);
    d.engine = EngineKind::grid;
    World grid = World::create(d);
    naive.step(3);
    grid.step(3);
    const double tol = d.precision == Precision::f64 ? 1e-9 : 2e-3;
    CHECK(max_diff(naive.state(), grid.state(), d.dims, d.boundary, d.size) < tol);
  }
}

TEST_CASE("an obstacle on a reflecting wall keeps boids inside the box and outside it",
          "[behaviour][grid]") {
  for (EngineKind e : {EngineKind::naive, EngineKind::grid}) {
    WorldDef d = test::tiny_def(2, 30.0, Boundary::reflect, 150);
    d.engine = e;
    d.spheres = {{{0.0, 15.0}, 6.0}, {{30.0, 30.0}, 5.0}};
    d.kinds[0].behaviour.seek = 1;  // drive them into the corner obstacles
    d.goal = {1.0, 15.0};
    World w = World::create(d);
    int bad = 0;
    for (int k = 0; k < 100; ++k) {
      w.step();
      const State s = w.state();
      for (std::size_t i = 0; i < s.id.size(); ++i) {
        if (!(s.x[i] >= 0 && s.x[i] < 30 && s.y[i] >= 0 && s.y[i] < 30)) ++bad;
        for (const SphereObstacle& o : d.spheres) {
          if (std::hypot(s.x[i] - o.center[0], s.y[i] - o.center[1]) < o.radius) ++bad;
        }
      }
    }
    CHECK(bad == 0);
  }
}
