// Issue 14, every behaviour at the plain step's cost: the grid engine finishes kind 0 in
// behaviour lanes (FinishView::behaviour, core/behaviour_lanes_impl.hpp) when behaviours are
// on. The lanes are called here directly, on every instruction set, against
// behaviour_finish() boid by boid, bit for bit: random boids and sums plus the inputs where
// a select could differ from the scalar branch (no neighbours, no closest neighbour, a boid
// at rest, boids on an obstacle, the target at rest and moving, short last batches). If the
// finish ignored FinishView::behaviour it would give the plain step's results and fail.
#include <catch2/catch.hpp>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/behaviour_kinds.hpp"
#include "core/behaviours.hpp"
#include "core/kernels.hpp"
#include "core/model.hpp"
#include "core/store.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;

// The all-behaviours workload (bench/make_fastpath_scenarios.py's allbeh), small and dense.
WorldDef lanes_world(int dims, Boundary b, bool moving_target) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.boundary = b;
  d.size = dims == 3 ? 40 : 80;
  BehaviourDef& k = d.kinds[0].behaviour;
  k.seek = 0.05, k.arrive = 0.05, k.flee = 0.05, k.flee_radius = 20, k.pursue = 0.02;
  k.evade = 0.02, k.wander = 0.1, k.follow_leader = 0.05, k.flee_predators = 1, k.avoid = 1;
  k.formation = 0.02, k.global_cohesion = 0.001, k.destination_alignment = 0.02;
  k.cohesion_max_distance = 3, k.closest_separation = 0.5, k.evade_predators = 0.5;
  d.kinds[1].behaviour.chase = 1;
  const double s = d.size;
  auto at = [&](double x, double y, double z) {
    std::vector<double> v = {x * s, y * s, z * s};
    v.resize(std::size_t(dims));
    return v;
  };
  d.spheres.push_back({at(.3, .3, .3), 4});
  d.spheres.push_back({at(.7, .2, .6), 3});
  d.boxes.push_back({at(.6, .6, .6), at(.7, .65, .75)});
  d.target.position = at(.5, .5, .5);
  d.target.velocity = at(moving_target ? 5 : 0.01, 0, 0);
  d.target.hold = 1, d.target.move = 1;
  return d;
}

