// explain_forces() for the rules whose neighbours are a list rather than every boid within the
// radius: topological neighbours and the couzin profile. Each explanation must name the
// neighbours the step uses and agree with what the step then does.
#include <cmath>

#include "boids/debug.hpp"
#include "test_support.hpp"

using namespace boids;
using boids::test::make_state;
using boids::test::tiny_def;

namespace {

const ForceTerm& term(const ForceExplanation& ex, const std::string& name) {
  for (const ForceTerm& t : ex.terms)
    if (t.name == name) return t;
  FAIL("no term " << name);
  return ex.terms.front();
}

}  // namespace

TEST_CASE("explain_forces with topological neighbours uses the k nearest", "[behaviour]") {
  WorldDef d = tiny_def(2, 100.0, Boundary::open, 6);
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.kinds[0].rules.radius = 50;
  d.kinds[0].rules.neighbours = NeighbourRule::topological;
  d.kinds[0].rules.topological_k = 2;
  World w = World::create(d);
  // Boid 0 at (10, 10); the others at distances 3, 1, 5, 2 and 4: all within the radius.
  w.set_state(make_state(2, {10, 10, 13, 10, 10, 11, 10, 15, 12, 10, 14, 10},
                         {1, 0, 0, 1, 1, 1, -1, 0, 0, -1, 1, 0}));
  const ForceExplanation ex = explain_forces(w, 0);
  CHECK(ex.neighbours == std::vector<std::uint32_t>{2, 4});
  double sum[2] = {0, 0};
  for (const ForceTerm& t : ex.terms) {
    if (t.name == "total" || t.name == "applied") continue;
    sum[0] += t.x;
    sum[1] += t.y;
  }
  const ForceTerm& total = term(ex, "total");
  CHECK(sum[0] == Approx(total.x).margin(1e-12));
  CHECK(sum[1] == Approx(total.y).margin(1e-12));
  const ForceTerm applied = term(ex, "applied");
  const State before = w.state();
  w.step();
  const State after = w.state();
  CHECK(applied.x == Approx((after.vx[0] - before.vx[0]) / d.dt).margin(1e-9));
  CHECK(applied.y == Approx((after.vy[0] - before.vy[0]) / d.dt).margin(1e-9));
}

TEST_CASE("explain_forces of the couzin profile gives the zones and the desired direction",
          "[behaviour]") {
  WorldDef d = default_world_def(Profile::couzin);
  d.dims = 2;
  d.size = 100;
  d.boundary = Boundary::open;
  d.count = 4;
  d.threads = 1;
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.kinds[0].rules.noise = 0;
  d.kinds[0].rules.separation_radius = 1;
  d.kinds[0].rules.orientation_radius = 5;
  d.kinds[0].rules.radius = 10;
  World w = World::create(d);
  // Boid 0 heads along +x. Boid 1 lies ahead in the orientation zone heading +y, boid 2 to the
  // side in the attraction zone, boid 3 out of reach.
  w.set_state(make_state(2, {50, 50, 53, 50, 50, 58, 80, 80}, {3, 0, 0, 3, 3, 0, 0, 3}));
  const ForceExplanation ex = explain_forces(w, 0);
  CHECK(ex.neighbours == std::vector<std::uint32_t>{1, 2});
  const ForceTerm& rep = term(ex, "repulsion");
  const ForceTerm& ori = term(ex, "orientation");
  const ForceTerm& att = term(ex, "attraction");
  CHECK((rep.x == 0 && rep.y == 0));
  CHECK(ori.x == Approx(0).margin(1e-12));
  CHECK(ori.y == Approx(1));
  CHECK(att.x == Approx(0).margin(1e-12));
  CHECK(att.y == Approx(1));
  // d_o = h + sum v_j/|v_j| = (1, 1), d_a = (0, 1): the desired direction is the unit vector
  // along (d_o/|d_o| + d_a/|d_a|) / 2, at 67.5 degrees.
  const ForceTerm& total = term(ex, "total");
  const double pi = 3.14159265358979323846;
  CHECK(total.x == Approx(std::cos(67.5 * pi / 180)).margin(1e-12));
  CHECK(total.y == Approx(std::sin(67.5 * pi / 180)).margin(1e-12));
  const ForceTerm applied = term(ex, "applied");
  const State before = w.state();
  w.step();
  const State after = w.state();
  CHECK(applied.x == Approx((after.vx[0] - before.vx[0]) / d.dt).margin(1e-9));
  CHECK(applied.y == Approx((after.vy[0] - before.vy[0]) / d.dt).margin(1e-9));
  // The turn limit: theta * tau = 40 deg/s * 0.1 s = 4 degrees at most.
  const double turned = std::atan2(after.vy[0], after.vx[0]) * 180 / pi;
  CHECK(turned == Approx(4.0).margin(1e-6));
}
