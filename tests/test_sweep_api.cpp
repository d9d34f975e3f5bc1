// The C++ sweep API (include/boids/sweep.hpp): rows equal to the same worlds run by hand
// through the World API and the metrics, bit-identical for any thread count, the CSV the
// program writes, --resume's reader, and the documented errors.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "boids/metrics.hpp"
#include "boids/scenario.hpp"
#include "boids/sweep.hpp"
#include "test_support.hpp"

namespace {

const char* kScenario = R"([world]
dims = 2
size = 40.0
boundary = "wrap"
[boids]
count = 150
seed = 7
[rules]
radius = 4.0
separation_radius = 1.0
)";

std::string tmp(const std::string& name) { return boids::test::tmp_path("sweep_api", name); }
using boids::test::slurp;

boids::SweepDef small_def() {
  boids::SweepDef d;
  d.scenario_text = kScenario;
  d.vary = {"rules.alignment=0:1:3"};
  d.repeats = 2;
  d.steps = 30;
  d.measure_from = 20;
  d.measure_every = 3;  // samples at 20, 23, 26, 29 and 30
  d.threads = 1;
  return d;
}

// Bit-for-bit equality of two rows' numbers (NaN would fail, as it must).
bool same_bits(const boids::SweepRow& a, const boids::SweepRow& b) {
  return std::memcmp(a.mean.data(), b.mean.data(), sizeof a.mean) == 0 &&
         std::memcmp(a.stddev.data(), b.stddev.data(), sizeof a.stddev) == 0 && a.job == b.job &&
         a.values == b.values && a.repeat == b.repeat && a.seed == b.seed;
}

