// Statistics, derived figures and the time-budget skip of the bench.
#include <catch2/catch.hpp>
#include <cmath>

#include "bench/bench.hpp"
#include "core/scenario.hpp"

using namespace boids;
using namespace boids::bench;

namespace {
Result measured(Variant v, std::uint32_t n, int threads, double ms) {
  Result r;
  r.config = {v, n, threads, 3, Precision::f32};
  r.status = Status::measured;
  r.ms = summarize({ms});
  return r;
}
}  // namespace

TEST_CASE("summarize: median, quartiles (numpy's linear method), min, max", "[bench]") {
  const Summary odd = summarize({5, 1, 3, 2, 4});
  CHECK(odd.n == 5);
  CHECK(odd.median == 3);
  CHECK(odd.q1 == 2);
  CHECK(odd.q3 == 4);
  CHECK(odd.iqr() == 2);
  CHECK(odd.min == 1);
  CHECK(odd.max == 5);
  const Summary even = summarize({4, 1, 3, 2});
  CHECK(even.median == Approx(2.5));
  CHECK(even.q1 == Approx(1.75));
  CHECK(even.q3 == Approx(3.25));
  const Summary one = summarize({7});
  CHECK(one.median == 7);
  CHECK(one.iqr() == 0);
  CHECK(summarize({}).n == 0);
  // An outlier moves the mean, not the median.
  CHECK(summarize({10, 10, 11, 10, 500}).median == 10);
  CHECK(quantile_sorted({0, 10}, 0.3) == Approx(3));
}

TEST_CASE("check_budget: naive predicted as n^2, grid as n, skip past the budget", "[bench]") {
  Settings s;
  s.warmup = 2;
  s.reps = 5;
  s.budget_s = 10;
  std::vector<Result> done = {measured(Variant::naive, 1000, 1, 10.0),
                              measured(Variant::grid_simd, 1000, 1, 10.0),
                              measured(Variant::grid_simd, 1000, 2, 1.0)};
  // No smaller measurement: nothing to predict from.
  const BudgetDecision first = check_budget({Variant::naive, 500, 1, 3, Precision::f32}, done, s);
  CHECK_FALSE(first.skip);
  CHECK(first.predicted_step_ms == 0);
  // 2000 naive: 10 ms * 4 = 40 ms per step, ~0.24 s in all: measured.
  const BudgetDecision near = check_budget({Variant::naive, 2000, 1, 3, Precision::f32}, done, s);
  CHECK_FALSE(near.skip);
  CHECK(near.predicted_step_ms == Approx(40));
  // 100000 naive: 10 ms * 100^2 = 100 s per step: skipped, with a note.
  const BudgetDecision far = check_budget({Variant::naive, 100000, 1, 3, Precision::f32}, done, s);
  CHECK(far.skip);
  CHECK(far.predicted_step_ms == Approx(100000));
  CHECK(far.note.find("n^2") != std::string::npos);
  CHECK(far.note.find("10 s budget") != std::string::npos);
  // Grid: 1000 -> 100000 is 100x: 1 s/step, 9 s minimum work (warm-up 2, pair count 1, three
  // repetitions of one step and one kernel pass each): fits; 1e6 does not.
  CHECK(rep_cost_steps(Variant::naive) == 1);
  CHECK(rep_cost_steps(Variant::grid_simd) == 2);
  CHECK(rep_cost_steps(Variant::grid_scalar) == 2);
  CHECK_FALSE(check_budget({Variant::grid_simd, 100000, 1, 3, Precision::f32}, done, s).skip);
  s.budget_s = 8.5;  // the kernel passes are counted: 9 s needed
  const BudgetDecision tight =
      check_budget({Variant::grid_simd, 100000, 1, 3, Precision::f32}, done, s);
  CHECK(tight.skip);
  CHECK(tight.note.find("needs ~9 s") != std::string::npos);
  // ... but naive pays no kernel passes: 2000 naive at 40 ms/step needs 0.24 s of any budget.
  s.budget_s = 0.25;
  CHECK_FALSE(check_budget({Variant::naive, 2000, 1, 3, Precision::f32}, done, s).skip);
  s.budget_s = 10;
  const BudgetDecision g =
      check_budget({Variant::grid_simd, 1000000, 1, 3, Precision::f32}, done, s);
  CHECK(g.skip);
  CHECK(g.predicted_step_ms == Approx(10000));
  CHECK(g.note.find("n^1") != std::string::npos);
  // Predictions come from the same thread count only (2 threads measured 1 ms at 1000).
  CHECK(check_budget({Variant::grid_simd, 1000000, 2, 3, Precision::f32}, done, s)
            .predicted_step_ms == Approx(1000));
  // ... and the same precision and dims.
  CHECK(check_budget({Variant::naive, 100000, 1, 2, Precision::f32}, done, s).predicted_step_ms ==
        0);
  CHECK(check_budget({Variant::naive, 100000, 1, 3, Precision::f64}, done, s).predicted_step_ms ==
        0);
}

