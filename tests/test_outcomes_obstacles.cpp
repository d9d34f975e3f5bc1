// Outcome: no boid ever ends a step inside an obstacle, also for boxes and spheres that reach
// through a reflecting or wrapping boundary and for overlapping obstacles; the reflecting wall
// keeps every position strictly inside [0, L), also for a boid exactly on the wall
// (docs/behaviours.md, "Obstacles"; docs/model.md step 6). Both engines, 2D and 3D.
#include <catch2/catch.hpp>

#include "outcome_support.hpp"
#include "test_support.hpp"

using namespace boids;
using namespace boids::test;

namespace {

// Depth of p inside the deepest obstacle (0 when outside all), minimum image when wrapping.
double depth(const WorldDef& d, const double* p) {
  const bool wrap = d.boundary == Boundary::wrap;
  double worst = 0;
  for (const SphereObstacle& o : d.spheres) {
    double c[3] = {0, 0, 0}, off[3];
    for (int k = 0; k < d.dims; ++k) c[k] = o.center[k];
    offset3(c, p, d.size, wrap, off);
    worst = std::max(worst, o.radius - norm3(off));
  }
  for (const BoxObstacle& b : d.boxes) {
    double ctr[3] = {0, 0, 0}, off[3];
    for (int k = 0; k < d.dims; ++k) ctr[k] = 0.5 * (b.lo[k] + b.hi[k]);
    offset3(ctr, p, d.size, wrap, off);
    double in = 1e300;
    for (int k = 0; k < d.dims; ++k)
      in = std::min(in, 0.5 * (b.hi[k] - b.lo[k]) - std::abs(off[k]));
    worst = std::max(worst, in);
  }
  return worst;
}

struct ObstacleRun {
  double worst_depth = 0;  // deepest any boid ended a step inside an obstacle
  long inside = 0;         // boid-steps inside
  bool in_world = true;    // reflect: every coordinate in [0, L)
};

ObstacleRun run(const WorldDef& d, int steps) {
  World w = World::create(d);
  ObstacleRun r;
  for (int s = 0; s < steps; ++s) {
    w.step();
    const State st = w.state();
    for (std::size_t i = 0; i < st.id.size(); ++i) {
      const Row b = row(st, i);
      const double dep = depth(d, b.p);
      if (dep > 0) {
        ++r.inside;
        r.worst_depth = std::max(r.worst_depth, dep);
      }
      for (int c = 0; c < d.dims; ++c) r.in_world = r.in_world && b.p[c] >= 0 && b.p[c] < d.size;
    }
  }
  return r;
}

WorldDef obstacle_def(int dims, Boundary bnd, Flavour fl) {
  WorldDef d = tiny_def(dims, 40.0, bnd, 80);
  d.engine = fl.engine;
  d.precision = fl.precision;
  d.seed = 5;
  d.kinds[0].behaviour.seek = 1;  // drive them into the obstacles
  d.kinds[0].behaviour.wander = 0.5;
  return d;
}

}  // namespace

TEST_CASE("obstacles through a reflecting wall are never entered", "[outcome][obstacle]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      WorldDef d = obstacle_def(dims, Boundary::reflect, fl);
      if (dims == 2) {
        d.goal = {1, 20};
        d.boxes = {{{-5, 12}, {3, 28}}, {{30, -2}, {45, 8}}};  // through one and two walls
        d.spheres = {{{0, 35}, 5}};                            // centred on the wall
      } else {
        d.goal = {1, 20, 20};
        d.boxes = {{{-5, 12, 12}, {3, 28, 28}}, {{30, -2, -2}, {45, 8, 45}}};
        d.spheres = {{{0, 35, 20}, 5}};
      }
      const ObstacleRun r = run(d, 250);
      INFO(dims << "D " << fl.name() << ": " << r.inside << " inside, deepest " << r.worst_depth);
      CHECK(r.inside == 0);
      CHECK(r.in_world);
    }
  }
}

