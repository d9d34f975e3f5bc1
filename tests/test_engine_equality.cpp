// Every fast engine against the naive stepper, boid by boid, along long trajectories.
//
// Two engines sum the same neighbours in different orders, so their trajectories part
// chaotically after a few dozen steps and comparing two free runs says little. Instead the
// engine under test runs freely, and at every step its state is copied into a naive world
// (set_state); both take one step from the same state and are compared per boid:
//   * neighbour counts equal for every boid (the engine's own kernel, through its test hook,
//     against the naive stepper's naive_sums);
//   * position and velocity of every boid within a few units in the last place of the
//     precision: |dp| <= kUlpsPos * eps * size + |dv| bound * dt, |dv| <= kUlpsVel * eps *
//     (largest max_speed), eps = the epsilon of the world's float type.
// The trajectory is the engine's own, so every step is a fresh state of a real run: cells
// filling and emptying, boids crossing the seam, obstacles and walls being met.
//
// Counts are exact except in one documented place (docs/engine.md, "Grid vs naive"): in a
// wrapping world the grid adds the image shift to the neighbour's coordinate, (p_j + L) - p_i,
// where the naive stepper computes (p_j - p_i) + L, so a pair within rounding of the radius
// (or of the view cone's edge) may be in one and not the other. A count difference is accepted
// only when that many such borderline pairs exist for the boid (checked in double); any other
// difference fails.
//
// The engines are a list (kEngines): a new engine is added there and in engine_counts().
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/engine.hpp"
#include "core/model.hpp"
#include "parallel/grid_engine.hpp"
#include "test_support.hpp"

using namespace boids;

