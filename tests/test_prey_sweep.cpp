// Issue 14, the predators' view of the prey in one sweep (prey_views, core/prey_scan.hpp): many
// predators' ranges at once, sorted by slot, must give every predator the slot-order loop's
// bits (count, double sum, nearest, and the prey that see it) on every instruction set. Float
// worlds must take the sweep (no predator scanned again) unless a predator's offsets leave the
// exact-sum grid or another kind lies in its ranges; double worlds scan every predator again.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "core/kernels.hpp"
#include "core/model.hpp"
#include "core/prey_scan.hpp"
#include "prey_scan_reference.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;

using Ranges = std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>;

// The slot-order reference (tests/prey_scan_reference.hpp) for every predator: its results in
// `want` and the prey that see some predator in `want_seen`.
template <class Real, int D>
void reference_views(PreyScanArgs<Real> a, const std::vector<PreySweepPred<Real>>& preds,
                     const Ranges& ranges, bool wrap, std::vector<PreyScanResult<Real>>& want,
                     std::vector<std::uint8_t>& want_seen) {
  want.assign(preds.size(), PreyScanResult<Real>{});
  for (std::size_t k = 0; k < preds.size(); ++k) {
    for (int c = 0; c < 3; ++c) {
      a.ap[c] = preds[k].p[c];
      a.av[c] = preds[k].v[c];
    }
    a.av_len = preds[k].v_len;
    test::reference<Real, D>(a, ranges[k], wrap, want[k], want_seen);
  }
}

// prey_views' result for predator k against the reference's: count, the double sum's bits
// and the nearest prey.
template <class Real, int D>
void check_view(const PreyScanResult<Real>& got, const PreyScanResult<Real>& want) {
  REQUIRE(got.prey == want.prey);
  if (want.prey == 0) return;
  for (int c = 0; c < D; ++c) {
    CHECK(got.sum[c] == want.sum[c]);  // the slot-order double sum's bits
    CHECK(got.nearest_d[c] == want.nearest_d[c]);
  }
  CHECK(got.best_slot == want.best_slot);
  CHECK(got.best_id == want.best_id);
  CHECK(got.best2 == want.best2);
}

// `radius` above a quarter box makes vectors take the whole minimum image; predators sit at the
// seam (both sides) and some ranges span the whole store (a view wider than the box).
template <class Real, int D>
void check_views(bool wrap, double radius, std::uint64_t seed) {
  const double L = 100;
  const std::size_t n = 5000, np = 48;
  BoidStore<Real> s;
  s.dims = D;
  s.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.02, L - 0.02), uv(-2.0, 2.0);
  for (int round = 0; round < 2; ++round) {
    // Round 1: cones, another kind among the prey, and prey and a predator near the origin
    // planes (offsets off the 2^-30 grid): those predators are scanned again.
    for (std::size_t i = 0; i < n; ++i) {
      s.id[i] = std::uint32_t((i * 7919) % n);
      s.kind[i] = round == 1 && i >= 1000 && i < 1004 ? 1 : 0;  // in some predators' ranges
      for (int c = 0; c < D; ++c) {
        double x = u(gen);
        if (i % 3 == 0) x = std::floor(x);  // a lattice: ties in d2
        if (round == 1 && i % 211 == 0) x = 3e-6;
        if (!wrap && i % 50 == 0) x = -3 + x / 10;  // outside the box
        s.p[c][i] = Real(x);
        s.v[c][i] = Real(i % 11 == 0 ? 0.0 : uv(gen));
      }
    }
    PreyScanArgs<Real> a = test::scan_args(s, L, round == 0, radius, 5.0);
    std::vector<PreySweepPred<Real>> preds(np);
    Ranges ranges(np);
    std::vector<PreySweepTask> tasks;
    for (std::size_t k = 0; k < np; ++k) {
      PreySweepPred<Real>& pr = preds[k];
      Real vv = 0;
      for (int c = 0; c < D; ++c) {
        double x = u(gen);
        if (k % 4 == 0 && c == 0) x = wrap ? L - 1e-3 : L + 2;                 // at the seam
        if (k % 4 == 1 && c == 0) x = round == 1 && k % 8 == 1 ? 3e-6 : 0.01;  // its other side
        if (k % 5 == 0) x = std::floor(x);
        pr.p[c] = Real(x);
        pr.v[c] = Real(k % 7 == 3 ? 0.0 : uv(gen));
        vv += pr.v[c] * pr.v[c];
      }
      pr.v_len = std::sqrt(vv);
      if (k % 7 == 0) {
        ranges[k].emplace_back(0u, std::uint32_t(n));  // every slot
      } else {
        for (std::uint32_t b = std::uint32_t(gen() % 50); b < n;) {
          const std::uint32_t e = std::min<std::uint32_t>(std::uint32_t(n), b + 1 + gen() % 90);
          if (gen() % 3 != 0) ranges[k].emplace_back(b, e);
          b = e + std::uint32_t(gen() % 40);
        }
      }
      for (const auto& [b, e] : ranges[k]) tasks.push_back(PreySweepTask{b, e, std::uint32_t(k)});
    }
    std::shuffle(tasks.begin(), tasks.end(), gen);
    std::vector<PreyScanResult<Real>> want;
    std::vector<std::uint8_t> want_seen(n, 0);
    reference_views<Real, D>(a, preds, ranges, wrap, want, want_seen);
    std::size_t seeing = 0;
    for (const PreyScanResult<Real>& w : want) seeing += w.prey > 0;
    CHECK(seeing > np / 2);
    for (Isa isa : test::testable_isas()) {
      test::MaxIsaScope cap(isa);
      INFO(isa_name(isa) << " " << D << "D wrap " << wrap << " float " << (sizeof(Real) == 4)
                         << " radius " << radius << " round " << round);
      std::vector<std::uint8_t> seen(n, 0);
      a.seen = seen.data();
      std::vector<PreyScanResult<Real>> got(np);
      const std::size_t again = prey_views(a, D, wrap, preds.data(), np, tasks, got.data());
      for (std::size_t k = 0; k < np; ++k) {
        INFO("predator " << k);
        check_view<Real, D>(got[k], want[k]);
      }
      CHECK(seen == want_seen);
      if (sizeof(Real) == 8) {
        CHECK(again == np);  // double: every predator through the scan
      } else if (round == 0) {
        CHECK(again == 0);  // float, on the grid, no other kinds: the sweep alone
      } else {
        CHECK(again > 0);  // the predators near the origin, or with another kind in view
        CHECK(again < np);
      }
    }
  }
}

}  // namespace

