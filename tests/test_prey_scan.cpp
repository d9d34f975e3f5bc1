// Issue 14, predators and leaders through indexes: the SIMD prey scan of every instruction set
// (core/prey_scan.hpp) must give a scalar slot-order loop's bits (count, double sum, nearest,
// and the prey that see the predator), also where its exact-lane sum must give up; the
// leaders' ring search (KindGrid::nearest) must give the scan's nearest leader; and worlds
// with many chasing predators across the wrap seam, or many leaders, must give the same bits
// on every instruction set and thread count and stay near the naive stepper.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/kernels.hpp"
#include "core/kind_grid.hpp"
#include "core/model.hpp"
#include "core/prey_scan.hpp"
#include "prey_scan_reference.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;
using test::reference;
using test::scan_args;

template <class Real, int D>
void check_scan(bool wrap, std::uint64_t seed) {
  const double L = 60;
  const std::size_t n = 3000;
  BoidStore<Real> s;
  s.dims = D;
  s.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, L), uv(-2.0, 2.0), tiny(0.0, 1e-5);
  for (std::size_t i = 0; i < n; ++i) {
    s.id[i] = std::uint32_t((i * 7919) % n);  // ids not in slot order
    for (int c = 0; c < D; ++c) {
      double x = u(gen);
      if (i % 3 == 0) x = std::floor(x);          // a lattice: ties in d2
      if (i % 211 == 0) x = tiny(gen);            // offsets off the 2^-30 grid near 0
      if (!wrap && i % 50 == 0) x = -3 + x / 10;  // outside the box
      s.p[c][i] = Real(x);
      s.v[c][i] = Real(i % 11 == 0 ? 0.0 : uv(gen));
    }
  }
  for (int seen_cone = 0; seen_cone < 2; ++seen_cone) {
    // The second round: cones, and a few other kinds among the prey (the scan skips them).
    for (std::size_t i = 0; i < n; ++i) s.kind[i] = seen_cone && i % 97 == 5 ? 1 : 0;
    PreyScanArgs<Real> a = scan_args(s, L, seen_cone == 0, 13.0, 5.0);
    std::size_t fast = 0;
    for (int q = 0; q < 60; ++q) {
      for (int c = 0; c < D; ++c) {
        double x = u(gen);
        if (q % 4 == 0 && c == 0) x = wrap ? L - 1e-3 : L + 2;  // at the seam
        if (q % 9 == 0) x = 3e-6;                               // near the origin planes
        if (q % 5 == 0) x = std::floor(x);                      // on the lattice
        a.ap[c] = Real(x);
        a.av[c] = Real(q % 7 == 0 ? 0.0 : uv(gen));
      }
      Real vv = 0;
      for (int c = 0; c < D; ++c) vv += a.av[c] * a.av[c];
      a.av_len = std::sqrt(vv);
      // Disjoint ascending ranges of random lengths, some slots left out.
      std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
      for (std::uint32_t b = 0; b < n;) {
        const std::uint32_t len = std::uint32_t(1 + gen() % 40);
        const std::uint32_t e = std::min<std::uint32_t>(std::uint32_t(n), b + len);
        if (gen() % 5 != 0) ranges.emplace_back(b, e);
        b = e + std::uint32_t(gen() % 3);
      }
      PreyScanResult<Real> want;
      std::vector<std::uint8_t> want_seen(n, 0);
      reference<Real, D>(a, ranges, wrap, want, want_seen);
      for (Isa isa : test::testable_isas()) {
        test::MaxIsaScope cap(isa);
        INFO(isa_name(isa) << " " << D << "D wrap " << wrap << " float " << (sizeof(Real) == 4)
                           << " query " << q << " cone " << seen_cone);
        std::vector<std::uint8_t> seen(n, 0);
        a.seen = seen.data();
        PreyScanResult<Real> got;
        select_prey_scan<Real>(dispatched_isa(), D, wrap)(a, ranges.data(), ranges.size(), got);
        REQUIRE(got.prey == want.prey);
        for (int c = 0; c < D; ++c) {
          CHECK(got.sum[c] == want.sum[c]);  // the slot-order double sum's bits
          if (want.prey > 0) CHECK(got.nearest_d[c] == want.nearest_d[c]);
        }
        if (want.prey > 0) {
          CHECK(got.best_slot == want.best_slot);
          CHECK(got.best_id == want.best_id);
          CHECK(got.best2 == want.best2);
        }
        CHECK(seen == want_seen);
      }
      fast += want.prey > 0;
    }
    CHECK(fast > 20);  // most queries see prey
  }
}

