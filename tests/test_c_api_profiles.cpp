// The vicsek and couzin profiles and topological neighbours through the C API: scenario TOML
// selects them (the C struct has no field for them), and the C world steps to the same state
// as the C++ world of the same scenario, with each rule's own signature.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "boids/boids.h"
#include "boids/metrics.hpp"
#include "boids/scenario.hpp"
#include "boids/world.hpp"

namespace {

struct Case {
  const char* name;
  std::string toml;
};

std::vector<double> c_speeds(const boids_world* w, std::size_t n, int dims) {
  std::vector<double> v(n * std::size_t(dims));
  REQUIRE(boids_world_get_velocities(w, v.data(), v.size()) == BOIDS_OK);
  std::vector<double> s(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s2 = 0;
    for (int c = 0; c < dims; ++c)
      s2 += v[i * std::size_t(dims) + std::size_t(c)] * v[i * std::size_t(dims) + std::size_t(c)];
    s[i] = std::sqrt(s2);
  }
  return s;
}

}  // namespace

TEST_CASE("C API: vicsek, couzin and topological worlds from scenario TOML", "[c_api][profile]") {
  const std::vector<Case> cases = {
      {"vicsek",
       "[world]\ndims = 2\nsize = 10.0\nprofile = \"vicsek\"\n[boids]\ncount = 400\n"
       "[rules]\nradius = 1.0\nseparation_radius = 0.5\nnoise = 60.0\n[motion]\ndt = "
       "1.0\nmax_speed = 0.03\nmin_speed = 0.03\n"},
      {"couzin",
       "[world]\ndims = 3\nsize = 40.0\nprofile = \"couzin\"\n[boids]\ncount = 100\n"
       "[rules]\norientation_radius = 4.0\nradius = 14.0\n"},
      {"topological",
       "[world]\ndims = 3\nsize = 30.0\n[boids]\ncount = 600\n"
       "[rules]\nneighbours = \"topological\"\ntopological_k = 4\nradius = 12.0\n"},
  };
  for (const Case& k : cases) {
    INFO(k.name);
    boids_world* w = nullptr;
    const boids_status made = boids_world_create_from_scenario(k.toml.c_str(), &w);
    INFO(boids_last_error());
    REQUIRE(made == BOIDS_OK);
    REQUIRE(boids_world_step(w, 5) == BOIDS_OK);

    boids::WorldDef d = boids::parse_scenario(k.toml, k.name);
    boids::World cw = boids::World::create(d);
    cw.step(5);
    std::uint64_t h = 0;
    REQUIRE(boids_world_state_hash(w, &h) == BOIDS_OK);
    CHECK(h == cw.state_hash());

    boids_flock_metrics m;
    REQUIRE(boids_world_compute_metrics(w, 0, &m) == BOIDS_OK);
    const boids::FlockMetrics r = boids::compute_metrics(cw, 0);
    CHECK(m.polarization == r.polarization);
    CHECK(m.mean_neighbours == r.mean_neighbours);

    const std::string name = k.name;
    const std::vector<double> s = c_speeds(w, d.count, d.dims);
    if (name == "vicsek" || name == "couzin") {
      // Both models move every boid at the constant speed max_speed.
      const double v0 = d.kinds[0].motion.max_speed;
      for (double x : s) CHECK(x == Approx(v0).epsilon(1e-5));
      // And the profile is the one stepping: the standard rules give another state.
      boids::World sw =
          boids::World::create(boids::parse_scenario(k.toml, k.name, {"world.profile=standard"}));
      sw.step(5);
      CHECK(sw.state_hash() != h);
    } else {
      // At most k neighbours each, though many more lie within the radius.
      CHECK(m.mean_neighbours <= 4.0);
      CHECK(m.mean_neighbours > 3.0);
      boids::WorldDef metric = d;
      metric.kinds[0].rules.neighbours = boids::NeighbourRule::metric;
      boids::World mw = boids::World::create(metric);
      CHECK(boids::compute_metrics(mw, 0).mean_neighbours > 20.0);
    }
    boids_world_destroy(w);
  }
}
