// The couzin profile (core/profile_couzin.hpp, docs/profiles.md): the paper's defaults, the
// three zones with repulsion first, the blind angle, the turn limit, the Gaussian noise, and
// naive = grid bit for bit for any thread count and instruction set.
#include <catch2/catch.hpp>
#include <cmath>

#include "boids/metrics.hpp"
#include "core/scenario.hpp"
#include "test_support.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

// A 2D open world with the couzin profile, no noise and a turn limit that never binds.
boids::WorldDef zone_def(int dims, std::uint32_t count) {
  boids::WorldDef d = boids::parse_scenario(
      "[world]\nprofile = \"couzin\"\n[rules]\nnoise = 0.0\n[vehicle]\nturn_rate = 1800.0\n", "t");
  d.dims = dims;
  d.size = 100;
  d.boundary = boids::Boundary::open;
  d.count = count;
  d.threads = 1;
  return d;
}

// The new unit heading of boid `i` after one step of `d` from (pos, vel), on `engine`.
std::vector<double> heading_after(boids::WorldDef d, boids::EngineKind engine,
                                  const std::vector<double>& pos, const std::vector<double>& vel,
                                  std::size_t i) {
  d.engine = engine;
  const boids::State s = boids::test::step_once(d, boids::test::make_state(d.dims, pos, vel));
  std::vector<double> h = {s.vx[i], s.vy[i]};
  if (d.dims == 3) h.push_back(s.vz[i]);
  double l = 0;
  for (double x : h) l += x * x;
  l = std::sqrt(l);
  CHECK(l == Approx(3.0).epsilon(1e-6));  // constant speed s
  for (double& x : h) x /= l;
  return h;
}

}  // namespace

TEST_CASE("couzin: the paper's defaults, explicit keys kept, bad radii refused",
          "[profile][couzin]") {
  const boids::WorldDef d = boids::parse_scenario("[world]\nprofile = \"couzin\"\n", "t.toml");
  const boids::RuleDef& r = d.kinds[0].rules;
  CHECK(d.profile == boids::Profile::couzin);
  CHECK(r.separation_radius == 1.0);
  CHECK(r.view_angle == 270.0);
  CHECK(d.kinds[0].vehicle.turn_rate == 40.0);
  CHECK(d.kinds[0].motion.max_speed == 3.0);
  CHECK(r.noise == Approx(0.05 * 180 / kPi));
  CHECK(d.dt == 0.1);
  CHECK(r.orientation_radius >= r.separation_radius);
  CHECK(r.orientation_radius <= r.radius);
  const boids::WorldDef e = boids::parse_scenario(
      "[world]\nprofile = \"couzin\"\n[rules]\nview_angle = 300.0\norientation_radius = 1.0\n",
      "t.toml", {"motion.dt=0.2"});
  CHECK(e.kinds[0].rules.view_angle == 300.0);
  CHECK(e.kinds[0].rules.orientation_radius == 1.0);  // = r_r: the swarm state, allowed
  CHECK(e.dt == 0.2);
  CHECK_THROWS_WITH(boids::parse_scenario(
                        "[world]\nprofile = \"couzin\"\n[rules]\norientation_radius = 0.5\n", "t"),
                    Catch::Contains("t:4: rules.orientation_radius") &&
                        Catch::Contains("[rules.separation_radius, rules.radius]"));
  CHECK_THROWS_WITH(boids::parse_scenario(
                        "[world]\nprofile = \"couzin\"\n[rules]\norientation_radius = 18.0\n", "t"),
                    Catch::Contains("rules.orientation_radius"));
  CHECK_THROWS_WITH(
      boids::parse_scenario("[world]\nprofile = \"couzin\"\n[predators]\ncount = 1\n", "t"),
      Catch::Contains("predators.count"));
  CHECK_THROWS_WITH(
      boids::parse_scenario("[world]\nprofile = \"couzin\"\n[behaviour]\nseek = 1.0\n", "t"),
      Catch::Contains("world.profile"));
}

TEST_CASE("couzin: default_world_def(Profile::couzin) equals the scenario file's defaults",
          "[profile][couzin]") {
  const boids::WorldDef f = boids::parse_scenario("[world]\nprofile = \"couzin\"\n", "t.toml");
  const boids::WorldDef c = boids::default_world_def(boids::Profile::couzin);
  const boids::RuleDef &a = c.kinds[0].rules, &b = f.kinds[0].rules;
  CHECK(c.profile == boids::Profile::couzin);
  CHECK(a.separation_radius == b.separation_radius);
  CHECK(a.orientation_radius == b.orientation_radius);
  CHECK(a.radius == b.radius);
  CHECK(a.view_angle == b.view_angle);
  CHECK(a.noise == b.noise);
  CHECK(c.kinds[0].vehicle.turn_rate == f.kinds[0].vehicle.turn_rate);
  CHECK(c.kinds[0].motion.max_speed == f.kinds[0].motion.max_speed);
  CHECK(c.kinds[0].motion.min_speed == f.kinds[0].motion.min_speed);
  CHECK(c.dt == f.dt);
  CHECK(c.dt == 0.1);
  CHECK(a.view_angle == 270.0);
  // The other profiles keep the plain defaults; the def is usable as it is.
  const boids::WorldDef v = boids::default_world_def(boids::Profile::vicsek);
  CHECK(v.profile == boids::Profile::vicsek);
  CHECK(v.kinds[0].rules.radius == boids::default_world_def().kinds[0].rules.radius);
  boids::WorldDef small = c;
  small.count = 50;
  CHECK_NOTHROW(boids::World::create(small));
}

