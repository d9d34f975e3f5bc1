// `boids sweep` and `boids run --metrics` end to end: exact CSV layout, values equal to the
// library's metrics, byte-identical files for any thread count, --resume, bad input.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "boids/metrics.hpp"
#include "core/scenario.hpp"
#include "test_support.hpp"

#ifndef BOIDS_CLI_PATH
#error "tests need the boids program"
#endif

namespace {

std::string tmp(const std::string& name) { return boids::test::tmp_path("sweep", name); }
using boids::test::slurp;

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

struct Result {
  int status;
  std::string err;
};

Result run(const std::string& args) {
  const std::string err = tmp("stderr.txt");
  const std::string cmd = std::string(BOIDS_CLI_PATH) + " " + args + " >/dev/null 2>" + err;
  const int rc = std::system(cmd.c_str());
  Result r{WIFEXITED(rc) ? WEXITSTATUS(rc) : 128, slurp(err)};
  std::remove(err.c_str());
  return r;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string c;
  while (std::getline(ss, c, ',')) out.push_back(c);
  return out;
}

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

const std::string kSweepHeader =
    "rules.alignment,repeat,seed,polarization_mean,polarization_std,milling_mean,milling_std,"
    "mean_speed_mean,mean_speed_std,mean_nnd_mean,mean_nnd_std,mean_neighbours_mean,"
    "mean_neighbours_std,clusters_mean,clusters_std,largest_cluster_mean,largest_cluster_std";

}  // namespace

TEST_CASE("run --metrics writes the exact header and rows at 0, every N and the last step",
          "[metrics][cli]") {
  const std::string scen = tmp("m.toml"), a = tmp("m1.csv"), b = tmp("m2.csv");
  put(scen, kScenario);
  REQUIRE(run("run --scenario " + scen + " --steps 25 --metrics " + a +
              " --metrics-every 10 --threads 1 --quiet")
              .status == 0);
  REQUIRE(run("run --scenario " + scen + " --steps 25 --metrics " + b +
              " --metrics-every 10 --threads 3 --quiet")
              .status == 0);
  const std::string text = slurp(a);
  CHECK(text == slurp(b));  // byte-identical for any thread count
  const std::vector<std::string> rows = lines_of(text);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] ==
        "step,time,polarization,milling,mean_speed,mean_nnd,mean_neighbours,clusters,"
        "largest_cluster");
  const char* steps[] = {"0", "10", "20", "25"};
  const char* times[] = {"0", "1", "2", "2.5"};
  for (int r = 0; r < 4; ++r) {
    const std::vector<std::string> c = cells(rows[std::size_t(r) + 1]);
    REQUIRE(c.size() == 9);
    CHECK(c[0] == steps[r]);
    CHECK(c[1] == times[r]);
  }
  // The last row is the library's metrics of the same world after 25 steps, to the bit.
  boids::WorldDef def = boids::load_scenario(scen, {"engine.threads=1"});
  boids::World w = boids::World::create(def);
  w.step(25);
  const boids::FlockMetrics m = boids::compute_metrics(w);
  const std::vector<std::string> c = cells(rows[4]);
  CHECK(std::stod(c[2]) == m.polarization);
  CHECK(std::stod(c[3]) == m.milling);
  CHECK(std::stod(c[4]) == m.mean_speed);
  CHECK(std::stod(c[5]) == m.mean_nnd);
  CHECK(std::stod(c[6]) == m.mean_neighbours);
  CHECK(std::stoull(c[7]) == m.clusters);
  CHECK(std::stod(c[8]) == m.largest_cluster);
  CHECK(m.mean_neighbours > 0);

  // Bad input: one line, non-zero status, the existing file untouched.
  put(a, "keep me\n");
  Result r = run("run --scenario " + scen + " --steps 5 --metrics " + a + " --metrics-every 0");
  CHECK(r.status != 0);
  r = run("run --scenario " + scen + " --steps 5 --metrics " + a + " --metrics-kind 3");
  CHECK(r.status != 0);
  r = run("run --scenario " + scen + " --steps 5 --metrics /nonexistent-dir/x.csv");
  CHECK(r.status != 0);
  CHECK(r.err.find("boids: error:") == 0);
  CHECK(slurp(a) == "keep me\n");
  for (const std::string& f : {scen, a, b}) std::remove(f.c_str());
}

