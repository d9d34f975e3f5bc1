// The C API of the flock metrics (boids_world_compute_metrics in include/boids/boids.h).
#include "api/c_api_internal.hpp"
#include "boids/boids.h"
#include "boids/metrics.hpp"

extern "C" boids_status boids_world_compute_metrics(const boids_world* world, int32_t kind,
                                                    boids_flock_metrics* out_metrics) {
  return boids::capi::guard("boids_world_compute_metrics", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    if (world == nullptr) throw boids::Error("world is NULL");
    if (out_metrics == nullptr) throw boids::Error("out_metrics is NULL");
    const boids::FlockMetrics m = boids::compute_metrics(world->world, kind);
    boids_flock_metrics c{};
    c.count = m.count;
    c.moving = m.moving;
    c.polarization = m.polarization;
    c.milling = m.milling;
    c.mean_speed = m.mean_speed;
    c.mean_nnd = m.mean_nnd;
    c.mean_neighbours = m.mean_neighbours;
    c.clusters = m.clusters;
    c.largest_cluster = m.largest_cluster;
    *out_metrics = c;
  });
}
