// The grid engine's topological lane kernels (parallel/list_lanes_impl.hpp, and for float on AVX2
// and AVX-512 parallel/list_lanes_multi_impl.hpp): a cell's boids in
// SIMD lanes, their k nearest kept in registers and summed in id order. Checked against the
// naive stepper bit for bit, and the counters must show that the kernel really settled boids
// (and, on a lattice full of ties, that it handed the undecidable ones back to the gather).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parallel/list_step.hpp"
#include "test_support.hpp"

namespace {

struct LaneCase {
  int dims;
  boids::Boundary b;
  double size, radius;
  int k;
  double view;
  boids::Precision prec;
  std::uint32_t count;
};

}  // namespace

TEST_CASE("topological: the lane kernel settles boids, naive = grid bit for bit",
          "[topological][parallel]") {
  // Radii about the k-th neighbour distance (a few boids per cell), so the row pass runs, not
  // the pass's own grid (parallel/list_fine_grid.hpp), and every cell's boids go through the
  // lane kernel: a wrapped box with image shifts (its seam
  // cells on the per-pair minimum image), a wrapped box too small for shifts (minimum image
  // everywhere), reflecting and open boxes, 2D and 3D, float and double, view cones, k from 1
  // to the kernel's largest (15), and a k beyond it (16: the gather only).
  using B = boids::Boundary;
  using P = boids::Precision;
  const LaneCase cases[] = {{3, B::wrap, 40, 3.8, 7, 360, P::f32, 3000},
                            {3, B::wrap, 40, 3.8, 7, 360, P::f64, 3000},
                            {3, B::wrap, 12, 2.5, 12, 300, P::f32, 400},
                            {3, B::wrap, 10, 4, 15, 360, P::f64, 300},
                            {3, B::reflect, 40, 3.8, 7, 270, P::f64, 3000},
                            {3, B::open, 40, 3.8, 6, 360, P::f32, 3000},
                            {2, B::wrap, 120, 6, 15, 360, P::f32, 3000},
                            {2, B::reflect, 120, 4.5, 9, 200, P::f64, 3000},
                            {2, B::open, 120, 5, 12, 360, P::f32, 3000},
                            {3, B::wrap, 40, 3.8, 16, 360, P::f32, 3000}};
  for (const LaneCase& cs : cases) {
    boids::WorldDef d = boids::test::tiny_def(cs.dims, cs.size, cs.b, cs.count);
    d.precision = cs.prec;
    d.kinds[0].rules.radius = cs.radius;
    d.kinds[0].rules.separation_radius = 1.5;
    d.kinds[0].rules.view_angle = cs.view;
    d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
    d.kinds[0].rules.topological_k = cs.k;
    INFO("dims " << cs.dims << " boundary " << int(cs.b) << " k " << cs.k << " double "
                 << (cs.prec == P::f64));
    const int steps = boids::test::steps_or_sanitized(5, 2);
    auto hash = [&](boids::EngineKind e, int threads) {
      boids::WorldDef x = d;
      x.engine = e;
      x.threads = threads;
      boids::World w = boids::test::create_checked(x);
      w.step(steps);
      return w.state_hash();
    };
    const auto naive = hash(boids::EngineKind::naive, 1);
    for (boids::Isa isa : boids::test::testable_isas()) {
      boids::test::MaxIsaScope cap(isa);
      for (int threads : {1, 2}) {
        INFO("isa " << int(isa) << " threads " << threads);
        const std::uint64_t before = boids::list_lane_boids();
        const std::uint64_t slides = boids::list_row_copy_slides();
        std::uint64_t groups[3];
        for (int g = 0; g < 3; ++g) groups[g] = boids::list_lane_groups(4 >> g);
        const std::uint64_t short_inserts = boids::list_lane_short_inserts();
        const std::uint64_t double_pairs = boids::list_lane_double_pairs();
        const std::uint64_t slot_id_rows = boids::list_row_finish_slot_ids();
        CHECK(hash(boids::EngineKind::grid, threads) == naive);
        // The kernel runs on every instruction set: one boid per lane of at most 4 (double on
        // AVX-512 on AVX2's packs), and for float on AVX2 and AVX-512 in groups of 4, 2 and 1
        // boids (parallel/list_lanes_multi_impl.hpp).
        // Rows right after one another reuse the previous row's copy (RowCopy::slide) on every
        // instruction set (on 2 threads a task may hold one row only; the box of 10 has too
        // few cells a side).
        if (threads == 1 && cs.size > 10) CHECK(boids::list_row_copy_slides() > slides);
        if (cs.k <= 15)  // the kernel ran: `steps` steps of about every boid
          CHECK(boids::list_lane_boids() - before > std::uint64_t(steps - 1) * cs.count);
        else
          CHECK(boids::list_lane_boids() == before);
        // Float on AVX2 and AVX-512 takes the groups kernel, with cells ending in groups of 2
        // and of 1 boid (a few boids per cell: both are common); nothing else counts groups.
        const bool multi = cs.k <= 15 && cs.prec == P::f32 &&
                           (isa == boids::Isa::avx2 || isa == boids::Isa::avx512);
        // Its insertion network runs on half its k + 1 places when no lane of a group saw more
        // visible candidates (common at these radii).
        if (multi)
          CHECK(boids::list_lane_short_inserts() > short_inserts);
        else
          CHECK(boids::list_lane_short_inserts() == short_inserts);
        // Double on AVX-512 scans 4 boids x 2 candidates per 8-lane register and stages its
        // selections for the row finish (parallel/list_lanes_dz_impl.hpp,
        // list_lanes_finish_d_impl.hpp): at least one group per cell of every step.
        if (cs.k <= 15 && cs.prec == P::f64 && isa == boids::Isa::avx512)
          CHECK(boids::list_lane_double_pairs() - double_pairs >
                std::uint64_t(steps - 1) * cs.count / 8);
        else
          CHECK(boids::list_lane_double_pairs() == double_pairs);
        // That kernel's row finish reads the ids through the slots (the row copy carries none):
        // more than one x-row per step.
        if (multi)
          CHECK(boids::list_row_finish_slot_ids() - slot_id_rows > std::uint64_t(steps));
        else
          CHECK(boids::list_row_finish_slot_ids() == slot_id_rows);
        for (int g = 0; g < 3; ++g) {
          INFO("groups of " << (4 >> g));
          if (multi)
            CHECK(boids::list_lane_groups(4 >> g) > groups[g]);
          else
            CHECK(boids::list_lane_groups(4 >> g) == groups[g]);
        }
      }
    }
  }
}