TEST_CASE("sweep writes one row per combination and repeat, identical for any thread count",
          "[sweep][cli]") {
  const std::string scen = tmp("s.toml"), a = tmp("s1.csv"), b = tmp("s2.csv"), svg = tmp("s.svg");
  put(scen, kScenario);
  const std::string args = "sweep --scenario " + scen +
                           " --vary rules.alignment=0:1:3 --repeats 2 --steps 30"
                           " --measure-from 20 --quiet --out ";
  REQUIRE(run(args + a + " --threads 1 --plot " + svg).status == 0);
  REQUIRE(run(args + b + " --threads 3").status == 0);
  const std::string text = slurp(a);
  CHECK(text == slurp(b));
  const std::vector<std::string> rows = lines_of(text);
  REQUIRE(rows.size() == 7);
  CHECK(rows[0] == kSweepHeader);
  const char* keys[] = {"0", "0", "0.5", "0.5", "1", "1"};
  for (int r = 0; r < 6; ++r) {
    const std::vector<std::string> c = cells(rows[std::size_t(r) + 1]);
    REQUIRE(c.size() == 17);
    CHECK(c[0] == keys[r]);
    CHECK(c[1] == std::to_string(r % 2));
    CHECK(c[2] == std::to_string(7 + r % 2));
  }
  // Row (0.5, repeat 1) against the library: mean and population std over steps 20..30.
  boids::WorldDef def =
      boids::load_scenario(scen, {"rules.alignment=0.5", "boids.seed=8", "engine.threads=1"});
  boids::World w = boids::World::create(def);
  w.step(20);
  std::vector<double> pol, nb;
  for (int t = 20; t <= 30; ++t) {
    const boids::FlockMetrics m = boids::compute_metrics(w);
    pol.push_back(m.polarization);
    nb.push_back(m.mean_neighbours);
    if (t < 30) w.step(1);
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
  };
  const std::vector<std::string> c = cells(rows[4]);
  CHECK(std::stod(c[3]) == mean(pol));
  CHECK(std::stod(c[11]) == mean(nb));
  double var = 0;
  for (double x : pol) var += (x - mean(pol)) * (x - mean(pol));
  CHECK(std::stod(c[4]) == Approx(std::sqrt(var / 11)).epsilon(1e-12));
  // Different seeds give different flocks.
  CHECK(cells(rows[1])[3] != cells(rows[2])[3]);
  const std::string plot = slurp(svg);
  CHECK(plot.find("<svg") == 0);
  CHECK(plot.find("polarization") != std::string::npos);
  CHECK(plot.find("<polyline") != std::string::npos);

  SECTION("--resume keeps finished rows and runs only the missing ones") {
    // Keep rows 1 and 4 (with a marker value no run produces) and a cut-off line.
    std::vector<std::string> marked = cells(rows[4]);
    marked[3] = "0.123";
    std::string m4;
    for (std::size_t i = 0; i < marked.size(); ++i) m4 += (i ? "," : "") + marked[i];
    put(b, rows[0] + "\n" + rows[1] + "\n" + m4 + "\n" + rows[5].substr(0, 10));
    REQUIRE(run(args + b + " --threads 2 --resume").status == 0);
    const std::vector<std::string> got = lines_of(slurp(b));
    REQUIRE(got.size() == 7);
    for (std::size_t r = 0; r < 7; ++r) CHECK(got[r] == (r == 4 ? m4 : rows[r]));
  }
  SECTION("bad input stops before any run and leaves --out untouched") {
    put(b, "keep me\n");
    Result r = run("sweep --scenario " + scen + " --vary rules.nope=0:1:3 --steps 5 --out " + b);
    CHECK(r.status != 0);
    CHECK(r.err.find("boids: error: --vary rules.nope=0:1:3: unknown scenario key") == 0);
    r = run("sweep --scenario " + scen + " --vary rules.radius=1:x:3 --steps 5 --out " + b);
    CHECK(r.status != 0);
    r = run("sweep --scenario " + scen + " --vary rules.radius=1,abc --steps 5 --out " + b);
    CHECK(r.status != 0);
    CHECK(r.err.find("--vary rules.radius=abc") != std::string::npos);
    r = run("sweep --scenario " + scen +
            " --vary rules.radius=1:2:2 --steps 5 --measure-from 9"
            " --out " +
            b);
    CHECK(r.status != 0);
    CHECK(slurp(b) == "keep me\n");
    std::size_t newlines = 0;
    for (char ch : r.err) newlines += ch == '\n';
    CHECK(newlines == 1);
  }
  for (const std::string& f : {scen, a, b, svg}) std::remove(f.c_str());
}