namespace {

// The engines compared with the naive stepper.
const EngineKind kEngines[] = {EngineKind::grid, EngineKind::cluster};

// Allowed differences, in units of the precision's epsilon (see the top comment). Measured
// maxima over all scenes are far below (the slow test prints them).
constexpr double kUlpsVel = 256;
constexpr double kUlpsPos = 4;

// Neighbour counts of the next step, in id order, as the naive stepper finds them.
template <class Real>
std::vector<std::int32_t> naive_counts_t(const EngineT<Real>& e) {
  const BoidStore<Real>& s = e.id_ordered();
  std::vector<std::int32_t> out(s.n);
  for (std::size_t i = 0; i < s.n; ++i)
    out[i] = e.params().dims == 2 ? naive_sums<Real, 2>(e.params(), s, i).k
                                  : naive_sums<Real, 3>(e.params(), s, i).k;
  return out;
}

std::vector<std::int32_t> naive_counts(const World& w) {
  if (const auto* f = dynamic_cast<const EngineT<float>*>(&engine_of(w))) return naive_counts_t(*f);
  if (const auto* d = dynamic_cast<const EngineT<double>*>(&engine_of(w)))
    return naive_counts_t(*d);
  FAIL("unknown engine type");
  return {};
}

// Neighbour counts of the next step, in id order, as engine `e`'s own kernel finds them.
std::vector<std::int32_t> engine_counts(World& w, EngineKind e) {
  switch (e) {
    case EngineKind::naive:
      return naive_counts(w);
    case EngineKind::grid:
    case EngineKind::cluster:  // the same engine, its cluster-pair kernels
      return grid_neighbour_counts(w);
    default:
      FAIL("no neighbour-count hook for engine " << int(e) << ": add one to engine_counts()");
      return {};
  }
}

// Pairs of boid i (same kind) that are within rounding of the radius or of the view cone's
// edge, computed in double from the state the step starts from.
int borderline_pairs(const WorldDef& def, const State& s, std::size_t i, double eps) {
  const KindDef& k = def.kinds[s.kind[i]];
  const double r = k.rules.radius;
  const double cosv = std::cos(k.rules.view_angle * 0.5 * M_PI / 180.0);
  const bool cone = k.rules.view_angle < 360.0;
  const std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  const std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
  double vi2 = 0;
  for (int c = 0; c < def.dims; ++c) vi2 += (*v[c])[i] * (*v[c])[i];
  const double vlen = std::sqrt(vi2);
  // A coordinate is off by at most half an ulp of the box size per rounding, a few of them.
  const double slack = 8 * eps * def.size;
  int n = 0;
  for (std::size_t j = 0; j < s.id.size(); ++j) {
    if (j == i || s.kind[j] != s.kind[i]) continue;
    double d[3] = {0, 0, 0}, d2 = 0, dot = 0;
    for (int c = 0; c < def.dims; ++c) {
      d[c] = (*p[c])[j] - (*p[c])[i];
      if (def.boundary == Boundary::wrap) d[c] -= def.size * std::nearbyint(d[c] / def.size);
      d2 += d[c] * d[c];
      dot += d[c] * (*v[c])[i];
    }
    const double dist = std::sqrt(d2);
    if (std::fabs(dist - r) <= slack) {
      ++n;
    } else if (cone && vlen > 0 && dist < r &&
               std::fabs(dot - dist * vlen * cosv) <= slack * (vlen + dist)) {
      ++n;
    }
  }
  return n;
}

// Boids of `s` with a coordinate exactly on a reflecting world's far wall (x == L as the
// world's precision stores L).
int on_far_wall(const WorldDef& def, const State& s) {
  if (def.boundary != Boundary::reflect) return 0;
  const double wall = def.precision == Precision::f32 ? double(float(def.size)) : def.size;
  const std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  int n = 0;
  for (std::size_t i = 0; i < s.id.size(); ++i) {
    bool on = false;
    for (int c = 0; c < def.dims; ++c) on = on || (*p[c])[i] == wall;
    n += on;
  }
  return n;
}

// Whether two states are identical, bit for bit.
bool same_state(const State& a, const State& b) {
  return a.id == b.id && a.kind == b.kind && a.x == b.x && a.y == b.y && a.z == b.z &&
         a.vx == b.vx && a.vy == b.vy && a.vz == b.vz;
}

struct Worst {
  double vel = 0, pos = 0;  // largest differences seen, in units of eps * scale
  int accepted_counts = 0;  // count differences explained by borderline pairs
};

// Runs `def` on engine `e` for `steps` steps; before every step compares one step of it with
// one naive step from the same state, boid by boid (see the top comment).
Worst compare_along(WorldDef def, EngineKind e, int steps, const std::string& label) {
  INFO(label << " on " << test::engine_name(e));
  def.engine = e;
  World w = test::create_checked(def);
  WorldDef nd = def;
  nd.engine = EngineKind::naive;
  nd.threads = 1;
  World ref = test::create_checked(nd);
  const double eps = def.precision == Precision::f32 ? double(std::numeric_limits<float>::epsilon())
                                                     : std::numeric_limits<double>::epsilon();
  double vmax = 0;
  for (const KindDef& k : def.kinds) vmax = std::max(vmax, k.motion.max_speed);
  const double tol_v = kUlpsVel * eps * vmax;
  const double tol_p = kUlpsPos * eps * def.size + tol_v * def.dt;
  Worst worst;
  for (int step = 0; step < steps; ++step) {
    INFO("step " << step);
    const State start = w.state();
    // One known defect, owned by the reflect boundary fix of issue 12: a step can leave a boid
    // exactly on a reflecting wall (x == L), which set_state() then moves to 0 (or refuses).
    // Such a step is reported by name and skipped, the trajectory goes on; once the boundary
    // maps strictly inside [0, L) this never triggers.
    if (const int wall = on_far_wall(def, start); wall > 0) {
      WARN(label << ", step " << step << ": " << wall
                 << " boid(s) exactly on the wall x == L (issue 12, reflect boundary): "
                    "set_state cannot copy them, step skipped");
      w.step(1);
      ref.step(1);  // keep the step counters equal: random draws and targets depend on them
      continue;
    }
    REQUIRE(ref.step_count() == w.step_count());
    ref.set_state(start);
    REQUIRE(same_state(ref.state(), start));  // the naive world starts from the very same bits
    const std::vector<std::int32_t> ke = engine_counts(w, e), kn = naive_counts(ref);
    REQUIRE(ke.size() == start.id.size());
    REQUIRE(kn.size() == start.id.size());
    w.step(1);
    ref.step(1);
    const State a = w.state(), b = ref.state();
    REQUIRE(a.id == b.id);
    REQUIRE(a.kind == b.kind);
    const std::vector<double>* pa[3] = {&a.x, &a.y, &a.z};
    const std::vector<double>* pb[3] = {&b.x, &b.y, &b.z};
    const std::vector<double>* va[3] = {&a.vx, &a.vy, &a.vz};
    const std::vector<double>* vb[3] = {&b.vx, &b.vy, &b.vz};
    int bad = 0;  // report the first few failing boids, not thousands
    for (std::size_t i = 0; i < a.id.size() && bad < 5; ++i) {
      if (ke[i] != kn[i]) {
        const int border =
            def.boundary == Boundary::wrap ? borderline_pairs(def, start, i, eps) : 0;
        INFO("boid id " << a.id[i] << ": " << ke[i] << " neighbours, naive " << kn[i] << " ("
                        << border << " borderline pairs)");
        CHECK(std::abs(ke[i] - kn[i]) <= border);
        if (std::abs(ke[i] - kn[i]) > border) {
          ++bad;
          continue;
        }
        ++worst.accepted_counts;
        continue;  // a different neighbour set: the sums legitimately differ more
      }
      double dp = 0, dv = 0;
      for (int c = 0; c < def.dims; ++c) {
        double x = (*pa[c])[i] - (*pb[c])[i];
        if (def.boundary == Boundary::wrap) x -= def.size * std::nearbyint(x / def.size);
        dp = std::max(dp, std::fabs(x));
        dv = std::max(dv, std::fabs((*va[c])[i] - (*vb[c])[i]));
      }
      worst.vel = std::max(worst.vel, dv / (eps * vmax));
      worst.pos = std::max(worst.pos, dp / (eps * def.size));
      if (dp > tol_p || dv > tol_v) {
        ++bad;
        std::ostringstream why;
        why << "boid id " << a.id[i] << " kind " << int(a.kind[i]) << ": |dp| " << dp << " (bound "
            << tol_p << "), |dv| " << dv << " (bound " << tol_v << ")";
        FAIL_CHECK(why.str());
      }
    }
    REQUIRE(bad == 0);
  }
  return worst;
}

// A flock of `n` boids at a density of ~15-25 neighbours for radius 5, in a box of at least 3
// cells per axis (so a wrapping grid uses image shifts, the path that differs from naive).
WorldDef flock(int dims, Precision prec, Boundary b, std::uint32_t n) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.precision = prec;
  d.boundary = b;
  d.count = n;
  d.seed = 3;
  d.threads = 2;
  for (KindDef& k : d.kinds) {
    k.rules.radius = 5;
    k.rules.separation_radius = 1.5;
    k.behaviour.flee_predators = 0;  // each scene turns on what it tests
    k.behaviour.chase = 0;
  }
  d.kinds[1].rules.radius = 12;
  d.size = dims == 3 ? std::max(18.0, std::cbrt(26.0 * n)) : std::max(18.0, std::sqrt(5.3 * n));
  return d;
}

