// Flock metrics (include/boids/metrics.hpp) against an independent O(n^2) float64 computation
// written from the definitions in docs/metrics.md, on random states and hand-made ones.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "boids/metrics.hpp"
#include "test_support.hpp"

namespace {

using boids::Boundary;
using boids::FlockMetrics;
using boids::State;
using boids::WorldDef;

constexpr double kPi = 3.14159265358979323846;

struct Brute {
  double polarization = 0, milling = 0, mean_speed = 0, mean_nnd = 0, mean_neighbours = 0;
  std::uint64_t clusters = 0;
  double largest_cluster = 0;
};

double mi(double d, const WorldDef& def) {
  return def.boundary == Boundary::wrap ? d - def.size * std::round(d / def.size) : d;
}

// Straight from the definitions, every pair, in double.
Brute brute(const WorldDef& def, const State& s, int kind) {
  const int D = def.dims;
  std::vector<std::size_t> sel;
  for (std::size_t i = 0; i < s.id.size(); ++i) {
    if (s.kind[i] == kind) sel.push_back(i);
  }
  const std::size_t n = sel.size();
  Brute b;
  if (n == 0) return b;
  auto pos = [&](std::size_t i, int c) { return c == 0 ? s.x[i] : c == 1 ? s.y[i] : s.z[i]; };
  auto vel = [&](std::size_t i, int c) { return c == 0 ? s.vx[i] : c == 1 ? s.vy[i] : s.vz[i]; };
  double pol[3] = {0, 0, 0}, cs[3] = {0, 0, 0}, cc[3] = {0, 0, 0}, sum[3] = {0, 0, 0};
  std::size_t m = 0;
  for (std::size_t i : sel) {
    double sp = 0;
    for (int c = 0; c < D; ++c) sp += vel(i, c) * vel(i, c);
    sp = std::sqrt(sp);
    b.mean_speed += sp / double(n);
    if (sp == 0) continue;
    ++m;
    for (int c = 0; c < D; ++c) {
      pol[c] += vel(i, c) / sp;
      cs[c] += std::sin(2 * kPi * pos(i, c) / def.size);
      cc[c] += std::cos(2 * kPi * pos(i, c) / def.size);
      sum[c] += pos(i, c);
    }
  }
  if (m > 0) {
    b.polarization = std::sqrt(pol[0] * pol[0] + pol[1] * pol[1] + pol[2] * pol[2]) / double(m);
    double centre[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      centre[c] = def.boundary == Boundary::wrap ? std::atan2(cs[c], cc[c]) * def.size / (2 * kPi)
                                                 : sum[c] / double(m);
    }
    double L[3] = {0, 0, 0};
    for (std::size_t i : sel) {
      double r[3] = {0, 0, 0}, v[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) {
        r[c] = mi(pos(i, c) - centre[c], def);
        v[c] = vel(i, c);
      }
      const double rl = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      const double vl = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (rl == 0 || vl == 0) continue;
      L[0] += (r[1] * v[2] - r[2] * v[1]) / (rl * vl);
      L[1] += (r[2] * v[0] - r[0] * v[2]) / (rl * vl);
      L[2] += (r[0] * v[1] - r[1] * v[0]) / (rl * vl);
    }
    b.milling = std::sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]) / double(m);
  }
  const double r = def.kinds[kind].rules.radius;
  const double cos_half = std::cos(def.kinds[kind].rules.view_angle * kPi / 360.0);
  std::vector<std::size_t> comp(n);
  for (std::size_t a = 0; a < n; ++a) comp[a] = a;
  std::size_t with_nnd = 0;
  double nnd_sum = 0, nb = 0;
  for (std::size_t a = 0; a < n; ++a) {
    double best = INFINITY;
    for (std::size_t bb = 0; bb < n; ++bb) {
      if (a == bb) continue;
      double d[3] = {0, 0, 0}, dist2 = 0, dot = 0, v2 = 0;
      for (int c = 0; c < D; ++c) {
        d[c] = mi(pos(sel[bb], c) - pos(sel[a], c), def);
        dist2 += d[c] * d[c];
        dot += d[c] * vel(sel[a], c);
        v2 += vel(sel[a], c) * vel(sel[a], c);
      }
      const double dist = std::sqrt(dist2);
      best = std::min(best, dist);
      if (dist >= r) continue;
      if (def.kinds[kind].rules.view_angle >= 360 || v2 == 0 ||
          dot >= dist * std::sqrt(v2) * cos_half) {
        nb += 1;
      }
      // Merge the components of a and bb (relabel: O(n) per link is fine here).
      const std::size_t from = comp[bb], to = comp[a];
      if (from != to) {
        for (std::size_t& x : comp) {
          if (x == from) x = to;
        }
      }
    }
    if (best < INFINITY) {
      nnd_sum += best;
      ++with_nnd;
    }
  }
  b.mean_nnd = with_nnd ? nnd_sum / double(with_nnd) : 0;
  b.mean_neighbours = nb / double(n);
  std::vector<std::size_t> size(n, 0);
  for (std::size_t a = 0; a < n; ++a) size[comp[a]] += 1;
  std::size_t largest = 0;
  for (std::size_t a = 0; a < n; ++a) {
    b.clusters += size[a] > 0;
    largest = std::max(largest, size[a]);
  }
  b.largest_cluster = double(largest) / double(n);
  return b;
}

