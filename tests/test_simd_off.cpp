// engine.simd = false (docs/model.md: "false forces the scalar kernels") reaches every pass that
// selects a kernel by instruction set through ModelParams::isa, not only the row kernels: the
// topological pass's lane kernels, the prey scans and sweeps, the behaviours' sines. The
// results are the same bits either way; the counters show which kernels ran.
#include <catch2/catch.hpp>
#include <cstdint>

#include "core/kernels.hpp"
#include "core/model.hpp"
#include "parallel/list_step.hpp"
#include "test_support.hpp"

TEST_CASE("engine.simd = false: the model's instruction set is scalar", "[simd]") {
  boids::WorldDef d = boids::default_world_def();
  d.simd = false;
  CHECK(boids::ModelParams<float>::from_def(d).isa == boids::Isa::scalar);
  CHECK(boids::ModelParams<double>::from_def(d).isa == boids::Isa::scalar);
  d.simd = true;
  CHECK(boids::ModelParams<float>::from_def(d).isa == boids::dispatched_isa());
}

TEST_CASE("engine.simd = false: the topological pass runs no SIMD lane kernel",
          "[simd][topological]") {
  // Float in 3D at radii about the 7th neighbour's distance: on AVX2 and AVX-512 the row pass
  // takes the groups kernel (list_lane_groups counts its groups of 4 boids); with engine.simd
  // = false it must not, and the state must be the same bits.
  const boids::Isa best = boids::dispatched_isa();
  if (best < boids::Isa::avx2) {
    WARN("skipped: the groups kernel needs AVX2 or AVX-512, this build and CPU give "
         << boids::isa_name(best));
    return;
  }
  boids::WorldDef d = boids::test::tiny_def(3, 40, boids::Boundary::wrap, 3000);
  d.kinds[0].rules.radius = 3.8;
  d.kinds[0].rules.separation_radius = 1.5;
  d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
  d.kinds[0].rules.topological_k = 7;
  auto run = [&](bool simd, std::uint64_t& groups) {
    boids::WorldDef x = d;
    x.simd = simd;
    const std::uint64_t before = boids::list_lane_groups(4);
    boids::World w = boids::test::create_checked(x);
    w.step(3);
    groups = boids::list_lane_groups(4) - before;
    return w.state_hash();
  };
  std::uint64_t g_simd = 0, g_scalar = 0;
  const std::uint64_t h_simd = run(true, g_simd);
  const std::uint64_t h_scalar = run(false, g_scalar);
  CHECK(g_simd > 0);
  CHECK(g_scalar == 0);
  CHECK(h_scalar == h_simd);
}