struct Scene {
  const char* name;
  void (*apply)(WorldDef&);
};

std::vector<double> at(const WorldDef& d, double fx, double fy, double fz) {
  std::vector<double> v{fx * d.size, fy * d.size, fz * d.size};
  v.resize(std::size_t(d.dims));
  return v;
}

// Every behaviour and profile (docs/behaviours.md), one scene each.
const Scene kScenes[] = {
    {"plain flock", [](WorldDef&) {}},
    {"view cone 270", [](WorldDef& d) { d.kinds[0].rules.view_angle = 270; }},
    {"cells_per_radius 2", [](WorldDef& d) { d.cells_per_radius = 2; }},
    {"seek", [](WorldDef& d) { d.kinds[0].behaviour.seek = 0.8, d.goal = at(d, .2, .7, .4); }},
    {"arrive", [](WorldDef& d) { d.kinds[0].behaviour.arrive = 1, d.goal = at(d, .6, .3, .5); }},
    {"flee, pursue, evade a moving target",
     [](WorldDef& d) {
       BehaviourDef& b = d.kinds[0].behaviour;
       b.flee = 0.5, b.flee_radius = 6, b.pursue = 0.3, b.evade = 0.2;
       d.target.position = at(d, .3, .3, .3);
       d.target.velocity = at(d, .02, .01, .015);
       d.target.hold = 0.5, d.target.move = 2;
     }},
    {"wander", [](WorldDef& d) { d.kinds[0].behaviour.wander = 0.6; }},
    {"predators, centroid chase",
     [](WorldDef& d) {
       d.predators = 4;
       d.kinds[0].behaviour.flee_predators = 15;
       d.kinds[1].behaviour.chase = 1;
     }},
    {"predators, nearest chase, evade",
     [](WorldDef& d) {
       d.predators = 3;
       d.kinds[0].behaviour.flee_predators = 10, d.kinds[0].behaviour.evade_predators = 1;
       d.kinds[1].behaviour.chase = 1, d.kinds[1].behaviour.chase_mode = ChaseMode::nearest;
     }},
    {"leaders and followers",
     [](WorldDef& d) {
       d.leaders = 3;
       d.kinds[0].behaviour.follow_leader = 1;
       d.goal = at(d, .5, .5, .5);
     }},
    {"obstacles",
     [](WorldDef& d) {
       d.kinds[0].behaviour.avoid = 2;
       d.spheres.push_back({at(d, .5, .5, .5), 0.12 * d.size});
       d.boxes.push_back({at(d, .1, .15, .2), at(d, .3, .35, .4)});
     }},
    {"containment",
     [](WorldDef& d) {
       if (d.boundary != Boundary::wrap) d.kinds[0].behaviour.containment = 1;
     }},
    {"formation",
     [](WorldDef& d) {
       d.kinds[0].behaviour.formation = 1;
       d.formation.radius = 0.25 * d.size;
       d.target.position = at(d, .5, .5, .5);
       d.target.velocity = at(d, .05, 0, 0);
       d.target.hold = 1, d.target.move = 1;
     }},
    {"simplified rules",
     [](WorldDef& d) {
       d.kinds[0].behaviour.global_cohesion = 0.3, d.kinds[0].behaviour.destination_alignment = 0.5;
       d.goal = at(d, .8, .2, .6);
     }},
    {"threshold rules",
     [](WorldDef& d) {
       d.kinds[0].behaviour.cohesion_max_distance = 2;
       d.kinds[0].behaviour.closest_separation = 1, d.kinds[0].behaviour.closest_min_distance = 1;
     }},
    {"abm profile",
     [](WorldDef& d) {
       d.profile = Profile::abm;  // its parameters (scenarios/abm_comparison.toml), fixed speed
       RuleDef& r = d.kinds[0].rules;
       r.separation_radius = 1, r.cohesion = 0.03, r.separation = 0.015, r.alignment = 0.05;
       d.kinds[0].motion.max_speed = d.kinds[0].motion.min_speed = 1;
     }},
    {"ellipse vehicle",
     [](WorldDef& d) {
       d.kinds[0].vehicle.model = Vehicle::ellipse;
       d.kinds[0].vehicle.lateral_falloff = 0.3;
       d.kinds[0].vehicle.mass = 2;
     }},
    {"turn-rate vehicle",
     [](WorldDef& d) {
       d.kinds[0].vehicle.model = Vehicle::turn_rate;
       d.kinds[0].vehicle.turn_rate = 120;
     }},
};