TEST_CASE("measure skips a configuration over the budget without running it", "[bench]") {
  const WorldDef base = parse_scenario(default_scenario_text(), "default");
  Settings s;
  s.budget_s = 10;
  const std::vector<Result> done = {measured(Variant::naive, 1000, 1, 10.0)};
  // 1e6 naive boids would take hours per step; the skip must not even create the world.
  const Result r = measure(base, {Variant::naive, 1000000, 1, 3, Precision::f32}, s, done);
  CHECK(r.status == Status::skipped);
  CHECK(r.extrapolated_ms == Approx(10.0 * 1e6));
  CHECK(r.note.find("budget") != std::string::npos);
  CHECK(r.reps == 0);
  s.extrapolate = false;
  const Result plain = measure(base, {Variant::naive, 1000000, 1, 3, Precision::f32}, s, done);
  CHECK(plain.status == Status::skipped);
  CHECK(plain.extrapolated_ms == 0);
}

TEST_CASE("derive: speedups over naive and one thread, efficiency, probe fractions", "[bench]") {
  std::vector<Result> rs = {
      measured(Variant::naive, 1000, 1, 10.0), measured(Variant::grid_simd, 1000, 1, 1.0),
      measured(Variant::grid_simd, 1000, 2, 0.625), measured(Variant::grid_simd, 100000, 1, 100.0)};
  Result skipped;
  skipped.config = {Variant::naive, 100000, 1, 3, Precision::f32};
  skipped.status = Status::skipped;
  skipped.extrapolated_ms = 100000;
  rs.push_back(skipped);
  rs[3].candidates = 1000000;  // per step: 1e6 pairs in 0.1 s = 1e7 pairs/s
  rs[3].probe_pairs_per_s = 1e9;
  rs[3].kernel_ms = summarize({40.0, 50.0, 70.0});  // the kernel alone: 1e6 pairs in 0.05 s
  rs[0].candidates = 999000;                        // naive: no kernel-only figure
  rs[0].probe_pairs_per_s = 1e9;
  derive(rs);
  CHECK(rs[0].speedup_naive == Approx(1));
  CHECK(rs[1].speedup_naive == Approx(10));
  CHECK_FALSE(rs[1].speedup_naive_extrapolated);
  CHECK(rs[2].speedup_naive == Approx(16));
  CHECK(rs[2].speedup_1t == Approx(1.6));
  CHECK(rs[2].efficiency == Approx(0.8));
  CHECK(rs[3].speedup_naive == Approx(1000));
  CHECK(rs[3].speedup_naive_extrapolated);
  CHECK(rs[3].candidates_per_s() == Approx(1e7));
  CHECK(rs[3].probe_fraction == Approx(0.01));
  CHECK(rs[3].kernel_candidates_per_s() == Approx(2e7));
  CHECK(rs[3].kernel_probe_fraction == Approx(0.02));
  CHECK(rs[0].probe_fraction == Approx(999000 / 10e-3 / 1e9));
  CHECK(rs[0].kernel_candidates_per_s() == 0);
  CHECK(rs[0].kernel_probe_fraction == 0);
  CHECK(rs[1].kernel_probe_fraction == 0);  // no probe figure
  CHECK(rs[3].boid_steps_per_s() == Approx(1e6));
  CHECK(rs[4].speedup_naive == 0);  // not measured: no figures
  CHECK(rs[4].boid_steps_per_s() == 0);
  CHECK(rs[4].kernel_candidates_per_s() == 0);
  // derive() recomputes: a fraction left from an earlier call is cleared with its inputs.
  rs[3].kernel_ms = Summary{};
  derive(rs);
  CHECK(rs[3].kernel_probe_fraction == 0);
  CHECK(rs[3].probe_fraction == Approx(0.01));
}

TEST_CASE("probe: the sweep boids-microbench times runs on every available ISA", "[bench]") {
  CHECK(probe_pairs_per_sweep() == 512.0 * 512.0);
  const auto isas = probe_isas();
  REQUIRE_FALSE(isas.empty());
  CHECK(isas.front() == "scalar");
  for (const std::string& isa : isas) {
    for (int dims : {2, 3}) {
      const double f = probe_sweeps(isa, Precision::f32, dims, 2);
      const double d = probe_sweeps(isa, Precision::f64, dims, 2);
      CHECK(std::isfinite(f));
      CHECK(f != 0);
      CHECK(std::isfinite(d));
      CHECK(d != 0);
    }
  }
  CHECK_THROWS_WITH(probe_sweeps("mmx", Precision::f32, 3, 1),
                    Catch::Matchers::Contains("\"mmx\" is not available"));
}