TEST_CASE("obstacles across the wrap seam and overlapping obstacles are never entered",
          "[outcome][obstacle]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      WorldDef d = obstacle_def(dims, Boundary::wrap, fl);
      if (dims == 2) {
        d.goal = {38, 20};
        d.boxes = {{{-4, 14}, {4, 26}}, {{18, 2}, {26, 10}}};  // the first across the seam
        d.spheres = {{{26, 6}, 4}};                            // overlaps the second box
      } else {
        d.goal = {38, 20, 20};
        d.boxes = {{{-4, 14, 14}, {4, 26, 26}}, {{18, 2, 2}, {26, 10, 10}}};
        d.spheres = {{{26, 6, 6}, 4}};
      }
      const ObstacleRun r = run(d, 250);
      INFO(dims << "D " << fl.name() << ": " << r.inside << " inside, deepest " << r.worst_depth);
      CHECK(r.inside == 0);
    }
  }
}

TEST_CASE("overlapping obstacles in a corner of a reflecting world are never entered",
          "[outcome][obstacle]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      WorldDef d = obstacle_def(dims, Boundary::reflect, fl);
      if (dims == 2) {
        d.goal = {2, 2};
        d.spheres = {{{6, 6}, 5}, {{12, 3}, 3}};
        d.boxes = {{{-1, 8}, {4, 14}}, {{8, -1}, {14, 4}}};
      } else {
        d.goal = {2, 2, 2};
        d.spheres = {{{6, 6, 6}, 5}, {{12, 3, 3}, 3}};
        d.boxes = {{{-1, 8, -1}, {4, 14, 10}}, {{8, -1, -1}, {14, 4, 10}}};
      }
      const ObstacleRun r = run(d, 250);
      INFO(dims << "D " << fl.name() << ": " << r.inside << " inside, deepest " << r.worst_depth);
      CHECK(r.inside == 0);
      CHECK(r.in_world);
    }
  }
}

TEST_CASE("the reflecting wall maps a boid landing on x = L strictly inside 0 <= x < L",
          "[outcome][boundary]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines()) {
      for (bool behaviours : {false, true}) {
        WorldDef d = tiny_def(dims, 50.0, Boundary::reflect, 3);
        d.engine = fl.engine;
        d.precision = fl.precision;
        d.dt = 0.125;  // 4 u/s * 0.125 s = 0.5 exactly: 49.5 + 0.5 lands exactly on the wall
        if (behaviours) d.kinds[0].behaviour.arrive = 1e-30;  // the behaviour path, no force
        std::vector<double> pos = {49.5, 10, 20, 49.5, 0.5, 30};
        std::vector<double> vel = {4, 0, 0, 4, -4, 0};
        if (dims == 3) {
          pos = {49.5, 10, 10, 20, 20, 49.5, 0.5, 30, 30};
          vel = {4, 0, 0, 0, 0, 4, -4, 0, 0};
        }
        World w = World::create(d);
        w.set_state(make_state(dims, pos, vel));
        w.step();
        const State st = w.state();
        INFO(dims << "D " << fl.name() << " behaviours " << behaviours);
        for (std::size_t i = 0; i < st.id.size(); ++i) {
          const Row b = row(st, i);
          for (int c = 0; c < dims; ++c) {
            CHECK(b.p[c] >= 0);
            CHECK(b.p[c] < 50);
          }
        }
        CHECK(st.x[0] > 49.99);  // put just inside the wall, its velocity turned back
        CHECK(st.vx[0] == -4);
        // The state is a valid state again: it loads back and steps like the original.
        World w2 = World::create(d);
        REQUIRE_NOTHROW(w2.set_state(st));
        w.step(5);
        w2.step(5);
        CHECK(w.state().x == w2.state().x);
        CHECK(w.state().vy == w2.state().vy);
      }
    }
  }
}
