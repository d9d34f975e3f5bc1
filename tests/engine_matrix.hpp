// Shared fixtures of the engine-against-naive tests (test_grid.cpp, test_cluster.cpp,
// test_behaviours_grid.cpp, test_noise_behaviours.cpp): a random state, the small world the
// one-step matrix runs, and the largest difference between two states.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "test_support.hpp"

namespace boids::test {

/// Random state: `n` boids, positions uniform in [lo, lo + extent)^dims, velocity components
/// uniform in [-4, 4); kinds: every `special_every`-th boid a predator or leader (0 = none).
inline State random_state(int dims, std::uint32_t n, double lo, double extent, unsigned seed,
                          int special_every = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  State s;
  std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
  for (std::uint32_t i = 0; i < n; ++i) {
    s.id.push_back(i);
    std::uint8_t kind = 0;
    if (special_every > 0 && i % std::uint32_t(special_every) == 1) kind = std::uint8_t(1 + i % 2);
    s.kind.push_back(kind);
    for (int c = 0; c < dims; ++c) {
      p[c]->push_back(lo + extent * u(rng));
      v[c]->push_back(8.0 * u(rng) - 4.0);
    }
  }
  return s;
}

/// The one-step matrix's world: tiny_def with radius 9, separation 3, max speed 4, 1 thread.
inline WorldDef matrix_def(int dims, Boundary b, double size, std::uint32_t n, Precision prec) {
  WorldDef d = tiny_def(dims, size, b, n);
  d.precision = prec;
  d.threads = 1;
  for (auto& k : d.kinds) {
    k.rules.radius = 9;
    k.rules.separation_radius = 3;
    k.motion.max_speed = 4;
  }
  return d;
}

/// Largest component difference of positions and velocities between two states of the same
/// boids, with the minimum image for positions in a wrapping world.
inline double max_diff(const State& a, const State& b, int dims, Boundary bnd, double size) {
  const std::vector<double>* pa[3] = {&a.x, &a.y, &a.z};
  const std::vector<double>* pb[3] = {&b.x, &b.y, &b.z};
  const std::vector<double>* va[3] = {&a.vx, &a.vy, &a.vz};
  const std::vector<double>* vb[3] = {&b.vx, &b.vy, &b.vz};
  double m = 0;
  REQUIRE(a.id == b.id);
  REQUIRE(a.kind == b.kind);
  for (int c = 0; c < dims; ++c) {
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      double dp = (*pa[c])[i] - (*pb[c])[i];
      if (bnd == Boundary::wrap) dp -= size * std::nearbyint(dp / size);
      m = std::max({m, std::fabs(dp), std::fabs((*va[c])[i] - (*vb[c])[i])});
    }
  }
  return m;
}

}  // namespace boids::test