void check(const FlockMetrics& m, const Brute& b, double tol) {
  CHECK(m.polarization == Approx(b.polarization).margin(tol));
  CHECK(m.milling == Approx(b.milling).margin(tol));
  CHECK(m.mean_speed == Approx(b.mean_speed).margin(tol));
  CHECK(m.mean_nnd == Approx(b.mean_nnd).margin(tol));
  CHECK(m.mean_neighbours == Approx(b.mean_neighbours).margin(tol));
  CHECK(m.clusters == b.clusters);
  CHECK(m.largest_cluster == Approx(b.largest_cluster).margin(tol));
}

WorldDef random_def(int dims, Boundary bnd, std::uint32_t n, double size, double radius,
                    double view) {
  WorldDef d = boids::test::tiny_def(dims, size, bnd, n);
  d.precision = boids::Precision::f64;
  d.engine = boids::EngineKind::naive;
  d.kinds[0].rules.radius = radius;
  d.kinds[0].rules.separation_radius = std::min(1.0, radius);
  d.kinds[0].rules.view_angle = view;
  return d;
}

// A random state: positions uniform in the box (clustered in a corner for `open`, so the
// private grid spans only part of it), random velocities, some at rest.
State random_state(const WorldDef& d, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> pos, vel;
  for (std::uint32_t i = 0; i < d.count; ++i) {
    for (int c = 0; c < d.dims; ++c) {
      pos.push_back(d.boundary == Boundary::open ? 10 + 30 * u(g) : d.size * u(g));
      vel.push_back(i % 17 == 3 ? 0.0 : 4 * u(g) - 2);
    }
  }
  return boids::test::make_state(d.dims, pos, vel);
}

FlockMetrics metrics_of(const WorldDef& d, const State& s, int kind = 0) {
  boids::World w = boids::World::create(d);
  w.set_state(s);
  return boids::compute_metrics(w, kind);
}

}  // namespace

TEST_CASE("metrics equal a brute-force computation on random states", "[metrics]") {
  for (int dims : {2, 3}) {
    for (Boundary bnd : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
      for (double view : {360.0, 250.0}) {
        for (double radius : {3.0, 9.0, 24.0}) {
          const WorldDef d = random_def(dims, bnd, 300, 50.0, radius, view);
          const State s = random_state(d, unsigned(dims * 100 + int(bnd) * 10 + int(radius)));
          INFO("dims " << dims << " boundary " << int(bnd) << " view " << view << " radius "
                       << radius);
          const FlockMetrics m = metrics_of(d, s);
          CHECK(m.count == 300);
          CHECK(m.moving == 300 - 18);
          check(m, brute(d, s, 0), 1e-9);
        }
      }
    }
  }
}

TEST_CASE("metrics of a sparse flock find nearest neighbours far beyond the radius", "[metrics]") {
  // 40 boids in a big box with a small radius: most nearest neighbours lie many cells away,
  // so the ring search must go on; nobody has a neighbour, every boid is its own cluster.
  for (Boundary bnd : {Boundary::wrap, Boundary::open}) {
    const WorldDef d = random_def(3, bnd, 40, 100.0, 0.5, 360);
    const State s = random_state(d, 7);
    const FlockMetrics m = metrics_of(d, s);
    const Brute b = brute(d, s, 0);
    CHECK(b.mean_nnd > 3);
    check(m, b, 1e-9);
    CHECK(m.clusters == 40);
  }
}

TEST_CASE("metrics of a float world count neighbours as the model does", "[metrics]") {
  WorldDef d = random_def(3, Boundary::wrap, 2000, 60.0, 6.0, 300);
  d.precision = boids::Precision::f32;
  const State init = random_state(d, 11);
  boids::World w = boids::World::create(d);
  w.set_state(init);
  const State s = w.state();  // the float values, as doubles
  const FlockMetrics m = boids::compute_metrics(w);
  const Brute b = brute(d, s, 0);
  CHECK(m.mean_neighbours == Approx(b.mean_neighbours).margin(3.0 / 2000));
  CHECK(m.mean_nnd == Approx(b.mean_nnd).epsilon(1e-5));
  CHECK(m.polarization == Approx(b.polarization).margin(1e-6));
  CHECK(m.milling == Approx(b.milling).margin(1e-6));
  CHECK(m.mean_speed == Approx(b.mean_speed).epsilon(1e-6));
}

