// The C API of sweeps (boids_sweep_* in include/boids/boids.h) against the C++ run_sweep:
// the same table, cell by cell and bit by bit, the same CSV file, and errors as status codes
// with one-line messages.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "boids/boids.h"
#include "boids/sweep.hpp"

namespace {

const char* kScenario = R"([world]
dims = 2
size = 30.0
boundary = "wrap"
[boids]
count = 120
seed = 11
[rules]
radius = 4.0
separation_radius = 1.0
)";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

boids_sweep* make(int32_t threads) {
  boids_sweep* s = nullptr;
  REQUIRE(boids_sweep_create(kScenario, &s) == BOIDS_OK);
  REQUIRE(s != nullptr);
  REQUIRE(boids_sweep_vary(s, "rules.cohesion=0:2:3") == BOIDS_OK);
  REQUIRE(boids_sweep_vary(s, "rules.view_angle=180,360") == BOIDS_OK);
  REQUIRE(boids_sweep_set(s, "rules.alignment=0.5") == BOIDS_OK);
  REQUIRE(boids_sweep_set_repeats(s, 2) == BOIDS_OK);
  REQUIRE(boids_sweep_set_steps(s, 12) == BOIDS_OK);
  REQUIRE(boids_sweep_set_measure_from(s, 4) == BOIDS_OK);
  REQUIRE(boids_sweep_set_measure_every(s, 4) == BOIDS_OK);
  REQUIRE(boids_sweep_set_kind(s, 0) == BOIDS_OK);
  REQUIRE(boids_sweep_set_threads(s, threads) == BOIDS_OK);
  return s;
}

void count_progress(size_t done, size_t total, void* context) {
  auto* seen = static_cast<size_t*>(context);
  seen[0] += 1;
  seen[1] = done;
  seen[2] = total;
}

}  // namespace

TEST_CASE("C: a sweep gives the C++ run_sweep's table and CSV, for any thread count",
          "[sweep][c_api][parallel]") {
  boids_sweep* s = make(1);
  size_t seen[3] = {0, 0, 0};
  REQUIRE(boids_sweep_set_progress(s, count_progress, seen) == BOIDS_OK);
  size_t rows = 99, cols = 0;
  REQUIRE(boids_sweep_row_count(s, &rows) == BOIDS_OK);
  CHECK(rows == 0);  // nothing before a run
  REQUIRE(boids_sweep_run(s) == BOIDS_OK);
  REQUIRE(boids_sweep_row_count(s, &rows) == BOIDS_OK);
  REQUIRE(boids_sweep_column_count(s, &cols) == BOIDS_OK);
  REQUIRE(rows == 12);  // 3 x 2 combinations x 2 repeats
  REQUIRE(cols == 2 + 2 + 14);
  CHECK(seen[0] == 12);
  CHECK(seen[1] == 12);
  CHECK(seen[2] == 12);

  boids::SweepDef d;
  d.scenario_text = kScenario;
  d.vary = {"rules.cohesion=0:2:3", "rules.view_angle=180,360"};
  d.sets = {"rules.alignment=0.5"};
  d.repeats = 2;
  d.steps = 12;
  d.measure_from = 4;
  d.measure_every = 4;
  d.threads = 2;
  const boids::SweepPlan plan = boids::plan_sweep(d);
  const std::vector<boids::SweepRow> ref = boids::run_sweep(d);
  const std::vector<std::string> names = boids::sweep_columns(plan);
  REQUIRE(names.size() == cols);
  for (size_t c = 0; c < cols; ++c) {
    const char* name = nullptr;
    REQUIRE(boids_sweep_column_name(s, c, &name) == BOIDS_OK);
    CHECK(name == names[c]);
  }
  for (size_t r = 0; r < rows; ++r) {
    const boids::SweepRow& want = ref[r];
    double v = 0;
    REQUIRE(boids_sweep_value(s, r, 0, &v) == BOIDS_OK);
    CHECK(v == std::stod(want.values[0]));
    REQUIRE(boids_sweep_value(s, r, 1, &v) == BOIDS_OK);
    CHECK(v == std::stod(want.values[1]));
    REQUIRE(boids_sweep_value(s, r, 2, &v) == BOIDS_OK);
    CHECK(v == want.repeat);
    REQUIRE(boids_sweep_value(s, r, 3, &v) == BOIDS_OK);
    CHECK(v == double(11 + r % 2));
    for (size_t k = 0; k < boids::kSweepMetrics; ++k) {
      REQUIRE(boids_sweep_value(s, r, 4 + 2 * k, &v) == BOIDS_OK);
      CHECK(std::memcmp(&v, &want.mean[k], sizeof v) == 0);
      REQUIRE(boids_sweep_value(s, r, 5 + 2 * k, &v) == BOIDS_OK);
      CHECK(std::memcmp(&v, &want.stddev[k], sizeof v) == 0);
    }
    const char* text = nullptr;
    REQUIRE(boids_sweep_cell(s, r, 0, &text) == BOIDS_OK);
    CHECK(std::string(text) == want.values[0]);
    REQUIRE(boids_sweep_cell(s, r, 4, &text) == BOIDS_OK);
    CHECK(std::stod(text) == want.mean[0]);
  }
  // The C and C++ files are byte for byte the same.
  const std::string a = "/tmp/boids_c_sweep_" + std::to_string(::getpid()) + "_a.csv";
  const std::string b = "/tmp/boids_c_sweep_" + std::to_string(::getpid()) + "_b.csv";
  REQUIRE(boids_sweep_write_csv(s, a.c_str()) == BOIDS_OK);
  boids::write_sweep_csv(b, plan, ref);
  CHECK(slurp(a).size() > 100);
  CHECK(slurp(a) == slurp(b));

  // Two threads write the same file; eight (more than the runs: one eight-threaded world at
  // a time) give the same numbers.
  for (int32_t threads : {2, 8}) {
    boids_sweep* t = make(threads);
    if (threads == 8) REQUIRE(boids_sweep_set_repeats(t, 1) == BOIDS_OK);
    REQUIRE(boids_sweep_run(t) == BOIDS_OK);
    REQUIRE(boids_sweep_write_csv(t, b.c_str()) == BOIDS_OK);
    if (threads == 2) {
      CHECK(slurp(a) == slurp(b));
    } else {
      double x = 0, y = 0;
      REQUIRE(boids_sweep_value(t, 5, 4, &x) == BOIDS_OK);  // last combination, repeat 0
      REQUIRE(boids_sweep_value(s, 10, 4, &y) == BOIDS_OK);
      CHECK(std::memcmp(&x, &y, sizeof x) == 0);
    }
    boids_sweep_destroy(t);
  }
  std::remove(a.c_str());
  std::remove(b.c_str());
  // A change clears the results.
  REQUIRE(boids_sweep_set_steps(s, 8) == BOIDS_OK);
  REQUIRE(boids_sweep_row_count(s, &rows) == BOIDS_OK);
  CHECK(rows == 0);
  boids_sweep_destroy(s);
}

