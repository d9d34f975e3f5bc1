// Issue 14, "every rule on the fast path": the spatial indexes that replace the behaviours'
// scans (core/kind_grid.hpp for predators, prey and kinds 1/2; core/obstacle_grid.hpp for
// obstacles) must hand every point within their reach to the caller, in ascending index order,
// or the results would silently change; the SIMD row kernels' closest-neighbour tracking (the
// threshold rules) must equal accumulate_pair's; every behaviour at once must give the same
// bits on every instruction set and thread count; and world.update = "sequential".
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/behaviour_trig.hpp"
#include "core/kernels.hpp"
#include "core/kind_grid.hpp"
#include "core/model.hpp"
#include "core/obstacle_grid.hpp"
#include "core/rng.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"
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
        // The same grid with neighbourhood lists, and a finer one with them.
        KindGrid<float> gl = g, gf;
        gl.build_near_lists();
        gf.build(
            dims, wrap, L, reach, n, [&](std::size_t k, int c) { return pts[k * 3 + c]; }, 16.0);
        gf.build_near_lists();
        std::size_t total = 0;  // pairs within reach checked (none at 0.7 in 3D is likely)
        for (int q = 0; q < 200; ++q) {
          float p[3] = {float(u(gen)), float(u(gen)), float(u(gen))};
          if (q % 10 == 0) p[0] = wrap ? float(L) - 1e-4f : float(L) + 3.0f;  // at the seam
          std::vector<std::uint32_t> got, listed, unordered, fine;
          g.for_near(p, [&](std::uint32_t k) { got.push_back(k); });
          CHECK(std::is_sorted(got.begin(), got.end()));
          CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
          // The neighbourhood lists give the same candidates in the same order; the unordered
          // walk the same candidates.
          gl.for_near(p, [&](std::uint32_t k) { listed.push_back(k); });
          CHECK(listed == got);
          g.for_near_unordered(p, [&](std::uint32_t k) { unordered.push_back(k); });
          std::sort(unordered.begin(), unordered.end());
          CHECK(unordered == got);
          gf.for_near(p, [&](std::uint32_t k) { fine.push_back(k); });
          CHECK(std::is_sorted(fine.begin(), fine.end()));
          CHECK(std::adjacent_find(fine.begin(), fine.end()) == fine.end());
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
              CHECK(std::binary_search(fine.begin(), fine.end(), std::uint32_t(k)));
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

TEST_CASE("world.update = sequential: in place in a random order, deterministic", "[fastpath]") {
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
  // The grid engines run it too, bit for bit (tests/test_sequential_engine.cpp).
  d.engine = EngineKind::grid;
  const State grid = run(d);
  CHECK(grid.x == seq1.x);
  CHECK(grid.vy == seq1.vy);
}

namespace {

// The row kernels of every testable instruction set against the scalar generic kernel
// (accumulate_pair per candidate) on one grid: counts and the closest neighbour exactly. A
// reflecting world, so both compute the offset as p_j - p_i (no image shift) and the sums'
// rounding is the only difference; half the boids sit on an integer lattice, so many
// candidates tie in d2 and the lexicographic tie-break is exercised. The row kernels track
// only neighbours nearer than closest_min_distance (`bound`: below and above the separation
// radius 3, so the tracker's bound or the separation's decides the rare branch): the generic
// kernel's closest where it is nearer, +inf and a zero offset elsewhere.
template <class Real, int D>
void check_nearest(double view_angle, double bound, std::uint64_t seed) {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = D;
  d.boundary = Boundary::reflect;
  d.size = 30;
  d.kinds[0].rules.view_angle = view_angle;
  d.kinds[0].behaviour.closest_separation = 1;
  d.kinds[0].behaviour.closest_min_distance = bound;
  const ModelParams<Real> m = ModelParams<Real>::from_def(d);
  REQUIRE(m.kind[0].track_nearest);
  REQUIRE(row_simd_pair_rule(m.kind[0]));
  const std::size_t n = D == 3 ? 1500 : 500;
  BoidStore<Real> src, dst;
  src.dims = D;
  src.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 30.0), uv(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i) {
    src.id[i] = std::uint32_t(i);
    for (int c = 0; c < D; ++c) {
      const double x = u(gen);
      src.p[c][i] = Real(i % 2 ? x : std::floor(x / 2) * 2);  // lattice of spacing 2
      src.v[c][i] = Real(i % 7 == 0 ? 0.0 : uv(gen));         // some at rest: no view cone
    }
  }
  GridSettings gs;
  gs.dims = D;
  gs.boundary = d.boundary;
  gs.size = d.size;
  gs.radius = d.kinds[0].rules.radius;
  Executor ex(1);
  CellList<Real> cells;
  cells.build(gs, src, dst, ex);
  const GridView<Real> g = cells.view(dst, m);
  KernelScratch<Real> scratch;
  std::vector<FlockSums<Real>> ref(n), got(n);
  for (std::uint32_t r = 0; r < g.nrows(); ++r)
    generic_row_sums<Real, D>(g, r, ref.data() + g.row_start(r), scratch);
  // The generic kernel's closest neighbour where it is within the bound.
  const Real bound2 = m.kind[0].beh.closest_min2;
  std::size_t tracked = 0, beyond = 0;
  for (FlockSums<Real>& s : ref) {
    if (s.near_d2 < bound2) {
      ++tracked;
    } else {
      beyond += s.near_d2 < Real(1e30);
      s.near_d2 = std::numeric_limits<Real>::infinity();
      for (Real& x : s.near_d) x = 0;
    }
  }
  REQUIRE(tracked > n / 10);
  if (bound < 2) REQUIRE(beyond > n / 40);  // some left out: the +inf case is checked
  for (Isa isa : test::testable_isas()) {
    const RowKernel<Real> kernel = select_row_kernel<Real>(isa, D, g.wrap, g.kp.full_view);
    for (std::uint32_t r = 0; r < g.nrows(); ++r)
      kernel(g, r, got.data() + g.row_start(r), scratch);
    for (std::size_t i = 0; i < n; ++i) {
      INFO(isa_name(isa) << " " << D << "D double " << (sizeof(Real) == 8) << " view " << view_angle
                         << " slot " << i);
      REQUIRE(got[i].k == ref[i].k);

      REQUIRE(got[i].near_d2 == ref[i].near_d2);  // +inf beyond the bound
      for (int c = 0; c < D; ++c) REQUIRE(got[i].near_d[c] == ref[i].near_d[c]);
    }
  }
}

}  // namespace

