// The workloads of issue 14's targets ("every rule on the fast path"; docs/bench.md): each
// preset of those targets runs a workload next to its reference, and the table's `x ref` is
// their ratio. Predators and obstacles scale with n (n/100 each: 10,000 among 1M boids) and
// are placed by a fixed-seed generator in the box def_for() sized, so every run and every
// engine sees the same world.
#include <algorithm>
#include <cmath>
#include <random>

#include "bench/bench.hpp"
#include "boids/world.hpp"

namespace boids::bench {

std::vector<std::string> workload_names() {
  return {"plain",       "all-behaviours", "predators-0", "predators",
          "obstacles-0", "obstacles",      "standard-2d", "abm"};
}

namespace {

// Rule changes, before the box is sized (so they enter the expected neighbour count).
void before(WorldDef& d, const std::string& w) {
  BehaviourDef& b = d.kinds[0].behaviour;
  if (w == "all-behaviours") {
    RuleDef& r = d.kinds[0].rules;
    r.separation = 1.5;
    b.seek = 0.05;
    b.arrive = 0.05;
    b.flee = 0.05;
    b.flee_radius = 20;
    b.pursue = 0.02;
    b.evade = 0.02;
    b.wander = 0.1;
    b.follow_leader = 0.05;
    b.flee_predators = 1;
    b.avoid = 1;
    b.formation = 0.02;
    b.global_cohesion = 0.001;
    b.destination_alignment = 0.02;
    b.cohesion_max_distance = 3;
    b.closest_separation = 0.5;
  } else if (w == "predators-0" || w == "predators") {
    b.flee_predators = 1;
    d.kinds[1].behaviour.chase = 1;
  } else if (w == "obstacles-0" || w == "obstacles") {
    b.avoid = 1;
  } else if (w == "standard-2d" || w == "abm") {
    // The ABM comparison's large model: 400 birds in 150 x 150, visual distance 15.
    RuleDef& r = d.kinds[0].rules;
    d.dims = 2;  // the density below is per area
    d.count = 400;
    d.size = 150;
    d.boundary = Boundary::wrap;
    r.radius = 15;
    r.view_angle = 360;
    if (w == "abm") {
      d.profile = Profile::abm;
      d.dt = 1;
      r.separation_radius = 1;
      r.separation = 0.015;
      r.alignment = 0.05;
      r.cohesion = 0.03;
      d.kinds[0].motion.max_speed = d.kinds[0].motion.min_speed = 1;
    }
  } else if (!w.empty() && w != "plain") {
    std::string list;
    for (const auto& n : workload_names()) list += (list.empty() ? "" : ", ") + n;
    throw Error("--workload: unknown workload \"" + w + "\" (choose " + list + ")");
  }
}

// Populations placed in the sized box.
void after(WorldDef& d, const std::string& w) {
  std::mt19937_64 gen(14);
  std::uniform_real_distribution<double> u(0.0, d.size);
  const std::uint32_t m = std::max<std::uint32_t>(1, d.count / 100);
  if (w == "all-behaviours") {
    d.leaders = std::min<std::uint32_t>(10, d.count / 100);  // fewer only below 1,000 boids
    d.predators = std::min<std::uint32_t>(100, d.count / 10);
    for (int k = 0; k < 24; ++k) {
      std::vector<double> c(std::size_t(d.dims));
      for (double& x : c) x = u(gen);
      if (k < 16) {
        d.spheres.push_back({c, 2 + std::fmod(u(gen), 6.0)});
      } else {
        std::vector<double> hi = c;
        for (double& x : hi) x += 2 + std::fmod(u(gen), 8.0);
        d.boxes.push_back({c, hi});
      }
    }
  } else if (w == "predators") {
    d.predators = m;
  } else if (w == "obstacles") {
    for (std::uint32_t k = 0; k < m; ++k) {
      std::vector<double> c(std::size_t(d.dims));
      for (double& x : c) x = u(gen);
      d.spheres.push_back({c, 0.5 + std::fmod(u(gen), 1.5)});
    }
  }
}

}  // namespace

WorldDef workload_def(const WorldDef& base, const Config& c, std::string* note) {
  WorldDef b = base;
  before(b, c.workload);
  WorldDef d = def_for(b, c, note);
  after(d, c.workload);
  return d;
}

}  // namespace boids::bench