const char* bname(Boundary b) {
  return b == Boundary::wrap ? "wrap" : b == Boundary::reflect ? "reflect" : "open";
}

// Every scene x 2D/3D x float/double x wrap/reflect/open on every engine.
Worst run_all(std::uint32_t n, int steps) {
  Worst all;
  for (EngineKind e : kEngines) {
    for (const Scene& sc : kScenes) {
      for (int dims : {2, 3}) {
        for (Precision prec : {Precision::f32, Precision::f64}) {
          for (Boundary b : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
            WorldDef d = flock(dims, prec, b, n);
            sc.apply(d);
            std::ostringstream label;
            label << sc.name << ", " << dims << "D, " << (prec == Precision::f32 ? "f32" : "f64")
                  << ", " << bname(b);
            const Worst w = compare_along(d, e, steps, label.str());
            all.vel = std::max(all.vel, w.vel);
            all.pos = std::max(all.pos, w.pos);
            all.accepted_counts += w.accepted_counts;
          }
        }
      }
    }
  }
  return all;
}

}  // namespace

TEST_CASE("engines match naive boid by boid along trajectories of every behaviour",
          "[grid][equality]") {
  const Worst w = run_all(160, test::steps_or_sanitized(40, 15));
  WARN("largest differences: velocity "
       << w.vel << " eps*max_speed, position " << w.pos
       << " eps*size; count differences on borderline pairs: " << w.accepted_counts);
}

TEST_CASE("engines match naive boid by boid along long trajectories of every behaviour",
          "[grid][equality][slow]") {
  const Worst w = run_all(240, 100);
  WARN("largest differences: velocity "
       << w.vel << " eps*max_speed, position " << w.pos
       << " eps*size; count differences on borderline pairs: " << w.accepted_counts);
}

TEST_CASE("neighbour counts are exact integers, equal on every instruction set and to naive",
          "[grid][equality]") {
  // The SIMD kernels count neighbours in integer lanes (core/kernels_impl.hpp). A dense crowd
  // in one cell (hundreds of neighbours per boid, every boid in every lane several times over)
  // must give the naive stepper's integer count for every boid on every instruction set this
  // CPU runs (the others are reported as skipped), in float and double, 2D and 3D.
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (int dims : {2, 3}) {
      WorldDef d = flock(dims, prec, Boundary::reflect, 700);
      d.size = 40;
      d.kinds[0].rules.radius = 6;
      World probe = World::create(d);
      State s = probe.state();
      // Squeeze everyone into a ball of radius 2.5 at the centre: each sees all others.
      std::vector<double>* pos[3] = {&s.x, &s.y, &s.z};
      for (int c = 0; c < dims; ++c)
        for (double& v : *pos[c]) v = 20.0 + 2.5 * (v / 40.0 - 0.5);
      d.engine = EngineKind::naive;
      World ref = test::create_checked(d);
      ref.set_state(s);
      const std::vector<std::int32_t> kn = naive_counts(ref);
      for (std::int32_t k : kn) REQUIRE(k == 699);
      d.engine = EngineKind::grid;
      for (Isa isa : test::testable_isas()) {
        test::MaxIsaScope cap(isa);
        d.simd = isa != Isa::scalar;
        World w = test::create_checked(d);
        REQUIRE(engine_of(w).kernel_name() == isa_name(isa));
        w.set_state(s);
        INFO(isa_name(isa) << " " << dims << "D f64 " << (prec == Precision::f64));
        CHECK(grid_neighbour_counts(w) == kn);
      }
    }
  }
}