TEST_CASE("C: bad sweeps are status codes with one-line messages", "[sweep][c_api]") {
  boids_sweep* s = nullptr;
  REQUIRE(boids_sweep_create(nullptr, &s) == BOIDS_OK);  // the built-in default scenario
  CHECK(boids_sweep_vary(s, "rules.nope=0:1:3") == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) ==
        "boids_sweep_vary: --vary rules.nope=0:1:3: unknown scenario key rules.nope");
  CHECK(boids_sweep_vary(s, "rules.radius=1:x:3") == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) ==
        "boids_sweep_vary: --vary rules.radius=1:x:3: expected FROM:TO:COUNT with numbers");
  size_t cols = 0;
  REQUIRE(boids_sweep_column_count(s, &cols) == BOIDS_OK);
  CHECK(cols == 16);  // no varied key was added
  // Running without a varied key, or with bad settings, fails and leaves no results.
  CHECK(boids_sweep_run(s) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) ==
        "boids_sweep_run: --vary: give at least one KEY=FROM:TO:COUNT or KEY=a,b,c");
  REQUIRE(boids_sweep_vary(s, "rules.radius=5,-2") == BOIDS_OK);
  CHECK(boids_sweep_vary(s, "rules.radius=3,4") == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()).find("key varied twice") != std::string::npos);
  REQUIRE(boids_sweep_set_steps(s, 5) == BOIDS_OK);
  CHECK(boids_sweep_run(s) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()).rfind("boids_sweep_run: --vary rules.radius=-2", 0) == 0);
  REQUIRE(boids_sweep_set_measure_from(s, 9) == BOIDS_OK);
  CHECK(boids_sweep_run(s) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) ==
        "boids_sweep_run: --measure-from: must be <= --steps (5), got 9");
  REQUIRE(boids_sweep_set_measure_from(s, 0) == BOIDS_OK);
  REQUIRE(boids_sweep_set_repeats(s, 0) == BOIDS_OK);
  CHECK(boids_sweep_run(s) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) ==
        "boids_sweep_run: --repeats: must be from 1 to 1000000, got 0");
  size_t rows = 9;
  REQUIRE(boids_sweep_row_count(s, &rows) == BOIDS_OK);
  CHECK(rows == 0);
  CHECK(boids_sweep_write_csv(s, "/tmp/never.csv") == BOIDS_ERROR_INVALID_ARGUMENT);
  double v = 0;
  const char* text = nullptr;
  CHECK(boids_sweep_value(s, 0, 0, &v) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_sweep_cell(s, 0, 0, &text) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_sweep_column_name(s, 99, &text) == BOIDS_ERROR_INVALID_ARGUMENT);
  boids_sweep_destroy(s);

  // A value that is not a number: its cell is text, its value an error.
  REQUIRE(boids_sweep_create(kScenario, &s) == BOIDS_OK);
  REQUIRE(boids_sweep_vary(s, "world.boundary=\"wrap\",\"reflect\"") == BOIDS_OK);
  REQUIRE(boids_sweep_set_steps(s, 2) == BOIDS_OK);
  REQUIRE(boids_sweep_set_threads(s, 1) == BOIDS_OK);
  REQUIRE(boids_sweep_run(s) == BOIDS_OK);
  REQUIRE(boids_sweep_cell(s, 1, 0, &text) == BOIDS_OK);
  CHECK(std::string(text) == "\"reflect\"");
  CHECK(boids_sweep_value(s, 1, 0, &v) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_sweep_value(s, 1, 2, &v) == BOIDS_OK);  // seed
  CHECK(v == 11);
  CHECK(boids_sweep_write_csv(s, "/nonexistent-dir/x.csv") == BOIDS_ERROR_IO);
  CHECK(std::string(boids_last_error()).rfind("boids_sweep_write_csv: /nonexistent-dir/x.csv", 0) ==
        0);
  boids_sweep_destroy(s);

  CHECK(boids_sweep_create_from_file("/nonexistent-dir/s.toml", &s) == BOIDS_ERROR_IO);
  CHECK(std::string(boids_last_error()).find("/nonexistent-dir/s.toml") != std::string::npos);
  CHECK(boids_sweep_create(kScenario, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_sweep_vary(nullptr, "rules.radius=1,2") == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()) == "boids_sweep_vary: sweep is NULL");
  CHECK(boids_sweep_run(nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_sweep_row_count(nullptr, &rows) == BOIDS_ERROR_INVALID_ARGUMENT);
  boids_sweep_destroy(nullptr);
}
