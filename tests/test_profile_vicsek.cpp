// rules.noise on the standard model and the vicsek profile (core/profile_vicsek.hpp,
// docs/profiles.md): the turning angles have the documented distribution, Vicsek's update
// keeps the speed and aligns a fully connected group, the order parameter falls with the
// noise, and both engines and all thread counts agree.
#include <catch2/catch.hpp>
#include <cmath>

#include "boids/metrics.hpp"
#include "core/scenario.hpp"
#include "test_support.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

// A flock whose rules do nothing: each step only the noise turns the velocity.
boids::WorldDef drift_def(int dims, double noise_deg) {
  boids::WorldDef d = boids::default_world_def();
  d.dims = dims;
  d.count = 4000;
  d.size = 100;
  d.threads = 1;
  d.kinds[0].rules.separation = 0;
  d.kinds[0].rules.alignment = 0;
  d.kinds[0].rules.cohesion = 0;
  d.kinds[0].rules.noise = noise_deg;
  d.kinds[0].motion.min_speed = 2.5;  // the seeded speed: the limits leave it alone
  return d;
}

std::vector<double> turn_angles(const boids::WorldDef& d) {
  boids::World w = boids::World::create(d);
  const boids::State a = w.state();
  w.step(1);
  const boids::State b = w.state();
  std::vector<double> out;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    if (d.dims == 2) {
      double t = std::atan2(b.vy[i], b.vx[i]) - std::atan2(a.vy[i], a.vx[i]);
      if (t > kPi) t -= 2 * kPi;
      if (t < -kPi) t += 2 * kPi;
      out.push_back(t);
    } else {
      const double dot = a.vx[i] * b.vx[i] + a.vy[i] * b.vy[i] + a.vz[i] * b.vz[i];
      const double la = std::sqrt(a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
      const double lb = std::sqrt(b.vx[i] * b.vx[i] + b.vy[i] * b.vy[i] + b.vz[i] * b.vz[i]);
      CHECK(lb == Approx(la).epsilon(1e-5));  // the noise keeps the speed
      out.push_back(dot / (la * lb));         // cos of the turn
    }
  }
  return out;
}

}  // namespace

TEST_CASE("rules.noise turns 2D headings uniformly within +-noise/2", "[profile][noise]") {
  const std::vector<double> t = turn_angles(drift_def(2, 60));
  const double half = 30 * kPi / 180;
  double mx = 0, mean = 0, var = 0;
  for (double x : t) {
    mx = std::max(mx, std::abs(x));
    mean += x / double(t.size());
  }
  for (double x : t) var += (x - mean) * (x - mean) / double(t.size());
  CHECK(mx <= half + 1e-4);
  CHECK(mx > 0.99 * half);
  CHECK(std::abs(mean) < 0.03);
  CHECK(var == Approx(half * half / 3).epsilon(0.08));  // uniform on [-a, a]: a^2 / 3
}

TEST_CASE("rules.noise in 3D is uniform over the area of the cap", "[profile][noise]") {
  const std::vector<double> c = turn_angles(drift_def(3, 90));
  const double cmin = std::cos(45 * kPi / 180);
  double lo = 1, mean = 0;
  for (double x : c) {
    lo = std::min(lo, x);
    mean += x / double(c.size());
  }
  CHECK(lo >= cmin - 1e-5);
  CHECK(lo < cmin + 0.01);
  CHECK(mean == Approx((1 + cmin) / 2).epsilon(0.01));  // cos(theta) uniform on [cmin, 1]
}

TEST_CASE("rules.noise = 0 changes nothing and noise is deterministic", "[profile][noise]") {
  boids::WorldDef a = drift_def(3, 0);
  a.kinds[0].rules.alignment = 1;
  boids::World wa = boids::World::create(a);
  boids::WorldDef plain = a;
  boids::World wp = boids::World::create(plain);
  wa.step(3);
  wp.step(3);
  CHECK(wa.state_hash() == wp.state_hash());

  boids::WorldDef n = a;
  n.kinds[0].rules.noise = 20;
  boids::World w1 = boids::World::create(n);
  n.threads = 3;
  boids::World w3 = boids::World::create(n);
  w1.step(5);
  w3.step(5);
  CHECK(w1.state_hash() == w3.state_hash());
  CHECK(w1.state_hash() != wa.state_hash());
}

