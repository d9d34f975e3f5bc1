// Issue 14, "every rule on the fast path": the spatial indexes that replace the behaviours'
// scans (core/kind_grid.hpp for predators, prey and kinds 1/2; core/obstacle_grid.hpp for
// obstacles) must hand every point within their reach to the caller, in ascending index order,
// or the results would silently change; and world.update = "sequential" (naive engine).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/kind_grid.hpp"
#include "core/obstacle_grid.hpp"
#include "test_support.hpp"

namespace {

using boids::KindGrid;
using boids::ObstacleGrid;

double min_image(double d, double L) { return d - L * std::round(d / L); }

double dist(const double* a, const double* b, int dims, bool wrap, double L) {
  double s = 0;
  for (int c = 0; c < dims; ++c) {
    const double d = wrap ? min_image(b[c] - a[c], L) : b[c] - a[c];
    s += d * d;
  }
  return std::sqrt(s);
}

struct Sphere {
  float c[3];
  float r;
};
struct Box {
  float lo[3], hi[3];
};

}  // namespace

TEST_CASE("KindGrid: every point within reach, ascending, once", "[fastpath]") {
  std::mt19937_64 gen(14);
  for (int dims : {2, 3}) {
    for (bool wrap : {true, false}) {
      // Reaches from a tiny fraction of the box to more than a third of it (fewer than three
      // cells per axis: the wrapped neighbours repeat and must be visited once).
      for (double reach : {0.7, 3.0, 9.0, 40.0, 100.0}) {
        const double L = 100;
        std::uniform_real_distribution<double> u(wrap ? 0.0 : -10.0, wrap ? L : L + 10.0);
        const std::size_t n = 700;
        std::vector<float> pts(n * 3, 0.0f);
        for (float& x : pts) x = float(u(gen));
        KindGrid<float> g;
        g.build(dims, wrap, L, reach, n, [&](std::size_t k, int c) { return pts[k * 3 + c]; });
        REQUIRE(g.size() == n);
        std::size_t total = 0;  // pairs within reach checked (none at 0.7 in 3D is likely)
        for (int q = 0; q < 200; ++q) {
          float p[3] = {float(u(gen)), float(u(gen)), float(u(gen))};
          if (q % 10 == 0) p[0] = wrap ? float(L) - 1e-4f : float(L) + 3.0f;  // at the seam
          std::vector<std::uint32_t> got;
          g.for_near(p, [&](std::uint32_t k) { got.push_back(k); });
          CHECK(std::is_sorted(got.begin(), got.end()));
          CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
          for (std::size_t k = 0; k < n; ++k) {
            double a[3], b[3];
            for (int c = 0; c < 3; ++c) {
              a[c] = p[c];
              b[c] = pts[k * 3 + std::size_t(c)];
            }
            if (dist(a, b, dims, wrap, L) < reach) {
              ++total;
              INFO("dims " << dims << " wrap " << wrap << " reach " << reach << " point " << k);
              CHECK(std::binary_search(got.begin(), got.end(), std::uint32_t(k)));
            }
          }
          if (reach <= 9.0) CHECK(got.size() < n / 2);  // a look-up, not a scan
        }
        if (reach >= 3.0) CHECK(total > 0);
      }
    }
  }
}

TEST_CASE("ObstacleGrid: every obstacle within reach, spheres then boxes in order", "[fastpath]") {
  std::mt19937_64 gen(15);
  for (int dims : {2, 3}) {
    for (bool wrap : {true, false}) {
      const double L = 200, reach = 7.5;
      std::uniform_real_distribution<double> u(0.0, L);
      std::vector<Sphere> spheres(300);
      std::vector<Box> boxes(120);
      for (Sphere& s : spheres) {
        for (float& x : s.c) x = float(u(gen));
        s.r = float(0.5 + u(gen) / 40);
      }
      spheres[0].r = 150;  // larger than the box: in every cell
      for (Box& b : boxes) {
        for (int c = 0; c < 3; ++c) {
          b.lo[c] = float(u(gen));
          b.hi[c] = b.lo[c] + float(1 + u(gen) / 20);
        }
      }
      ObstacleGrid<float> g;
      g.build(dims, wrap, L, reach, spheres, boxes);
      std::size_t near = 0;
      for (int q = 0; q < 400; ++q) {
        std::uniform_real_distribution<double> uq(wrap ? 0.0 : -20.0, wrap ? L : L + 20.0);
        double p[3] = {uq(gen), uq(gen), uq(gen)};
        float pf[3] = {float(p[0]), float(p[1]), float(p[2])};
        std::vector<std::uint32_t> got;
        g.visit(
            pf, [&](std::uint32_t k) { got.push_back(k); },
            [&](std::uint32_t k) { got.push_back(std::uint32_t(spheres.size()) + k); });
        CHECK(std::is_sorted(got.begin(), got.end()));
        CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
        CHECK(got.size() < (spheres.size() + boxes.size()) / 4);  // a look-up, not a scan
        for (std::size_t k = 0; k < spheres.size(); ++k) {
          double c[3] = {spheres[k].c[0], spheres[k].c[1], spheres[k].c[2]};
          if (dist(p, c, dims, wrap, L) - spheres[k].r < reach) {
            ++near;
            CHECK(std::binary_search(got.begin(), got.end(), std::uint32_t(k)));
          }
        }
        for (std::size_t k = 0; k < boxes.size(); ++k) {
          double out2 = 0;
          for (int c = 0; c < dims; ++c) {
            const double ctr = 0.5 * (boxes[k].lo[c] + boxes[k].hi[c]);
            const double half = 0.5 * (boxes[k].hi[c] - boxes[k].lo[c]);
            const double d = wrap ? min_image(p[c] - ctr, L) : p[c] - ctr;
            const double e = std::max(0.0, std::abs(d) - half);
            out2 += e * e;
          }
          if (std::sqrt(out2) < reach) {
            ++near;
            CHECK(std::binary_search(got.begin(), got.end(), std::uint32_t(spheres.size() + k)));
          }
        }
      }
      CHECK(near > 100);  // the big sphere near most points, plus real neighbours
    }
  }
}

TEST_CASE("world.update = sequential: in place in a random order, deterministic, naive only",
          "[fastpath]") {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = 2;
  d.size = 40;
  d.count = 300;
  d.engine = EngineKind::naive;
  d.precision = Precision::f64;
  d.threads = 1;
  auto run = [](const WorldDef& def) {
    World w = World::create(def);
    w.step(5);
    return w.state();
  };
  const State sync = run(d);
  d.update = UpdateOrder::sequential;
  const State seq1 = run(d), seq2 = run(d);
  CHECK(seq1.x == seq2.x);
  CHECK(seq1.vy == seq2.vy);
  CHECK(seq1.x != sync.x);  // later boids saw earlier boids' new state
  for (std::size_t i = 0; i < seq1.x.size(); ++i) {
    REQUIRE(std::isfinite(seq1.x[i]));
    REQUIRE(std::isfinite(seq1.vx[i]));
  }
  d.engine = EngineKind::grid;
  REQUIRE_THROWS_WITH(World::create(d), Catch::Contains("world.update"));
}
