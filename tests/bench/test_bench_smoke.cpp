// End to end: boids-bench runs the quick preset at tiny sizes and writes valid files.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/bench.hpp"
#include "mini_parsers.hpp"

using namespace boids;
using namespace boids::bench;
using boids::test::csv_fields;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::path(BOIDS_BINARY_DIR) / "bench-test-out" / name;
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST_CASE("boids-bench --preset quick --tiny runs end to end", "[bench][smoke]") {
  const fs::path out = fresh_dir("quick-tiny");
  const std::string cmd = std::string("\"") + BOIDS_BENCH_PATH +
                          "\" --preset quick --tiny --progress never --out \"" + out.string() +
                          "\" > \"" + (out.string() + ".log") + "\" 2>&1";
  fs::create_directories(out.parent_path());
  const int rc = std::system(cmd.c_str());
  INFO(slurp(out.string() + ".log"));
  REQUIRE(rc == 0);

  // As many results as the quick sweep at the tiny counts expands to on this machine.
  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  SweepSpec s = preset("quick", cores).sweep;
  s.counts = preset("tiny", cores).sweep.counts;
  const std::size_t expected = expand(s).size();

  const auto j = boids::test::parse_json(slurp(out / "results.json"));
  REQUIRE(j["results"].arr.size() == expected);
  CHECK(j["run"]["preset"].str == "quick+tiny");
  CHECK_FALSE(j["environment"]["git_commit"].str.empty());
  CHECK_FALSE(j["environment"]["cpu_model"].str.empty());
  int naive_measured = 0, grid_measured = 0;
  using Type = boids::test::Json::Type;
  for (const auto& r : j["results"].arr) {
    const std::string status = r["status"].str;
    CHECK((status == "measured" || status == "unavailable"));
    if (status == "unavailable") CHECK_FALSE(r["note"].str.empty());
    if (status == "measured") {
      CHECK(r["ms_per_step"]["median"].num > 0);
      CHECK(r["neighbours_per_step"].num > 0);
      CHECK(r["candidates_per_step"].num >= r["neighbours_per_step"].num);
      CHECK(r["probe_pairs_per_s"].num > 0);
      CHECK(r["bytes_per_boid"].num > 0);
    }
    if (r["engine"].str == "naive" && status == "measured") {
      ++naive_measured;
      CHECK(r["kernel"].str == "naive");
      // Naive examines every ordered pair of distinct boids.
      const double n = r["count"].num;
      CHECK(r["candidates_per_step"].num == n * (n - 1));
    }
    // The neighbour kernel alone: timed for the grid engines only.
    if (r["engine"].str == "naive" || status != "measured") {
      CHECK(r["kernel_ms_per_pass"].type == Type::null);
      CHECK(r["kernel_candidates_per_s"].type == Type::null);
      CHECK(r["kernel_probe_fraction"].type == Type::null);
    } else {
      ++grid_measured;
      const double kms = r["kernel_ms_per_pass"]["median"].num;
      CHECK(kms > 0);
      CHECK(r["kernel_ms_per_pass"]["min"].num <= kms);
      CHECK(r["kernel_ms_per_pass"]["max"].num >= kms);
      CHECK(r["kernel_candidates_per_s"].num ==
            Approx(r["candidates_per_step"].num / (kms * 1e-3)));
      CHECK(r["kernel_probe_fraction"].num ==
            Approx(r["kernel_candidates_per_s"].num / r["probe_pairs_per_s"].num));
      CHECK(r["probe_fraction"].num ==
            Approx(r["candidates_per_s"].num / r["probe_pairs_per_s"].num));
    }
  }
  CHECK(naive_measured == 2);
  CHECK(grid_measured > 0);

  std::istringstream csv(slurp(out / "results.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string l; std::getline(csv, l);) rows.push_back(csv_fields(l));
  REQUIRE(rows.size() == expected + 1);
  const auto& head = rows[0];
  auto col = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    REQUIRE(it != head.end());
    return std::size_t(it - head.begin());
  };
  const std::size_t kms = col("kernel_ms_per_pass"), kcs = col("kernel_candidates_per_s"),
                    kpf = col("kernel_probe_fraction");
  CHECK(kpf == head.size() - 6);  // appended after every older column
  CHECK(col("peak_rss_bytes_per_boid") == head.size() - 3);
  CHECK(col("ratio_vs_reference") == head.size() - 1);  // issue 14's, appended last
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    REQUIRE(row.size() == head.size());
    const bool grid = row[col("engine")] != "naive" && row[col("status")] == "measured";
    if (!grid) {
      CHECK(row[kms].empty());
      CHECK(row[kcs].empty());
      CHECK(row[kpf].empty());
      continue;
    }
    // The CSV holds the JSON's figures (same row order).
    const auto& jr = j["results"][i - 1];
    CHECK(std::stod(row[kms]) == Approx(jr["kernel_ms_per_pass"]["median"].num));
    CHECK(std::stod(row[kcs]) == Approx(jr["kernel_candidates_per_s"].num));
    CHECK(std::stod(row[kpf]) ==
          Approx(std::stod(row[kcs]) / std::stod(row[col("probe_pairs_per_s")])));
    CHECK(std::stod(row[kpf]) > 0);
  }
  const std::string table = slurp(out / "table.txt");
  CHECK(table.find("%probe step") != std::string::npos);
  CHECK(table.find("%probe kern") != std::string::npos);
  CHECK(table.find("naive") != std::string::npos);
  const auto svg = boids::test::parse_xml(slurp(out / "time_per_step_3d_float.svg"));
  CHECK(svg->all("polyline").size() >= 2);  // at least naive and a reference slope
}

TEST_CASE("boids-bench skips naive past the budget and labels the extrapolation",
          "[bench][smoke]") {
  RunOptions o;
  o.preset = "test";
  o.sweep = {{Variant::naive}, {100, 5000}, {1}, {3}, {Precision::f32}};
  o.settings = preset("tiny", 1).settings;
  o.settings.budget_s = 0.05;  // 5000 naive boids need ~2500x the 100-boid step: skipped
  o.out_dir = fresh_dir("budget").string();
  o.quiet = true;
  const RunOutput r = run(o, stderr);
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].status == Status::measured);
  CHECK(r.results[1].status == Status::skipped);
  CHECK(r.results[1].extrapolated_ms == Approx(r.results[0].ms.median * 2500).epsilon(1e-9));
  const std::string table = slurp(fs::path(o.out_dir) / "table.txt");
  CHECK(table.find("* extrapolated") != std::string::npos);
  CHECK(table.find("budget") != std::string::npos);
}

TEST_CASE("boids-bench refuses bad options with one clear line", "[bench][smoke]") {
  const fs::path out = fresh_dir("bad");
  fs::create_directories(out);
  const std::string log = (out / "log").string();
  auto run_cmd = [&](const std::string& args) {
    const std::string cmd =
        std::string("\"") + BOIDS_BENCH_PATH + "\" " + args + " > \"" + log + "\" 2>&1";
    return std::system(cmd.c_str());
  };
  CHECK(run_cmd("--counts abc --out " + out.string()) != 0);
  CHECK(slurp(log).find("--counts: \"abc\"") != std::string::npos);
  CHECK(run_cmd("--preset fast") != 0);
  CHECK(slurp(log).find("unknown preset") != std::string::npos);
  CHECK(run_cmd("--engines naive,turbo") != 0);
  CHECK(slurp(log).find("turbo") != std::string::npos);
  CHECK(run_cmd("--tiny --scenario /nonexistent.toml") != 0);
  CHECK(slurp(log).find("/nonexistent.toml") != std::string::npos);
}
