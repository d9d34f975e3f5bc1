// The smallest boids program in C++: a flock of 2000 boids, 100 steps, read the positions.
#include <boids/boids.hpp>
#include <cstdio>

int main() {
  boids::WorldDef def = boids::default_world_def();  // every field documented, with units
  def.count = 2000;
  def.threads = 2;
  try {
    boids::World world = boids::World::create(def);
    world.step(100);
    const boids::ComponentsView<float> p = world.positions<float>();  // id order, zero-copy
    std::printf("boids %s: %zu boids after %llu steps, boid 0 at (%.2f, %.2f, %.2f)\n",
                boids::version(), world.count(), (unsigned long long)world.step_count(), p.x[0],
                p.y[0], p.z[0]);
  } catch (const boids::Error& e) {  // the only exception the API throws on bad input
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