std::string message_of(const boids::SweepDef& d) {
  try {
    (void)boids::plan_sweep(d);
  } catch (const boids::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("run_sweep rows equal the same worlds stepped and measured by hand", "[sweep]") {
  const boids::SweepDef d = small_def();
  const std::vector<boids::SweepRow> rows = boids::run_sweep(d);
  REQUIRE(rows.size() == 6);
  const char* values[] = {"0", "0.5", "1"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const boids::SweepRow& r = rows[i];
    CHECK(r.job == i);
    REQUIRE(r.values.size() == 1);
    CHECK(r.values[0] == values[i / 2]);
    CHECK(r.repeat == int(i % 2));
    CHECK(r.seed == 7 + i % 2);
    // By hand: the world with the varied value and the seed, metrics at the sampled steps.
    boids::World w = boids::World::create(
        boids::parse_scenario(kScenario, "<scenario>",
                              {std::string("rules.alignment=") + values[i / 2],
                               "boids.seed=" + std::to_string(7 + i % 2), "engine.threads=1"}));
    std::vector<boids::FlockMetrics> samples;
    w.step(20);
    for (int t : {20, 23, 26, 29, 30}) {
      if (t > 20) w.step(t == 30 ? 1 : 3);
      REQUIRE(w.step_count() == std::uint64_t(t));
      samples.push_back(boids::compute_metrics(w));
    }
    for (std::size_t k = 0; k < boids::kSweepMetrics; ++k) {
      std::vector<double> xs;
      for (const boids::FlockMetrics& m : samples) {
        const double v[] = {m.polarization,    m.milling,          m.mean_speed,     m.mean_nnd,
                            m.mean_neighbours, double(m.clusters), m.largest_cluster};
        xs.push_back(v[k]);
      }
      double sum = 0;
      for (double x : xs) sum += x;
      const double mean = sum / 5;
      double var = 0;
      for (double x : xs) var += (x - mean) * (x - mean);
      CHECK(r.mean[k] == mean);
      CHECK(r.stddev[k] == std::sqrt(var / 5));
      CHECK(std::isfinite(r.stddev[k]));
    }
    CHECK(r.mean[4] > 0);  // mean_neighbours: the flock is not empty
  }
  // Different seeds and values give different flocks.
  CHECK(rows[0].mean[0] != rows[1].mean[0]);
  CHECK(rows[0].mean[0] != rows[2].mean[0]);
}

TEST_CASE("run_sweep is bit-identical for 1, 2 and 3 threads, both schedules",
          "[sweep][parallel]") {
  boids::SweepDef d = small_def();
  const std::vector<boids::SweepRow> one = boids::run_sweep(d);
  // 6 runs on 2 threads: one single-threaded world per worker.
  d.threads = 2;
  CHECK(boids::sweep_schedule(2, 6).world_threads == 1);
  CHECK(boids::sweep_schedule(2, 6).workers == 2);
  const std::vector<boids::SweepRow> two = boids::run_sweep(d);
  REQUIRE(two.size() == one.size());
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(same_bits(one[i], two[i]));
  // 2 runs on 3 threads: one three-threaded world at a time.
  d.repeats = 1;
  d.vary = {"rules.alignment=0,1"};
  d.threads = 1;
  const std::vector<boids::SweepRow> a = boids::run_sweep(d);
  d.threads = 3;
  CHECK(boids::sweep_schedule(3, 2).world_threads == 3);
  CHECK(boids::sweep_schedule(3, 2).workers == 1);
  const std::vector<boids::SweepRow> b = boids::run_sweep(d);
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(same_bits(a[i], b[i]));
  // And the same rows as the first sweep's repeat 0 of alignment 0 and 1.
  CHECK(std::memcmp(a[0].mean.data(), one[0].mean.data(), sizeof a[0].mean) == 0);
  CHECK(std::memcmp(a[1].mean.data(), one[4].mean.data(), sizeof a[1].mean) == 0);
}

TEST_CASE("run_sweep runs a subset of the plan and calls back once per run", "[sweep]") {
  boids::SweepDef d = small_def();
  const std::vector<boids::SweepRow> all = boids::run_sweep(d);
  std::vector<std::size_t> seen;
  std::size_t last_done = 0, last_total = 0, calls = 0;
  d.threads = 2;
  d.on_row = [&](const boids::SweepRow& r) { seen.push_back(r.job); };
  d.on_progress = [&](std::size_t done, std::size_t total) {
    ++calls;
    CHECK(done == last_done + 1);
    last_done = done;
    last_total = total;
  };
  const boids::SweepPlan plan = boids::plan_sweep(d);
  REQUIRE(plan.jobs.size() == 6);
  const std::vector<boids::SweepRow> part = boids::run_sweep(d, plan, {5, 1, 2});
  REQUIRE(part.size() == 3);
  CHECK(same_bits(part[0], all[5]));
  CHECK(same_bits(part[1], all[1]));
  CHECK(same_bits(part[2], all[2]));
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::size_t>{1, 2, 5});
  CHECK(calls == 3);
  CHECK(last_done == 3);
  CHECK(last_total == 3);
  CHECK_THROWS_AS(boids::run_sweep(d, plan, {6}), boids::Error);
  // A callback that throws stops the sweep and its error comes out.
  d.on_row = [](const boids::SweepRow&) { throw boids::Error("stop here"); };
  CHECK_THROWS_WITH(boids::run_sweep(d), "stop here");
}

TEST_CASE("the sweep CSV: exact header, shortest numbers, written and read back", "[sweep]") {
  const boids::SweepDef d = small_def();
  const boids::SweepPlan plan = boids::plan_sweep(d);
  const std::vector<boids::SweepRow> rows = boids::run_sweep(d);
  CHECK(boids::sweep_csv_header(plan) ==
        "rules.alignment,repeat,seed,polarization_mean,polarization_std,milling_mean,milling_std,"
        "mean_speed_mean,mean_speed_std,mean_nnd_mean,mean_nnd_std,mean_neighbours_mean,"
        "mean_neighbours_std,clusters_mean,clusters_std,largest_cluster_mean,largest_cluster_std");
  CHECK(boids::sweep_columns(plan).size() == 17);
  const std::string line = boids::sweep_csv_line(rows[3]);
  CHECK(line.rfind("0.5,1,8,", 0) == 0);
  CHECK(std::stod(line.substr(8, line.find(',', 8) - 8)) == rows[3].mean[0]);

  const std::string path = tmp("rows.csv");
  // Given in any order, written in the plan's.
  std::vector<boids::SweepRow> shuffled = {rows[4], rows[0], rows[2]};
  boids::write_sweep_csv(path, plan, shuffled);
  const std::string text = slurp(path);
  CHECK(text == boids::sweep_csv_header(plan) + "\n" + boids::sweep_csv_line(rows[0]) + "\n" +
                    boids::sweep_csv_line(rows[2]) + "\n" + boids::sweep_csv_line(rows[4]) + "\n");
  std::vector<boids::SweepRow> back = boids::read_sweep_csv(path, plan);
  REQUIRE(back.size() == 3);
  CHECK(same_bits(back[0], rows[0]));
  CHECK(same_bits(back[1], rows[2]));
  CHECK(same_bits(back[2], rows[4]));
  // A line cut short (no newline) and a line whose number does not parse are left out.
  std::string bad = boids::sweep_csv_line(rows[5]);
  bad.replace(bad.rfind(','), std::string::npos, ",x");
  std::ofstream(path, std::ios::binary) << boids::sweep_csv_header(plan) << "\n"
                                        << boids::sweep_csv_line(rows[1]) << "\n"
                                        << bad << "\n"
                                        << boids::sweep_csv_line(rows[3]).substr(0, 20);
  back = boids::read_sweep_csv(path, plan);
  REQUIRE(back.size() == 1);
  CHECK(same_bits(back[0], rows[1]));
  CHECK(boids::read_sweep_csv(tmp("missing.csv"), plan).empty());
  // Another sweep's file is refused by name.
  boids::SweepDef other = d;
  other.vary = {"rules.cohesion=0:1:3"};
  try {
    (void)boids::read_sweep_csv(path, boids::plan_sweep(other));
    FAIL("no error");
  } catch (const boids::Error& e) {
    CHECK(std::string(e.what()).rfind(path + ":1: --resume: the header does not match", 0) == 0);
  }
  CHECK_THROWS_WITH(boids::write_sweep_csv("/nonexistent-dir/x.csv", plan, rows),
                    Catch::StartsWith("/nonexistent-dir/x.csv: "));
  std::remove(path.c_str());
}

TEST_CASE("bad sweep defs give the documented one-line errors before any run", "[sweep]") {
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.nope=0:1:3"),
                    "--vary rules.nope=0:1:3: unknown scenario key rules.nope");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius"),
                    "--vary rules.radius: expected KEY=FROM:TO:COUNT or KEY=a,b,c");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius=1:x:3"),
                    "--vary rules.radius=1:x:3: expected FROM:TO:COUNT with numbers");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius=1:2:0"),
                    "--vary rules.radius=1:2:0: COUNT must be a whole number from 1 to 100000");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius=1:2:2.5"),
                    "--vary rules.radius=1:2:2.5: COUNT must be a whole number from 1 to 100000");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius=1,,2"),
                    "--vary rules.radius=1,,2: empty value in the list");
  CHECK_THROWS_WITH(boids::parse_sweep_vary("rules.radius="), "--vary rules.radius=: no values");
  const boids::SweepVary v = boids::parse_sweep_vary("rules.noise=0:360:5");
  CHECK(v.key == "rules.noise");
  CHECK(v.values == std::vector<std::string>{"0", "90", "180", "270", "360"});

  boids::SweepDef d = small_def();
  d.vary = {"rules.radius=1,abc"};
  CHECK_THAT(message_of(d), Catch::StartsWith("--vary rules.radius=abc"));
  d = small_def();
  d.vary.push_back("rules.alignment=1,2");
  CHECK(message_of(d) == "--vary rules.alignment=1,2: key varied twice");
  d = small_def();
  d.measure_from = 31;
  CHECK(message_of(d) == "--measure-from: must be <= --steps (30), got 31");
  d = small_def();
  d.repeats = 0;
  CHECK(message_of(d) == "--repeats: must be from 1 to 1000000, got 0");
  d = small_def();
  d.kind = 3;
  CHECK(message_of(d) == "--metrics-kind: must be from 0 to 2, got 3");
  d = small_def();
  d.vary.clear();
  CHECK(message_of(d) == "--vary: give at least one KEY=FROM:TO:COUNT or KEY=a,b,c");
  d = small_def();
  d.scenario_path = "x.toml";
  CHECK(message_of(d) == "--scenario: give a scenario file or scenario text, not both");
  d = small_def();
  d.sets = {"rules.radius=-1"};
  CHECK_THAT(message_of(d), Catch::StartsWith("--set rules.radius=-1"));
  // No callback ran: the checks come first.
  d = small_def();
  d.vary = {"rules.radius=1,-2"};
  bool ran = false;
  d.on_row = [&](const boids::SweepRow&) { ran = true; };
  CHECK_THROWS_AS(boids::run_sweep(d), boids::Error);
  CHECK_FALSE(ran);
}

