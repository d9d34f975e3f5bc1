// Shared pieces of the kernel-level tests that build a store and a cell list by hand and compare
// a kernel's FlockSums with a reference's (test_cell_sort.cpp, test_cluster_lanes.cpp): the store,
// the small world, its cell list.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"

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

/// The kernel tests' small world: a box of 30, radius 5, separation radius 2 (several groups
/// per cell at the tests' counts).
inline WorldDef small_world(int dims, Boundary boundary, double view_angle) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.boundary = boundary;
  d.size = 30;
  d.kinds[0].rules.radius = 5;
  d.kinds[0].rules.separation_radius = 2;
  d.kinds[0].rules.view_angle = view_angle;
  return d;
}

/// src sorted into dst by a one-thread cell list of d's box and kind 0's radius (the cluster
/// engine's sub-cell order when subcell_order); the view the kernels read.
template <class Real>
GridView<Real> build_cells(const WorldDef& d, const ModelParams<Real>& m, BoidStore<Real>& src,
                           BoidStore<Real>& dst, CellList<Real>& cells, bool subcell_order) {
  GridSettings gs;
  gs.dims = d.dims;
  gs.boundary = d.boundary;
  gs.size = d.size;
  gs.radius = d.kinds[0].rules.radius;
  gs.subcell_order = subcell_order;
  Executor ex(1);
  cells.build(gs, src, dst, ex);
  return cells.view(dst, m);
}

}  // namespace boids::test