TEST_CASE("prey views: the sweep over many predators gives each the scan's bits",
          "[fastpath][predators]") {
  for (bool wrap : {true, false}) {
    for (double radius : {13.0, 40.0}) {
      check_views<float, 2>(wrap, radius, 31);
      check_views<float, 3>(wrap, radius, 32);
      check_views<double, 3>(wrap, radius, 33);
    }
  }
}

TEST_CASE("prey views: float worlds have the sweep on every instruction set",
          "[fastpath][predators]") {
  for (Isa isa : test::testable_isas()) {
    test::MaxIsaScope cap(isa);
    INFO(isa_name(isa));
    for (int dims : {2, 3}) {
      for (bool wrap : {true, false}) {
        CHECK(select_prey_sweep<float>(dispatched_isa(), dims, wrap) != nullptr);
        CHECK(select_prey_sweep<double>(dispatched_isa(), dims, wrap) == nullptr);
      }
    }
  }
}

// PreyScanArgs::kind0_end (set by prepare_behaviours to the first slot of another kind): ranges
// below it skip the kind bytes. With the true bound the views keep the reference's bits; with a
// bound past the other kinds (a lie) the sweep no longer sees them, which shows the test is
// skipped there, and the predators with another kind in view are not scanned again.
TEST_CASE("prey views: ranges below kind0_end skip the kind test", "[fastpath][predators]") {
  const double L = 100;
  const std::size_t n = 4000, np = 24;
  BoidStore<float> s;
  s.dims = 3;
  s.resize(n);
  std::mt19937_64 gen(41);
  std::uniform_real_distribution<double> u(1.0, L - 1.0), uv(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i) {
    s.id[i] = std::uint32_t((i * 7919) % n);
    s.kind[i] = i >= 2500 && i % 97 == 0 ? 1 : 0;  // other kinds from slot 2522 on
    for (int c = 0; c < 3; ++c) {
      s.p[c][i] = float(u(gen));
      s.v[c][i] = float(uv(gen));
    }
  }
  const std::uint32_t first_other = 2522;
  REQUIRE(s.kind[first_other] == 1);
  PreyScanArgs<float> a = test::scan_args(s, L, true, 30.0, 5.0);
  std::vector<PreySweepPred<float>> preds(np);
  Ranges ranges(np);
  std::vector<PreySweepTask> tasks;
  for (std::size_t k = 0; k < np; ++k) {
    float vv = 0;
    for (int c = 0; c < 3; ++c) {
      preds[k].p[c] = float(u(gen));
      preds[k].v[c] = float(uv(gen));
      vv += preds[k].v[c] * preds[k].v[c];
    }
    preds[k].v_len = std::sqrt(vv);
    // Half the predators see only slots below the other kinds, half the whole store.
    ranges[k].emplace_back(0u, k % 2 == 0 ? 2000u : std::uint32_t(n));
    for (const auto& [b, e] : ranges[k]) tasks.push_back(PreySweepTask{b, e, std::uint32_t(k)});
  }
  std::vector<PreyScanResult<float>> want;
  std::vector<std::uint8_t> want_seen(n, 0);
  reference_views<float, 3>(a, preds, ranges, true, want, want_seen);
  for (Isa isa : test::testable_isas()) {
    test::MaxIsaScope cap(isa);
    INFO(isa_name(isa));
    for (std::uint32_t bound : {0u, first_other, std::uint32_t(n)}) {
      INFO("kind0_end " << bound);
      a.kind0_end = bound;
      std::vector<std::uint8_t> seen(n, 0);
      a.seen = seen.data();
      std::vector<PreyScanResult<float>> got(np);
      const std::size_t again = prey_views(a, 3, true, preds.data(), np, tasks, got.data());
      if (bound == n) {
        CHECK(again == 0);  // the other kinds unseen: nothing flagged
        std::size_t differ = 0;
        for (std::size_t k = 1; k < np; k += 2) differ += got[k].prey != want[k].prey;
        CHECK(differ > 0);  // and counted as prey
        continue;
      }
      CHECK(again == np / 2);  // the predators with another kind in view, scanned again
      for (std::size_t k = 0; k < np; ++k) {
        INFO("predator " << k);
        CHECK(want[k].prey > 0);
        check_view<float, 3>(got[k], want[k]);
      }
      CHECK(seen == want_seen);
    }
  }
}