// The prey near the predator, as an engine's cells give them: in a wrapping box every vector
// whose lanes all lie within a quarter box of the predator skips the rest of the minimum image
// (prey_scan_impl.hpp); predators at the seam mix such vectors with wrapped ones. Fresh prey
// around each predator, some on a lattice (ties), some other kinds in the second round.
template <class Real, int D>
void check_scan_near(std::uint64_t seed) {
  const double L = 200;
  const std::size_t n = 1500;
  BoidStore<Real> s;
  s.dims = D;
  s.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, L), near(-30.0, 30.0), uv(-2.0, 2.0);
  std::size_t inside = 0;
  for (int round = 0; round < 2; ++round) {
    PreyScanArgs<Real> a = scan_args(s, L, round == 0, 27.0, 9.0);
    for (int q = 0; q < 40; ++q) {
      for (int c = 0; c < D; ++c) {
        double x = u(gen);
        if (q % 4 == 0 && c == 0) x = q % 8 == 0 ? L - 1e-3 : 2.5;  // near the seam
        a.ap[c] = Real(x);
        a.av[c] = Real(uv(gen));
      }
      Real vv = 0;
      for (int c = 0; c < D; ++c) vv += a.av[c] * a.av[c];
      a.av_len = std::sqrt(vv);
      for (std::size_t i = 0; i < n; ++i) {
        s.id[i] = std::uint32_t((i * 7919) % n);
        s.kind[i] = round == 1 && i % 89 == 3 ? 1 : 0;
        bool in = true;
        for (int c = 0; c < D; ++c) {
          double x = double(a.ap[c]) + near(gen);
          if (i % 3 == 0) x = std::floor(x);
          x = x < 0 ? x + L : x >= L ? x - L : x;
          s.p[c][i] = Real(x);
          s.v[c][i] = Real(uv(gen));
          Real off = s.p[c][i] - a.ap[c];
          in = in && off < Real(L / 4) && off > Real(-L / 4);
        }
        inside += in;
      }
      std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
      for (std::uint32_t b = 0; b < n;) {
        const std::uint32_t e = std::min<std::uint32_t>(std::uint32_t(n), b + 1 + gen() % 60);
        if (gen() % 4 != 0) ranges.emplace_back(b, e);
        b = e + std::uint32_t(gen() % 3);
      }
      PreyScanResult<Real> want;
      std::vector<std::uint8_t> want_seen(n, 0);
      reference<Real, D>(a, ranges, true, want, want_seen);
      REQUIRE(want.prey > 0);
      for (Isa isa : test::testable_isas()) {
        test::MaxIsaScope cap(isa);
        INFO(isa_name(isa) << " " << D << "D float " << (sizeof(Real) == 4) << " query " << q
                           << " round " << round);
        std::vector<std::uint8_t> seen(n, 0);
        a.seen = seen.data();
        PreyScanResult<Real> got;
        select_prey_scan<Real>(dispatched_isa(), D, true)(a, ranges.data(), ranges.size(), got);
        REQUIRE(got.prey == want.prey);
        for (int c = 0; c < D; ++c) {
          CHECK(got.sum[c] == want.sum[c]);
          CHECK(got.nearest_d[c] == want.nearest_d[c]);
        }
        CHECK(got.best_slot == want.best_slot);
        CHECK(got.best_id == want.best_id);
        CHECK(got.best2 == want.best2);
        CHECK(seen == want_seen);
      }
    }
  }
  CHECK(inside > n * 40);  // most prey within a quarter box: the short path runs
}

}  // namespace

TEST_CASE("prey scan: every instruction set gives the slot-order loop's bits",
          "[fastpath][predators]") {
  for (bool wrap : {true, false}) {
    check_scan<float, 2>(wrap, 1);
    check_scan<float, 3>(wrap, 2);
    check_scan<double, 2>(wrap, 3);
    check_scan<double, 3>(wrap, 4);
  }
}

TEST_CASE("prey scan: prey near the predator, with and without the seam, give the same bits",
          "[fastpath][predators]") {
  check_scan_near<float, 2>(11);
  check_scan_near<float, 3>(12);
  check_scan_near<double, 2>(13);
  check_scan_near<double, 3>(14);
}

TEST_CASE("KindGrid::nearest: the scan's nearest point, ties to the lower index",
          "[fastpath][leaders]") {
  std::mt19937_64 gen(21);
  for (int dims : {2, 3}) {
    for (bool wrap : {true, false}) {
      for (std::size_t n : {1, 2, 70, 400}) {
        const double L = 100;
        std::uniform_real_distribution<double> u(wrap ? 0.0 : -5.0, wrap ? L : L + 5.0);
        std::vector<float> pts(n * 3, 0.0f);
        for (std::size_t i = 0; i < pts.size(); ++i)
          pts[i] = float(i % 2 ? u(gen) : std::floor(u(gen) / 10) * 10);  // ties on a lattice
        KindGrid<float> g;
        const double edge = L / std::pow(double(n), 1.0 / dims);
        g.build(
            dims, wrap, L, edge, n, [&](std::size_t k, int c) { return pts[k * 3 + c]; }, 1.0);
        const float Lf = float(L), inv = float(1.0 / L);
        for (int q = 0; q < 300; ++q) {
          float p[3] = {float(u(gen)), float(u(gen)), float(u(gen))};
          if (q % 3 == 0) p[q % dims] = wrap ? Lf - 1e-3f : Lf + 4.0f;  // at the seam / outside
          if (q % 5 == 0)
            for (int c = 0; c < 3; ++c) p[c] = std::floor(p[c] / 10) * 10 + 5;  // equidistant
          const std::uint32_t skip = std::uint32_t(q % int(n));                 // "itself"
          auto d2 = [&](std::uint32_t k) {
            float s = 0;
            for (int c = 0; c < dims; ++c) {
              float d = pts[k * 3 + std::size_t(c)] - p[c];
              if (wrap) d = min_image(d, Lf, inv);
              s += d * d;
            }
            return s;
          };
          std::size_t want = n;
          float best2 = std::numeric_limits<float>::infinity();
          for (std::uint32_t k = 0; k < n; ++k) {
            if (k == skip) continue;
            if (d2(k) < best2) {
              best2 = d2(k);
              want = k;
            }
          }
          INFO(dims << "D wrap " << wrap << " n " << n << " query " << q);
          CHECK(g.nearest(p, d2, [&](std::uint32_t k) { return k != skip; }) == want);
        }
      }
    }
  }
}