TEST_CASE("topological: the lane kernel hands ties back to the gather, naive = grid",
          "[topological][parallel]") {
  // A 20 x 20 lattice, one unit apart, in a wrapped box of 20, radius 2.2: 4 neighbours at 1,
  // 4 at sqrt(2), 4 at 2, so with k = 7 the 7th place is a tie that only the id settles. The
  // lane kernel cannot see ids in its keys: it must hand these boids back (the counter) and
  // the result must still be the naive stepper's. k = 8 (no tie) it settles itself.
  for (int k : {7, 8}) {
    boids::WorldDef d = boids::test::tiny_def(2, 20, boids::Boundary::wrap, 400);
    d.kinds[0].rules.radius = 2.2;
    d.kinds[0].rules.separation_radius = 1.2;
    d.kinds[0].rules.neighbours = boids::NeighbourRule::topological;
    d.kinds[0].rules.topological_k = k;
    std::vector<double> pos, vel;
    for (int i = 0; i < 400; ++i) {
      pos.insert(pos.end(), {double(i % 20) + 0.5, double(i / 20) + 0.5});
      vel.insert(vel.end(), {std::cos(i * 0.7), std::sin(i * 0.7)});
    }
    const boids::State s0 = boids::test::make_state(2, pos, vel);
    INFO("k " << k);
    auto hash = [&](boids::EngineKind e, int threads) {
      boids::WorldDef x = d;
      x.engine = e;
      x.threads = threads;
      boids::World w = boids::test::create_checked(x);
      w.set_state(s0);
      w.step(1);
      return w.state_hash();
    };
    const auto naive = hash(boids::EngineKind::naive, 1);
    for (boids::Isa isa :
         {boids::Isa::scalar, boids::Isa::sse42, boids::Isa::avx2, boids::Isa::avx512}) {
      if (!boids::test::build_has(isa) || !boids::test::cpu_runs(isa)) {
        WARN("skipped: " << boids::isa_name(isa) << " not in this build or CPU");
        continue;
      }
      boids::test::MaxIsaScope cap(isa);
      const std::uint64_t settled = boids::list_lane_boids();
      const std::uint64_t back = boids::list_lane_unsettled();
      CHECK(hash(boids::EngineKind::grid, 2) == naive);
      if (k == 7) {
        CHECK(boids::list_lane_unsettled() - back == 400u);
      } else {
        CHECK(boids::list_lane_unsettled() == back);
        CHECK(boids::list_lane_boids() - settled == 400u);
      }
    }
  }
}
