// boids_world_compute_metrics (include/boids/boids.h) against the C++ compute_metrics.
#include <catch2/catch.hpp>
#include <cstring>

#include "boids/boids.h"
#include "boids/metrics.hpp"

TEST_CASE("C API metrics equal the C++ ones and reject bad arguments", "[metrics][c_api]") {
  boids_world_def def = boids_default_world_def();
  def.dims = 2;
  def.size = 60;
  def.count = 500;
  def.predators = 20;
  def.threads = 2;
  boids_world* w = nullptr;
  REQUIRE(boids_world_create(&def, &w) == BOIDS_OK);
  REQUIRE(boids_world_step(w, 3) == BOIDS_OK);

  boids::WorldDef cd = boids::default_world_def();
  cd.dims = 2;
  cd.size = 60;
  cd.count = 500;
  cd.predators = 20;
  cd.threads = 1;
  boids::World cw = boids::World::create(cd);
  cw.step(3);
  for (int kind : {0, 1}) {
    boids_flock_metrics m;
    std::memset(&m, 0xff, sizeof m);
    REQUIRE(boids_world_compute_metrics(w, kind, &m) == BOIDS_OK);
    const boids::FlockMetrics r = boids::compute_metrics(cw, kind);
    CHECK(m.count == (kind == 0 ? 480u : 20u));
    CHECK(m.count == r.count);
    CHECK(m.moving == r.moving);
    CHECK(m.polarization == r.polarization);
    CHECK(m.milling == r.milling);
    CHECK(m.mean_speed == r.mean_speed);
    CHECK(m.mean_nnd == r.mean_nnd);
    CHECK(m.mean_neighbours == r.mean_neighbours);
    CHECK(m.clusters == r.clusters);
    CHECK(m.largest_cluster == r.largest_cluster);
    CHECK(m.mean_speed > 0);
  }
  boids_flock_metrics m{};
  m.count = 12345;
  CHECK(boids_world_compute_metrics(w, 5, &m) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(boids_last_error(), "boids_world_compute_metrics") != nullptr);
  CHECK(m.count == 12345);  // untouched on failure
  CHECK(boids_world_compute_metrics(nullptr, 0, &m) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_world_compute_metrics(w, 0, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  boids_world_destroy(w);
}