namespace {

// Many chasing predators (radius 27 of a 100 box: every predator's view crosses a seam),
// prey that flee them, and many leaders followed by prey and predators.
WorldDef many_specials(int dims, Precision prec, Boundary b) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.size = 100;
  d.boundary = b;
  d.count = dims == 3 ? 6000 : 3000;
  d.seed = 77;
  d.precision = prec;
  d.predators = 300;
  d.leaders = std::uint32_t(kLeaderGridMin) + 40;
  d.kinds[0].behaviour.follow_leader = 0.3;
  d.kinds[1].behaviour.follow_leader = 0.2;
  d.kinds[0].behaviour.evade_predators = 0.5;
  return d;
}

}  // namespace

TEST_CASE("many predators and leaders: same bits on every instruction set and thread count",
          "[fastpath][predators][leaders][grid][parallel]") {
  for (int dims : {2, 3}) {
    for (Precision prec : {Precision::f32, Precision::f64}) {
      WorldDef d = many_specials(dims, prec, Boundary::wrap);
      d.threads = 1;
      d.simd = false;
      World ws = test::create_checked(d);
      ws.step(4);
      const std::uint64_t ref = ws.state_hash();
      d.simd = true;
      for (Isa isa : test::testable_isas()) {
        test::MaxIsaScope cap(isa);
        for (int threads : {1, 3}) {
          INFO(isa_name(isa) << " " << dims << "D f64 " << (prec == Precision::f64) << " threads "
                             << threads);
          d.threads = threads;
          World w = test::create_checked(d);
          w.step(4);
          CHECK(w.state_hash() == ref);
        }
      }
    }
  }
}

TEST_CASE("many predators chasing across the seam, prey only fleeing: grid matches naive",
          "[fastpath][predators][grid]") {
  for (int dims : {2, 3}) {
    for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
      WorldDef d = many_specials(dims, Precision::f64, b);
      d.count = dims == 3 ? 2500 : 1500;
      d.leaders = 0;  // the prey's terms are kind 0's only: the marked prey's path
      d.kinds[0].behaviour.follow_leader = 0;
      d.kinds[1].behaviour.follow_leader = 0;
      d.engine = EngineKind::naive;
      World naive = World::create(d);
      d.engine = EngineKind::grid;
      World grid = World::create(d);
      INFO(dims << "D " << (b == Boundary::wrap ? "wrap" : "reflect"));
      naive.step(3);
      grid.step(3);
      const State a = naive.state(), g = grid.state();
      REQUIRE(a.id == g.id);
      double m = 0;
      for (std::size_t i = 0; i < a.id.size(); ++i) {
        double dx = std::abs(a.x[i] - g.x[i]);
        if (b == Boundary::wrap) dx = std::min(dx, d.size - dx);
        m = std::max({m, dx, std::abs(a.vx[i] - g.vx[i]), std::abs(a.vy[i] - g.vy[i])});
      }
      CHECK(m < 1e-6);
    }
  }
}

TEST_CASE("many leaders: grid matches naive", "[fastpath][leaders][grid]") {
  for (int dims : {2, 3}) {
    WorldDef d = many_specials(dims, Precision::f64, Boundary::wrap);
    d.count = 1500;
    d.predators = 20;
    d.engine = EngineKind::naive;
    World naive = World::create(d);
    d.engine = EngineKind::grid;
    World grid = World::create(d);
    naive.step(3);
    grid.step(3);
    const State a = naive.state(), g = grid.state();
    REQUIRE(a.id == g.id);
    double m = 0;
    for (std::size_t i = 0; i < a.id.size(); ++i) {
      double dx = std::abs(a.x[i] - g.x[i]);
      dx = std::min(dx, d.size - dx);
      m = std::max({m, dx, std::abs(a.vx[i] - g.vx[i])});
    }
    CHECK(m < 1e-6);
  }
}
