// Helpers shared by the tests: small worlds from explicit states.
#pragma once

#include <string>
#include <vector>

#include "boids/world.hpp"

namespace boids::test {

/// A def for a tiny hand-checked world: given dims, size, boundary; everything else default.
inline WorldDef tiny_def(int dims, double size, Boundary b, std::uint32_t count) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.size = size;
  d.boundary = b;
  d.count = count;
  d.threads = 1;
  return d;
}

/// A state with the given positions and velocities (row-major, dims per boid), ids 0..n-1.
inline State make_state(int dims, const std::vector<double>& pos, const std::vector<double>& vel) {
  State s;
  const std::size_t n = pos.size() / std::size_t(dims);
  std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
  for (std::size_t i = 0; i < n; ++i) {
    s.id.push_back(std::uint32_t(i));
    s.kind.push_back(0);
    for (int c = 0; c < dims; ++c) {
      p[c]->push_back(pos[i * std::size_t(dims) + std::size_t(c)]);
      v[c]->push_back(vel[i * std::size_t(dims) + std::size_t(c)]);
    }
  }
  return s;
}

/// Runs one step of `def` from `init` and returns the new state.
inline State step_once(const WorldDef& def, const State& init, int steps = 1) {
  World w = World::create(def);
  w.set_state(init);
  w.step(steps);
  return w.state();
}

}  // namespace boids::test