template <class Real, int D>
void check_lanes(Boundary boundary, bool moving_target, std::uint64_t step) {
  WorldDef def = lanes_world(D, boundary, moving_target);
  def.precision = sizeof(Real) == 8 ? Precision::f64 : Precision::f32;
  const ModelParams<Real> m = ModelParams<Real>::from_def(def);
  const Real size = m.size;
  std::mt19937 rng(11 + D + std::uint32_t(step));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto r = [&](double lo, double hi) { return Real(lo + (hi - lo) * u(rng)); };

  // Kind 0 in slots [0, n0), then 30 predators and 7 leaders (prepare_step finds them).
  const std::size_t n0 = 203, n = n0 + 37;
  BoidStore<Real> s;
  s.dims = D;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.kind[i] = i < n0 ? 0 : (i < n0 + 30 ? 1 : 2);
    s.id[i] = std::uint32_t((i * 7919) % n);  // ids in no particular slot order
    for (int c = 0; c < D; ++c) {
      s.p[c][i] = r(0.0, double(size));
      s.v[c][i] = r(-3.0, 3.0);
    }
  }
  for (int c = 0; c < D; ++c) {
    s.v[c][5] = Real(0);                // at rest: wander's and avoidance's zero heading
    s.p[c][6] = m.beh.spheres[0].c[c];  // at an obstacle's centre: the push-out
    s.p[c][7] = m.beh.spheres[0].c[c] + Real(c == 0 ? 3.5 : 0);  // within avoid_distance
  }
  const StepContext<Real> ctx = prepare_step<Real>(m, s, step, 5);
  REQUIRE(ctx.beh.active);
  REQUIRE(beh::lanes_finish_ok(m, ctx.beh));  // so the grid engine takes the lanes
  REQUIRE(ctx.beh.target_moving == moving_target);

  std::vector<FlockSums<Real>> sums(n0);
  for (std::size_t i = 0; i < n0; ++i) {
    FlockSums<Real>& f = sums[i];
    f.k = i % 5 == 0 ? 0 : std::int32_t(1 + u(rng) * 30);
    for (int c = 0; c < D; ++c) {
      f.d[c] = r(-100.0, 100.0);
      f.v[c] = r(-60.0, 60.0);
      f.sep[c] = r(-2.0, 2.0);
      f.near_d[c] = r(-1.0, 1.0);
    }
    const int q = int(i % 4);  // none, far, near, coincident
    f.near_d2 = q == 0 ? std::numeric_limits<Real>::infinity()
                       : (q == 1 ? Real(50) : (q == 2 ? r(0.01, 0.9) : Real(0)));
  }

  // The reference: finish_boid (the behaviour path) boid by boid.
  std::vector<Real> ep[3], ev[3];
  for (int c = 0; c < 3; ++c) {
    ep[c].assign(n0, Real(0));
    ev[c].assign(n0, Real(0));
  }
  for (std::size_t i = 0; i < n0; ++i) {
    Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, out_p[3] = {0, 0, 0}, out_v[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      pi[c] = s.p[c][i];
      vi[c] = s.v[c][i];
    }
    finish_boid<Real, D>(m, ctx, 0, s.id[i], sums[i], pi, vi, out_p, out_v);
    for (int c = 0; c < D; ++c) {
      ep[c][i] = out_p[c];
      ev[c][i] = out_v[c];
    }
  }

  std::vector<Real> po[3], vo[3];
  for (Isa isa : test::testable_isas()) {
    if (isa == Isa::scalar) continue;
    const FinishRow<Real> fin = select_finish_row<Real>(isa, D, boundary);
    REQUIRE(fin != nullptr);
    FinishView<Real> f;
    for (int c = 0; c < 3; ++c) {
      po[c].assign(n, Real(0));
      vo[c].assign(n, Real(0));
      f.p[c] = s.p[c].data();
      f.v[c] = s.v[c].data();
      f.p_out[c] = po[c].data();
      f.v_out[c] = vo[c].data();
    }
    f.kp = m.kind[0];
    f.dt = m.dt;
    f.size = m.size;
    f.inv_size = m.inv_size;
    f.behaviour_order = true;
    f.behaviour = true;
    f.model = &m;
    f.step = &ctx;
    f.id = s.id.data();
    f.prey = &ctx.beh;
    // Two calls, so a batch starts mid-array and both end in a short batch.
    const std::uint32_t half = std::uint32_t(n0 / 2 + 1);
    fin(f, 0, half, sums.data());
    fin(f, half, std::uint32_t(n0) - half, sums.data() + half);
    for (std::size_t i = 0; i < n0; ++i) {
      for (int c = 0; c < D; ++c) {
        INFO(isa_name(isa) << " " << D << "D f64 " << (sizeof(Real) == 8) << " boundary "
                           << int(boundary) << " moving " << moving_target << " step " << step
                           << " boid " << i << " axis " << c << ": p " << po[c][i] << " vs "
                           << ep[c][i] << ", v " << vo[c][i] << " vs " << ev[c][i]);
        REQUIRE(std::memcmp(&po[c][i], &ep[c][i], sizeof(Real)) == 0);
        REQUIRE(std::memcmp(&vo[c][i], &ev[c][i], sizeof(Real)) == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("behaviour lanes give behaviour_finish's bits on every instruction set",
          "[fastpath][behaviours]") {
  if (test::testable_isas().size() < 2) {
    WARN("skipped: no SIMD instruction set in this CPU and build, nothing to compare");
    return;
  }
  for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open})
    for (bool moving : {false, true})
      for (int k = 0; k < 2; ++k) {
        // The target rests for 1 s, then moves for 1 s (dt 0.1); two wander keyframes each.
        const std::uint64_t step = moving ? (k == 0 ? 13 : 17) : (k == 0 ? 3 : 27);
        check_lanes<float, 2>(b, moving, step);
        check_lanes<float, 3>(b, moving, step);
        check_lanes<double, 2>(b, moving, step);
        check_lanes<double, 3>(b, moving, step);
      }
}

TEST_CASE("behaviour lanes: only where they hold every term", "[fastpath][behaviours]") {
  // The settings the lanes do not cover keep the scalar behaviour path.
  auto ok = [](WorldDef d) {
    const ModelParams<float> m = ModelParams<float>::from_def(d);
    BehaviourContext<float> bc;
    return beh::lanes_finish_ok(m, bc);
  };
  const WorldDef base = lanes_world(3, Boundary::wrap, false);
  CHECK(ok(base));
  WorldDef d = base;
  d.kinds[0].vehicle.model = Vehicle::ellipse;
  CHECK_FALSE(ok(d));
  d = base;
  d.kinds[0].vehicle.mass = 2;
  CHECK_FALSE(ok(d));
  d = base;
  d.kinds[0].rules.noise = 0.1;
  CHECK_FALSE(ok(d));
  d = base;
  d.boundary = Boundary::reflect;
  d.kinds[0].behaviour.containment = 1;
  CHECK_FALSE(ok(d));
}

TEST_CASE("the leader scan in vector lanes finds the scalar scan's leader", "[behaviours]") {
  // beh::scan_leaders (the scalar behaviour path's nearest-leader look-up) against the plain
  // scan over the leaders: the first nearest, ties to the lower index, the boid itself
  // skipped; a point outside the world falls back to the caller's scan.
  WorldDef d = lanes_world(3, Boundary::wrap, false);
  const ModelParams<float> m = ModelParams<float>::from_def(d);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t nl : {std::size_t(1), std::size_t(5), std::size_t(9), std::size_t(40)}) {
    BehaviourContext<float> bc;
    for (std::size_t j = 0; j < nl; ++j) {
      SpecialAgent<float> a;
      a.id = std::uint32_t(100 + 3 * j);
      for (int c = 0; c < 3; ++c) a.p[c] = float(u(rng) * m.size);
      bc.leaders.push_back(a);
    }
    if (nl > 2) {
      for (int c = 0; c < 3; ++c) bc.leaders[2].p[c] = bc.leaders[1].p[c];  // a tie
    }
    bc.leader_stride = (nl + 3) / 4 * 4;
    bc.leader_soa.assign(3 * bc.leader_stride, 0.0f);
    for (std::size_t j = 0; j < nl; ++j)
      for (int c = 0; c < 3; ++c)
        bc.leader_soa[std::size_t(c) * bc.leader_stride + j] = bc.leaders[j].p[c];
    for (int t = 0; t < 3000; ++t) {
      float p[3];
      for (int c = 0; c < 3; ++c) p[c] = float(u(rng) * m.size);
      if (t == 0 && nl > 2) {
        for (int c = 0; c < 3; ++c) p[c] = bc.leaders[1].p[c];  // on the tied pair
      }
      // Sometimes the boid is a leader itself (skipped).
      const std::uint32_t id = t % 7 == 0 ? bc.leaders[std::size_t(t) % nl].id : 7;
      std::size_t ref = nl;
      float best2 = std::numeric_limits<float>::infinity();
      for (std::size_t j = 0; j < nl; ++j) {
        if (bc.leaders[j].id == id) continue;
        float o[3];
        beh::offset<float, 3>(m, p, bc.leaders[j].p, o);
        const float d2 = beh::dot<float, 3>(o, o);
        if (d2 < best2) best2 = d2, ref = j;
      }
      const std::size_t got = beh::scan_leaders<float, 3>(m, bc, p, id, ~std::size_t(0));
      INFO(nl << " leaders, trial " << t);
      REQUIRE(got == ref);  // never the fallback for a point inside the world
      if (t == 0 && nl > 2 && id != bc.leaders[1].id) CHECK(got == 1);
    }
    float out[3] = {-3 * m.size, 0, 0};
    CHECK(beh::scan_leaders<float, 3>(m, bc, out, 7, ~std::size_t(0)) == ~std::size_t(0));
  }
}