#ifdef BOIDS_CLI_PATH
TEST_CASE("boids sweep --out writes exactly what run_sweep and write_sweep_csv write",
          "[sweep][cli]") {
  const std::string scen = tmp("s.toml"), out = tmp("cli.csv"), lib = tmp("lib.csv");
  std::ofstream(scen) << kScenario;
  const std::string cmd = std::string(BOIDS_CLI_PATH) + " sweep --scenario " + scen +
                          " --vary rules.alignment=0:1:3 --vary rules.cohesion=0.5,1"
                          " --repeats 2 --steps 30 --measure-from 20 --measure-every 3"
                          " --threads 2 --quiet --out " +
                          out + " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  boids::SweepDef d = small_def();
  d.scenario_text.clear();
  d.scenario_path = scen;
  d.vary.push_back("rules.cohesion=0.5,1");
  boids::write_sweep_csv(lib, boids::plan_sweep(d), boids::run_sweep(d));
  const std::string text = slurp(out);
  CHECK(text.size() > 200);
  CHECK(text == slurp(lib));
  // An unwritable --plot is refused before --out is touched (it used to leave a header).
  std::ofstream(out, std::ios::binary) << "keep me\n";
  const std::string bad = std::string(BOIDS_CLI_PATH) + " sweep --scenario " + scen +
                          " --vary rules.alignment=0,1 --steps 3 --quiet --out " + out +
                          " --plot /nonexistent-dir/x.svg >/dev/null 2>&1";
  const int rc = std::system(bad.c_str());
  CHECK(WIFEXITED(rc));
  CHECK(WEXITSTATUS(rc) == 2);
  CHECK(slurp(out) == "keep me\n");
  for (const std::string& f : {scen, out, lib}) std::remove(f.c_str());
}
#endif
