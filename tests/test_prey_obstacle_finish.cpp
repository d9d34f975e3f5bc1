// Issue 14, predators and spheres at the plain step's cost: the grid engine finishes the prey
// that see a predator in the SIMD lanes with the prey's terms (core/prey_finish_impl.hpp), and
// the obstacle push-out skips its look-up when the avoidance look-up proves the step cannot
// reach an obstacle (clear_after_step, core/obstacles.hpp). Both must leave every bit as the
// scalar behaviour path has it.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/behaviours.hpp"
#include "core/model.hpp"
#include "core/obstacles.hpp"
#include "test_support.hpp"

namespace {

// Prey-only worlds (the prey's terms are kind 0's only behaviour), in four variants: flee and
// evade; flee with the boost 1 (drive()'s plain path); view cones on both kinds; flee alone
// with a strong boost.
boids::WorldDef prey_world(int variant, int dims, boids::Precision prec, boids::Boundary b) {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = dims;
  d.precision = prec;
  d.boundary = b;
  d.count = dims == 3 ? 1500 : 900;
  d.size = dims == 3 ? 55 : 110;
  d.predators = 45;
  BehaviourDef& k = d.kinds[0].behaviour;
  k.flee_predators = 1;
  if (variant == 0) k.evade_predators = 0.5;
  if (variant == 1) k.flee_boost = 1;
  if (variant == 2) {
    k.evade_predators = 0.3;
    d.kinds[0].rules.view_angle = 240;
    d.kinds[1].rules.view_angle = 300;
  }
  if (variant == 3) k.flee_boost = 3;
  d.kinds[1].behaviour.chase = 1;
  return d;
}

}  // namespace

TEST_CASE("prey that see a predator: SIMD lanes give the scalar behaviour path's bits",
          "[fastpath][grid]") {
  using namespace boids;
  for (int variant = 0; variant < 4; ++variant)
    for (int dims : {2, 3})
      for (Precision prec : {Precision::f32, Precision::f64})
        for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
          WorldDef d = prey_world(variant, dims, prec, b);
          d.threads = 1;
          d.simd = false;
          World ws = test::create_checked(d);
          REQUIRE(engine_of(ws).kernel_name() == "scalar");
          ws.step(5);
          const std::uint64_t ref = ws.state_hash();
          // The prey's terms act: without them the state differs.
          {
            WorldDef q = d;
            q.kinds[0].behaviour.flee_predators = 0;
            q.kinds[0].behaviour.evade_predators = 0;
            World w = test::create_checked(q);
            w.step(5);
            REQUIRE(w.state_hash() != ref);
          }
          d.simd = true;
          for (Isa isa : test::testable_isas()) {
            test::MaxIsaScope cap(isa);
            for (int threads : {1, 3}) {
              INFO("variant " << variant << " " << isa_name(isa) << " " << dims << "D f64 "
                              << (prec == Precision::f64) << " boundary " << int(b) << " threads "
                              << threads);
              d.threads = threads;
              World w = test::create_checked(d);
              REQUIRE(engine_of(w).kernel_name() == isa_name(isa));
              w.step(5);
              CHECK(w.state_hash() == ref);
            }
          }
        }
}

namespace {

// clear_after_step(p, q, near) with near the smallest distance from p to any obstacle (capped
// at avoid_distance, as the avoidance look-up gives it) must only ever say "clear" where
// push_out() would leave q as it is; and it must say so for most small steps.
template <class Real, int D>
void check_clear_after_step(boids::Boundary bnd) {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = D;
  d.precision = sizeof(Real) == 8 ? Precision::f64 : Precision::f32;
  d.boundary = bnd;
  d.size = 60;
  d.kinds[0].behaviour.avoid = 1;
  std::mt19937_64 rng(7 + D + sizeof(Real));
  std::uniform_real_distribution<double> u(0, 1);
  auto at = [&] {
    std::vector<double> v(static_cast<std::size_t>(D), 0.0);
    for (double& x : v) x = u(rng) * d.size;
    return v;
  };
  for (int k = 0; k < 60; ++k) d.spheres.push_back({at(), 0.5 + 2 * u(rng)});
  for (int k = 0; k < 15; ++k) {
    std::vector<double> lo = at(), hi = lo;
    for (double& x : hi) x += 1 + 3 * u(rng);
    d.boxes.push_back({lo, hi});
  }
  const ModelParams<Real> m = ModelParams<Real>::from_def(d);
  const Real avoid = m.kind[0].beh.avoid_distance;
  int cleared = 0, tried = 0;
  for (int t = 0; t < 40000; ++t) {
    Real p[3] = {0, 0, 0}, q[3] = {0, 0, 0}, n[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) p[c] = Real(u(rng) * d.size);
    Real near = avoid;
    for (const SphereP<Real>& o : m.beh.spheres)
      near = std::min(near, beh::sphere_distance<Real, D>(m, o, p, n));
    for (const BoxP<Real>& o : m.beh.boxes)
      near = std::min(near, beh::box_distance<Real, D>(m, o, p, n));
    // Steps up to a little beyond near, so the margin is what decides.
    const double len = u(rng) * 1.2 * double(std::max(near, Real(0.01)));
    double dir[3] = {0, 0, 0}, dn = 0;
    for (int c = 0; c < D; ++c) {
      dir[c] = u(rng) - 0.5;
      dn += dir[c] * dir[c];
    }
    for (int c = 0; c < D; ++c) {
      double x = double(p[c]) + len * dir[c] / std::sqrt(dn);
      if (bnd == Boundary::wrap) x -= d.size * std::floor(x / d.size);
      q[c] = Real(x);
    }
    ++tried;
    if (!beh::clear_after_step<Real, D>(m, p, q, near)) continue;
    ++cleared;
    INFO(D << "D f64 " << (sizeof(Real) == 8) << " boundary " << int(bnd) << " trial " << t);
    REQUIRE(beh::clear_of_obstacles<Real, D>(m, q));
  }
  CHECK(cleared > tried / 2);
}

}  // namespace

TEST_CASE("clear_after_step: only where the push-out leaves the point", "[fastpath]") {
  using boids::Boundary;
  for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
    check_clear_after_step<float, 2>(b);
    check_clear_after_step<float, 3>(b);
    check_clear_after_step<double, 2>(b);
    check_clear_after_step<double, 3>(b);
  }
}