TEST_CASE("rules.noise is validated", "[profile][noise]") {
  CHECK_THROWS_WITH(boids::parse_scenario("[rules]\nnoise = 400\n", "t.toml"),
                    Catch::Contains("rules.noise") && Catch::Contains("[0, 360]"));
  CHECK_THROWS_WITH(boids::parse_scenario("[rules]\nnoise = -1\n", "t.toml"),
                    Catch::Contains("rules.noise"));
  CHECK_THROWS_WITH(
      boids::parse_scenario("[world]\nprofile = \"abm\"\n[rules]\nnoise = 10\n", "t.toml"),
      Catch::Contains("rules.noise"));
  CHECK_THROWS_WITH(boids::parse_scenario("[world]\nprofile = \"vicsk\"\n", "t.toml"),
                    Catch::Contains("world.profile"));
  CHECK(boids::parse_scenario("[world]\nprofile = \"vicsek\"\n", "t.toml").profile ==
        boids::Profile::vicsek);
}

TEST_CASE("vicsek: constant speed, mean direction of the neighbours and itself",
          "[profile][vicsek]") {
  for (int dims : {2, 3}) {
    boids::WorldDef d = boids::test::tiny_def(dims, 50, boids::Boundary::open, 3);
    d.profile = boids::Profile::vicsek;
    d.dt = 1;
    d.kinds[0].rules.radius = 5;
    d.kinds[0].motion.max_speed = 0.5;
    d.kinds[0].motion.min_speed = 0.5;
    std::vector<double> pos = {10, 10, 12, 10, 40, 40};
    std::vector<double> vel = {1, 0, 0, 2, 0, -1};
    if (dims == 3) {
      pos = {10, 10, 10, 12, 10, 10, 40, 40, 40};
      vel = {1, 0, 0, 0, 2, 0, 0, -1, 0};
    }
    for (auto engine : {boids::EngineKind::naive, boids::EngineKind::grid}) {
      d.engine = engine;
      const boids::State s = boids::test::step_once(d, boids::test::make_state(dims, pos, vel));
      // Boids 0 and 1 see each other: both head along (1, 2)/sqrt(5) at speed 0.5.
      const double e = 0.5 / std::sqrt(5.0);
      CHECK(s.vx[0] == Approx(e));
      CHECK(s.vy[0] == Approx(2 * e));
      CHECK(s.vx[1] == Approx(e));
      CHECK(s.vy[1] == Approx(2 * e));
      CHECK(s.x[0] == Approx(10 + e));  // x += v(t+1) dt
      CHECK(s.y[1] == Approx(10 + 2 * e));
      // Boid 2 is alone: keeps its heading, speed v0.
      CHECK(s.vx[2] == Approx(0).margin(1e-12));
      CHECK(s.vy[2] == Approx(-0.5));
    }
  }
}

TEST_CASE("vicsek: order at low noise, disorder at eta = 2 pi, engines agree",
          "[profile][vicsek]") {
  const std::string path = std::string(BOIDS_SOURCE_DIR) + "/scenarios/vicsek.toml";
  auto polarization = [&](const char* noise, const char* engine, int threads, int steps) {
    boids::World w = boids::World::create(boids::load_scenario(
        path, {std::string("rules.noise=") + noise, std::string("engine.kind=\"") + engine + "\"",
               "engine.threads=" + std::to_string(threads)}));
    w.step(steps);
    return std::pair{boids::compute_metrics(w).polarization, w.state_hash()};
  };
  const auto low = polarization("20", "grid", 1, 400);
  const auto high = polarization("360", "grid", 1, 400);
  CHECK(low.first > 0.9);
  CHECK(high.first < 0.2);  // about 1/sqrt(400) = 0.05 for independent headings
  CHECK(polarization("20", "grid", 3, 400).second == low.second);
  const auto naive = polarization("20", "naive", 1, 20);
  const auto grid = polarization("20", "grid", 1, 20);
  CHECK(naive.first == Approx(grid.first).margin(1e-4));
}