TEST_CASE("row kernels track the closest neighbour exactly as accumulate_pair",
          "[fastpath][grid]") {
  for (double view : {360.0, 250.0}) {
    for (double bound : {1.0, 4.0}) {
      check_nearest<float, 2>(view, bound, 1);
      check_nearest<float, 3>(view, bound, 2);
      check_nearest<double, 2>(view, bound, 3);
      check_nearest<double, 3>(view, bound, 4);
    }
  }
}

TEST_CASE("sin_cos_n gives sin_cos's bits on every instruction set", "[fastpath][behaviours]") {
  using namespace boids;
  // Random angles of the circular centre's range and far beyond it (the scalar fallback past
  // |q| = 2^20), both signs, the quadrant boundaries, zeros, NaN and infinities; an odd count,
  // so the scalar tail after the last full vector runs too.
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> near(-7.0, 7.0), far(-4e6, 4e6);
  std::vector<double> a = {0.0,
                           -0.0,
                           std::nan(""),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           1e-300,
                           -1e-300};
  for (int q = -9; q <= 9; ++q) {
    a.push_back(q * 1.5707963267948966);
    a.push_back(q * 0.7853981633974483);  // the ties of the nearest quadrant
  }
  for (int k = 0; k < 20000; ++k) a.push_back(k % 5 == 0 ? far(gen) : near(gen));
  if (a.size() % 2 == 0) a.push_back(1.0);
  REQUIRE(a.size() % 2 == 1);
  for (Isa isa : test::testable_isas()) {
    const SinCosN fn = select_sin_cos_n(isa);
    REQUIRE(fn != nullptr);
    std::vector<double> s(a.size(), 9.0), c(a.size(), 9.0);
    fn(a.data(), s.data(), c.data(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      double se = 0, ce = 0;
      beh::sin_cos(a[i], se, ce);
      INFO(isa_name(isa) << " a = " << a[i]);
      REQUIRE(std::memcmp(&s[i], &se, sizeof se) == 0);
      REQUIRE(std::memcmp(&c[i], &ce, sizeof ce) == 0);
    }
  }
}

TEST_CASE("cbrt_n gives std::cbrt's bits on every instruction set", "[fastpath][behaviours]") {
  using namespace boids;
  // follow_leader's slot radii (id + 0.5 for ids up to 2^32), random magnitudes over the whole
  // normal range, the factor's three residues around powers of two, and the arguments the
  // lanes hand to std::cbrt: zeros, negatives, subnormals, infinities, NaN; an odd count.
  std::mt19937_64 gen(29);
  std::uniform_real_distribution<double> expo(-1000.0, 1000.0), mant(0.5, 1.0);
  std::vector<double> a = {0.0,
                           -0.0,
                           -8.0,
                           std::nan(""),
                           4.9e-324,
                           2.2e-308,
                           1e-310,
                           1.7e308,
                           -1e-300,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  for (int e = -60; e <= 60; ++e)
    for (double m : {0.5, 0.75, 1.0 - 1e-16}) a.push_back(std::ldexp(m, e));
  for (std::uint32_t id = 0; id < 30000; ++id) a.push_back(double(id) + 0.5);
  for (int k = 0; k < 4000; ++k) a.push_back(double(gen() >> 1) + 0.5);
  for (int k = 0; k < 20000; ++k) a.push_back(mant(gen) * std::pow(2.0, expo(gen)));
  if (a.size() % 2 == 0) a.push_back(3.0);
  for (Isa isa : test::testable_isas()) {
    const CbrtN fn = select_cbrt_n(isa);
    REQUIRE(fn != nullptr);
    std::vector<double> r(a.size(), 9.0);
    fn(a.data(), r.data(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double e = std::cbrt(a[i]);
      INFO(isa_name(isa) << " a = " << a[i]);
      REQUIRE(std::memcmp(&r[i], &e, sizeof e) == 0);
    }
  }
}

TEST_CASE("wander_draws_n gives random_unit_at's bits on every instruction set",
          "[fastpath][behaviours]") {
  using namespace boids;
  // Ids over the whole 32-bit range, keys near 0 and large, seeds 0 and random, 2D and 3D; an
  // odd count, so the scalar tail after the last full vector runs too.
  std::mt19937_64 gen(31);
  std::vector<std::uint64_t> ids = {0, 1, 2, 0xFFFFFFFFull, 0x80000000ull};
  for (int k = 0; k < 3000; ++k) ids.push_back(gen() >> 32);
  if (ids.size() % 2 == 0) ids.push_back(7);
  const std::size_t n = ids.size();
  for (Isa isa : test::testable_isas()) {
    const WanderDrawsN fn = select_wander_draws_n(isa);
    REQUIRE(fn != nullptr);
    for (std::uint64_t seed : {std::uint64_t(0), std::uint64_t(gen())}) {
      for (std::uint64_t key : {std::uint64_t(0), std::uint64_t(41), std::uint64_t(1) << 40}) {
        for (bool three : {false, true}) {
          std::vector<double> ang(2 * n, 9.0), zs(2 * n, 9.0);
          fn(seed, ids.data(), key, three, ang.data(), zs.data(), n);
          for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t stream = random_stream(seed, ids[i], kStreamWander);
            for (std::uint64_t j = 0; j < 2; ++j) {
              INFO(isa_name(isa) << " id " << ids[i] << " key " << key + j << " 3D " << three);
              const double a = 2.0 * 3.14159265358979323846 * random_unit_at(stream, (key + j) * 4);
              REQUIRE(std::memcmp(&ang[j * n + i], &a, sizeof a) == 0);
              const double z = three ? 2.0 * random_unit_at(stream, (key + j) * 4 + 1) - 1.0 : 9.0;
              REQUIRE(std::memcmp(&zs[j * n + i], &z, sizeof z) == 0);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("min_image skips nearbyint below half the size with the same bits", "[fastpath]") {
  std::mt19937_64 gen(21);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  const float Lf = 37.5f, invf = 1.0f / Lf;
  const double Ld = 37.5, invd = 1.0 / Ld;
  std::vector<double> ds = {0.0, -0.0, 0.5 * Ld, -0.5 * Ld, 0.4999999 * Ld, -0.4999999 * Ld,
                            Ld,  -Ld,  1e-30,    -1e-30};
  for (int k = 0; k < 20000; ++k) ds.push_back(u(gen) * Ld);
  for (double x : ds) {
    const float xf = float(x);
    const float ef = xf - Lf * std::nearbyint(xf * invf);
    const double ed = x - Ld * std::nearbyint(x * invd);
    const float gf = boids::min_image(xf, Lf, invf);
    const double gd = boids::min_image(x, Ld, invd);
    INFO(x);
    REQUIRE(std::memcmp(&gf, &ef, sizeof gf) == 0);
    REQUIRE(std::memcmp(&gd, &ed, sizeof gd) == 0);
  }
}

namespace {

// Every behaviour of one scenario at once (the all-behaviours bench workload, scaled down):
// the threshold rules on the SIMD row kernels, predators, leaders, obstacles, formation.
boids::WorldDef all_behaviours(int dims, boids::Precision prec, boids::Boundary b) {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = dims;
  d.precision = prec;
  d.boundary = b;
  d.count = dims == 3 ? 1500 : 800;
  d.size = dims == 3 ? 60 : 120;
  d.predators = 12;
  d.leaders = 4;
  BehaviourDef& k = d.kinds[0].behaviour;
  k.seek = 0.05, k.arrive = 0.05, k.flee = 0.05, k.flee_radius = 20, k.pursue = 0.02;
  k.evade = 0.02, k.wander = 0.1, k.follow_leader = 0.05, k.flee_predators = 1, k.avoid = 1;
  k.formation = 0.02, k.global_cohesion = 0.001, k.destination_alignment = 0.02;
  k.cohesion_max_distance = 3, k.closest_separation = 0.5, k.evade_predators = 0.5;
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
  d.target.velocity = at(.05, 0, 0);
  d.target.hold = 1, d.target.move = 1;
  return d;
}

// Only the prey's terms on kind 0 (the grid engine finishes the prey that see no predator in
// SIMD batches, the others again on the behaviour path), or the abm profile (SIMD batches of
// abm_update).
boids::WorldDef prey_or_abm(int dims, boids::Precision prec, boids::Boundary b, bool abm) {
  using namespace boids;
  WorldDef d = default_world_def();
  d.dims = dims;
  d.precision = prec;
  d.boundary = b;
  d.count = dims == 3 ? 1500 : 800;
  d.size = dims == 3 ? 60 : 120;
  if (abm) {
    d.profile = Profile::abm;
    RuleDef& r = d.kinds[0].rules;
    r.separation_radius = 1, r.cohesion = 0.03, r.separation = 0.015, r.alignment = 0.05;
    d.kinds[0].motion.max_speed = d.kinds[0].motion.min_speed = 1;
    d.predators = 3;  // predators flock and chase; the abm prey ignore them
  } else {
    d.predators = 40;
    d.leaders = 3;  // present, but kind 0 does not follow them
    d.kinds[0].behaviour.evade_predators = 0.5;
  }
  return d;
}

}  // namespace

TEST_CASE("every behaviour at once: same bits on every instruction set and thread count",
          "[fastpath][grid][parallel]") {
  using namespace boids;
  for (int scene = 0; scene < 3; ++scene)
    for (int dims : {2, 3}) {
      for (Precision prec : {Precision::f32, Precision::f64}) {
        for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
          WorldDef d =
              scene == 0 ? all_behaviours(dims, prec, b) : prey_or_abm(dims, prec, b, scene == 2);
          d.threads = 1;
          d.simd = false;
          World ws = test::create_checked(d);
          REQUIRE(engine_of(ws).kernel_name() == "scalar");
          ws.step(6);
          const std::uint64_t ref = ws.state_hash();
          d.simd = true;
          for (Isa isa : test::testable_isas()) {
            test::MaxIsaScope cap(isa);
            for (int threads : {1, 3}) {
              INFO("scene " << scene << " " << isa_name(isa) << " " << dims << "D f64 "
                            << (prec == Precision::f64) << " boundary " << int(b) << " threads "
                            << threads);
              d.threads = threads;
              World w = test::create_checked(d);
              // The row kernel of this instruction set, not the scalar generic fallback.
              REQUIRE(engine_of(w).kernel_name() == isa_name(isa));
              w.step(6);
              CHECK(w.state_hash() == ref);
            }
          }
        }
      }
    }
}