TEST_CASE("metrics of hand-made flocks: aligned, milling, two groups", "[metrics]") {
  SECTION("a perfectly aligned flock has polarization 1") {
    const WorldDef d = random_def(3, Boundary::wrap, 50, 100.0, 5.0, 360);
    State s = random_state(d, 3);
    for (std::size_t i = 0; i < s.id.size(); ++i) {
      s.vx[i] = 1.5;
      s.vy[i] = -2.0;
      s.vz[i] = 0.25;
    }
    const FlockMetrics m = metrics_of(d, s);
    CHECK(m.polarization == Approx(1.0).margin(1e-12));
    CHECK(m.mean_speed == Approx(std::sqrt(1.5 * 1.5 + 4 + 0.0625)).margin(1e-12));
  }
  SECTION("a ring moving tangentially mills, also across the wrap seam") {
    for (double cx : {50.0, 0.0, 99.0}) {
      for (int dims : {2, 3}) {
        WorldDef d = random_def(dims, Boundary::wrap, 64, 100.0, 2.0, 360);
        std::vector<double> pos, vel;
        for (int i = 0; i < 64; ++i) {
          const double a = 2 * kPi * i / 64;
          const double x = std::fmod(cx + 20 * std::cos(a) + 100, 100), y = 40 + 20 * std::sin(a);
          pos.insert(pos.end(), {x, y});
          vel.insert(vel.end(), {-3 * std::sin(a), 3 * std::cos(a)});
          if (dims == 3) {
            pos.push_back(70);
            vel.push_back(0);
          }
        }
        const State s = boids::test::make_state(dims, pos, vel);
        INFO("centre x " << cx << " dims " << dims);
        const FlockMetrics m = metrics_of(d, s);
        CHECK(m.milling == Approx(1.0).margin(1e-9));
        CHECK(m.polarization == Approx(0.0).margin(1e-9));
        // Neighbours on the ring are 2 sin(pi/64) * 20 = 1.96 apart: one chain, one cluster.
        CHECK(m.clusters == 1);
        CHECK(m.mean_nnd == Approx(40 * std::sin(kPi / 64)).epsilon(1e-9));
        CHECK(m.mean_neighbours == Approx(2.0));
        check(m, brute(d, s, 0), 1e-9);
      }
    }
  }
  SECTION("two groups far apart are two clusters") {
    WorldDef d = random_def(2, Boundary::reflect, 30, 100.0, 4.0, 360);
    std::vector<double> pos, vel;
    for (int i = 0; i < 30; ++i) {
      const double base = i < 20 ? 10.0 : 80.0;
      pos.insert(pos.end(), {base + (i % 5), base + (i % 4)});
      vel.insert(vel.end(), {1.0, 0.0});
    }
    const FlockMetrics m = metrics_of(d, boids::test::make_state(2, pos, vel));
    CHECK(m.clusters == 2);
    CHECK(m.largest_cluster == Approx(20.0 / 30.0));
    CHECK(m.polarization == Approx(1.0));
  }
}

TEST_CASE("metrics select one kind and handle empty kinds", "[metrics]") {
  WorldDef d = random_def(2, Boundary::wrap, 100, 50.0, 5.0, 360);
  d.predators = 10;
  State s = random_state(d, 5);
  for (std::size_t i = 0; i < 10; ++i) s.kind[90 + i] = 1;
  const FlockMetrics boids0 = metrics_of(d, s, 0);
  const FlockMetrics preds = metrics_of(d, s, 1);
  CHECK(boids0.count == 90);
  CHECK(preds.count == 10);
  check(boids0, brute(d, s, 0), 1e-9);
  check(preds, brute(d, s, 1), 1e-9);
  const FlockMetrics none = metrics_of(d, s, 2);
  CHECK(none.count == 0);
  CHECK(none.polarization == 0);
  CHECK(none.clusters == 0);
  boids::World w = boids::World::create(d);
  CHECK_THROWS_AS(boids::compute_metrics(w, 3), boids::Error);
}

TEST_CASE("metrics are bit-identical for any thread count", "[metrics][parallel]") {
  for (int dims : {2, 3}) {
    WorldDef d = boids::default_world_def();
    d.dims = dims;
    d.count = 30000;
    d.size = dims == 3 ? 150 : 600;
    d.threads = 1;
    boids::World w = boids::World::create(d);
    w.step(3);
    const FlockMetrics ref = boids::MetricsCalculator(1).compute(w);
    for (int threads : {2, 3, 0}) {
      boids::MetricsCalculator calc(threads);
      for (int rep = 0; rep < 2; ++rep) {
        const FlockMetrics m = calc.compute(w);
        CHECK(m.polarization == ref.polarization);
        CHECK(m.milling == ref.milling);
        CHECK(m.mean_speed == ref.mean_speed);
        CHECK(m.mean_nnd == ref.mean_nnd);
        CHECK(m.mean_neighbours == ref.mean_neighbours);
        CHECK(m.clusters == ref.clusters);
        CHECK(m.largest_cluster == ref.largest_cluster);
      }
    }
    CHECK(ref.mean_neighbours > 1);
  }
}