TEST_CASE("couzin: repulsion first, orientation, attraction, their average, the blind angle",
          "[profile][couzin]") {
  const boids::WorldDef d = zone_def(2, 3);
  const double s = 1 / std::sqrt(2.0);
  for (auto engine : boids::test::all_engines()) {
    INFO(boids::test::engine_name(engine));
    // Boid 1 in the repulsion zone ahead, boid 2 in the orientation zone heading +y: boid 0
    // only flees boid 1.
    auto h = heading_after(d, engine, {10, 10, 10.5, 10, 12, 10}, {3, 0, 3, 0, 0, 3}, 0);
    CHECK(h[0] == Approx(-1));
    CHECK(h[1] == Approx(0).margin(1e-12));
    // Orientation only: the focal boid's heading plus its neighbour's, (1, 1)/sqrt 2.
    h = heading_after(d, engine, {10, 10, 12, 10, 80, 80}, {3, 0, 0, 3, 3, 0}, 0);
    CHECK(h[0] == Approx(s));
    CHECK(h[1] == Approx(s));
    // Attraction only (boid 1 at distance 10): straight toward it.
    h = heading_after(d, engine, {10, 10, 10, 20, 80, 80}, {3, 0, 3, 0, 3, 0}, 0);
    CHECK(h[0] == Approx(0).margin(1e-12));
    CHECK(h[1] == Approx(1));
    // Both: normalised d_o = (1, 0) and d_a = (0, 1) averaged.
    h = heading_after(d, engine, {10, 10, 12, 10, 10, 20}, {3, 0, 3, 0, 3, 0}, 0);
    CHECK(h[0] == Approx(s));
    CHECK(h[1] == Approx(s));
    // Boid 1 straight behind (180 deg, in the 90 deg blind cone) in the repulsion zone: unseen.
    h = heading_after(d, engine, {10, 10, 9.5, 10, 80, 80}, {3, 0, 0, 3, 3, 0}, 0);
    CHECK(h[0] == Approx(1));
    CHECK(h[1] == Approx(0).margin(1e-12));
  }
}

TEST_CASE("couzin: the heading turns by at most turn_rate * dt", "[profile][couzin]") {
  boids::WorldDef d = zone_def(3, 2);
  d.kinds[0].vehicle.turn_rate = 40;  // 4 degrees per 0.1 s step
  for (auto engine : boids::test::all_engines()) {
    // The neighbour 5 u to the side attracts boid 0 at 90 degrees to its heading.
    const auto h = heading_after(d, engine, {10, 10, 10, 10, 15, 10}, {3, 0, 0, 3, 0, 0}, 0);
    CHECK(h[0] == Approx(std::cos(4 * kPi / 180)));
    CHECK(h[1] == Approx(std::sin(4 * kPi / 180)));
    CHECK(h[2] == Approx(0).margin(1e-12));
  }
}

TEST_CASE("couzin: Gaussian angular noise of standard deviation rules.noise", "[profile][couzin]") {
  for (int dims : {2, 3}) {
    boids::WorldDef d = zone_def(dims, 4000);
    d.size = 100000;  // boids far apart: only the noise turns them
    d.kinds[0].rules.noise = 10;
    d.kinds[0].rules.radius = 1.5;  // and no neighbour within reach
    d.kinds[0].rules.orientation_radius = 1.2;
    const double sigma = 10 * kPi / 180;
    boids::World w = boids::World::create(d);
    const boids::State a = w.state();
    w.step(1);
    const boids::State b = w.state();
    double sum = 0, sum2 = 0;
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      const double az = dims == 3 ? a.vz[i] : 0.0, bz = dims == 3 ? b.vz[i] : 0.0;
      const double dot = a.vx[i] * b.vx[i] + a.vy[i] * b.vy[i] + az * bz;
      const double la = std::sqrt(a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + az * az);
      const double lb = std::sqrt(b.vx[i] * b.vx[i] + b.vy[i] * b.vy[i] + bz * bz);
      double t = std::acos(std::max(-1.0, std::min(1.0, dot / (la * lb))));
      if (dims == 2 && a.vx[i] * b.vy[i] - a.vy[i] * b.vx[i] < 0) t = -t;
      sum += t;
      sum2 += t * t;
    }
    const double n = double(a.id.size());
    INFO("dims " << dims);
    if (dims == 2) CHECK(std::abs(sum / n) < 0.01);
    // 2D: E[t^2] = sigma^2; 3D: the angle of a 2D Gaussian tangent vector, E[t^2] = 2 sigma^2.
    CHECK(sum2 / n == Approx((dims == 2 ? 1 : 2) * sigma * sigma).epsilon(0.06));
  }
}

TEST_CASE("couzin: naive = grid bit for bit, any thread count and instruction set",
          "[profile][couzin][parallel]") {
  const std::string path = std::string(BOIDS_SOURCE_DIR) + "/scenarios/couzin.toml";
  for (const char* bound : {"open", "wrap"}) {
    for (const char* prec : {"float", "double"}) {
      INFO(bound << " " << prec);
      auto hash = [&](const char* engine, int threads) {
        boids::WorldDef d = boids::load_scenario(
            path,
            {std::string("engine.kind=") + engine, "engine.threads=" + std::to_string(threads),
             std::string("world.boundary=") + bound, std::string("engine.precision=") + prec,
             "boids.count=300", "world.size=40", "rules.orientation_radius=4"});
        boids::World w = boids::test::create_checked(d);
        w.step(boids::test::steps_or_sanitized(60, 20));
        return w.state_hash();
      };
      const auto naive = hash("naive", 1);
      CHECK(hash("grid", 1) == naive);
      CHECK(hash("grid", 3) == naive);
      for (boids::Isa isa : boids::test::testable_isas()) {
        boids::test::MaxIsaScope cap(isa);
        CHECK(hash("grid", 2) == naive);
      }
    }
  }
}
