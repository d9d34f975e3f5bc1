// The grid engine's SIMD finish (core/kernels.hpp, FinishRow) against the scalar
// finish_boid() it replaces, bit for bit, on every instruction set this CPU runs: random boids
// plus the inputs where a select could differ from the scalar branch (no neighbours, both
// force and speed clamps, a boid at rest, the wrap fold of a tiny negative position, a zero
// velocity component negated at a reflecting wall, short last batches).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "core/kernels.hpp"
#include "core/model.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;

template <class Real, int D>
void check_finish(Boundary boundary) {
  WorldDef def = default_world_def();
  def.dims = D;
  def.boundary = boundary;
  const ModelParams<Real> m = ModelParams<Real>::from_def(def);
  const Real size = m.size;

  struct Case {
    Real p[3], v[3];
    FlockSums<Real> s;
  };
  std::vector<Case> cases;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto r = [&](double lo, double hi) { return Real(lo + (hi - lo) * u(rng)); };
  for (int i = 0; i < 40; ++i) {
    Case c{};
    for (int k = 0; k < D; ++k) {
      c.p[k] = r(0.0, double(size));
      c.v[k] = r(-5.0, 5.0);
      c.s.d[k] = r(-200.0, 200.0);
      c.s.v[k] = r(-100.0, 100.0);
      c.s.sep[k] = r(-3.0, 3.0);
    }
    c.s.k = std::int32_t(u(rng) * 40);
    cases.push_back(c);
  }
  auto with = [&](Real px, Real vx, Real vy, std::int32_t k) {
    Case c{};
    c.p[0] = px;
    c.v[0] = vx;
    c.v[1] = vy;
    for (int j = 1; j < D; ++j) c.p[j] = size / 2;
    c.s.k = k;
    if (k > 0)
      for (int j = 0; j < D; ++j) c.s.d[j] = c.s.v[j] = Real(1e4);  // a force past the clamp
    cases.push_back(c);
  };
  with(size / 2, Real(0.1), 0, 0);   // slower than min_speed: scaled up
  with(size / 2, Real(30), 0, 0);    // faster than max_speed: scaled down
  with(size / 2, 0, 0, 0);           // at rest: left at rest
  with(size / 2, Real(1), 0, 12);    // force clamp
  with(0, Real(-1e-28), 2, 0);       // wrap: x = -tiny, size - tiny rounds to size, folds to 0
  with(size, Real(1e-6), 2, 0);      // at the far face
  with(Real(-1e-3), Real(0), 2, 0);  // reflect: outside with vx = +0, negated to -0
  with(Real(-1e-3), Real(-0.0), 2, 0);
  with(size + Real(1e-3), Real(0), 2, 0);
  with(Real(0.01), Real(-3), 1, 0);  // crosses the low wall
  with(size - Real(0.01), Real(3), 1, 0);

  const std::size_t n = cases.size();
  std::vector<Real> p[3], v[3], po[3], vo[3];
  for (int c = 0; c < 3; ++c) {
    p[c].resize(n);
    v[c].resize(n);
    po[c].assign(n, Real(0));
    vo[c].assign(n, Real(0));
  }
  std::vector<FlockSums<Real>> sums(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      p[c][i] = cases[i].p[c];
      v[c][i] = cases[i].v[c];
    }
    sums[i] = cases[i].s;
  }

  // The reference: finish_boid boid by boid, plain path.
  StepContext<Real> ctx;
  ctx.beh.active = false;
  std::vector<Real> ep[3], ev[3];
  for (int c = 0; c < 3; ++c) {
    ep[c].assign(n, Real(0));
    ev[c].assign(n, Real(0));
  }
  for (std::size_t i = 0; i < n; ++i) {
    Real pi[3], vi[3], out_p[3], out_v[3];
    for (int c = 0; c < 3; ++c) {
      pi[c] = p[c][i];
      vi[c] = v[c][i];
    }
    finish_boid<Real, D>(m, ctx, 0, std::uint32_t(i), sums[i], pi, vi, out_p, out_v);
    for (int c = 0; c < D; ++c) {
      ep[c][i] = out_p[c];
      ev[c][i] = out_v[c];
    }
  }

  // Each instruction set this CPU and build have must bring its own finish: select_finish_row
  // caps a request at the dispatched set, so two sets sharing one function would mean one of
  // them silently ran the other's code. The others are reported as skipped by name.
  std::vector<FinishRow<Real>> seen;
  for (Isa isa : test::testable_isas()) {
    if (isa == Isa::scalar) continue;
    const FinishRow<Real> fin = select_finish_row<Real>(isa, D, boundary);
    INFO(isa_name(isa));
    REQUIRE(fin != nullptr);
    REQUIRE(std::find(seen.begin(), seen.end(), fin) == seen.end());
    seen.push_back(fin);
    FinishView<Real> f;
    for (int c = 0; c < 3; ++c) {
      f.p[c] = p[c].data();
      f.v[c] = v[c].data();
      f.p_out[c] = po[c].data();
      f.v_out[c] = vo[c].data();
      std::fill(po[c].begin(), po[c].end(), Real(0));
      std::fill(vo[c].begin(), vo[c].end(), Real(0));
    }
    f.kp = m.kind[0];
    f.dt = m.dt;
    f.size = m.size;
    f.inv_size = m.inv_size;
    // Two calls, so a batch starts mid-array and both end in a short batch.
    const std::uint32_t half = std::uint32_t(n / 2 + 1);
    fin(f, 0, half, sums.data());
    fin(f, half, std::uint32_t(n) - half, sums.data() + half);
    for (std::size_t i = 0; i < n; ++i) {
      for (int c = 0; c < D; ++c) {
        INFO(isa_name(isa) << " " << D << "D boundary " << int(boundary) << " boid " << i
                           << " axis " << c << ": p " << po[c][i] << " vs " << ep[c][i] << ", v "
                           << vo[c][i] << " vs " << ev[c][i]);
        CHECK(std::memcmp(&po[c][i], &ep[c][i], sizeof(Real)) == 0);
        CHECK(std::memcmp(&vo[c][i], &ev[c][i], sizeof(Real)) == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("the SIMD finish gives finish_boid's bits, edge cases included", "[grid]") {
  if (test::testable_isas().size() < 2) {
    WARN("skipped: no SIMD instruction set in this CPU and build, nothing to compare");
    return;
  }
  for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
    check_finish<float, 2>(b);
    check_finish<float, 3>(b);
    check_finish<double, 2>(b);
    check_finish<double, 3>(b);
  }
}
