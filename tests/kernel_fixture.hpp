// Shared pieces of the kernel-level tests that build a store and a cell list by hand and compare
// a kernel's FlockSums with a reference's (test_cell_sort.cpp, test_cluster_lanes.cpp).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "core/kernels.hpp"
#include "core/store.hpp"

namespace boids::test {

/// n boids of ids 0 .. n - 1, positions uniform in [0, size) per axis, velocities uniform in
/// [-2, 2) with every 7th boid at rest (so pairs of mixed view arise).
template <class Real>
void random_store(BoidStore<Real>& s, int dims, std::size_t n, double size, std::uint64_t seed) {
  s.dims = dims;
  s.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, size), uv(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i) {
    s.id[i] = std::uint32_t(i);
    for (int c = 0; c < dims; ++c) {
      s.p[c][i] = Real(u(gen));
      s.v[c][i] = Real(i % 7 == 0 ? 0.0 : uv(gen));
    }
  }
}

/// Every slot's sums equal bit for bit (the caller's INFO names the setup).
template <class Real, int D>
void require_same_sums(const std::vector<FlockSums<Real>>& got,
                       const std::vector<FlockSums<Real>>& ref) {
  REQUIRE(got.size() == ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    INFO("slot " << i);
    REQUIRE(got[i].k == ref[i].k);
    for (int c = 0; c < D; ++c) {
      REQUIRE(got[i].d[c] == ref[i].d[c]);
      REQUIRE(got[i].v[c] == ref[i].v[c]);
      REQUIRE(got[i].sep[c] == ref[i].sep[c]);
    }
  }
}

}  // namespace boids::test
