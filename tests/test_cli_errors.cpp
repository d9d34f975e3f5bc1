// Command-line errors (issue 12): whatever finds the mistake (the option parser, the scenario
// reader, a file check), the program prints one line "boids: error: ..." and exits with 2,
// before the first step, leaving an existing output file untouched.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "boids/world.hpp"

#ifndef BOIDS_CLI_PATH
#error "tests need the boids program"
#endif

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct Result {
  int status;
  std::string err;
};

std::string tmp(const std::string& name) {
  return "/tmp/boids_clierr_" + std::to_string(::getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Result run(const std::string& args, const std::string& env = "") {
  const std::string err = tmp("stderr.txt");
  const std::string cmd = env + " " + BOIDS_CLI_PATH + " " + args + " >/dev/null 2>" + err;
  const int rc = std::system(cmd.c_str());
  Result r{WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc), slurp(err)};
  std::remove(err.c_str());
  return r;
}

// The one-line form every error must take.
void check_one_line(const Result& r, const std::string& contains) {
  INFO("stderr: " << r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, StartsWith("boids: error: ") && Contains(contains));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (char c : r.err.substr(0, r.err.size() - 1)) CHECK(static_cast<unsigned char>(c) >= 0x20);
}

const std::string kTiny =
    " --set world.dims=2 --set world.size=20.0 --set boids.count=5 --set rules.radius=3.0"
    " --set rules.separation_radius=1.0 --engine naive --threads 1 --quiet ";

}  // namespace

TEST_CASE("option parser errors are one line with status 2", "[cli][input]") {
  check_one_line(run("run --steps abc"), "--steps: expected an integer between 0 and 2147483647");
  check_one_line(run("run --steps -3"), "--steps: expected an integer");
  check_one_line(run("run --steps 99999999999"), "--steps: expected an integer");
  check_one_line(run("run --threads 5000"), "--threads: expected an integer between 0 and 1024");
  check_one_line(run("run --engine fast"),
                 "--engine: expected naive, grid, grid-rows or cluster, got \"fast\"");
  check_one_line(run("run --record x.bin --every 0"), "--every: expected an integer between 1");
  check_one_line(run("run --every 2"), "--every");  // needs --record
  check_one_line(run("run --bogus"), "--bogus");
  check_one_line(run(""), "subcommand");
  check_one_line(run("run --steps"), "--steps");
  check_one_line(run("run --load a.snap --scenario b.toml"), "excludes");
  CHECK_FALSE(Contains("not in range").match(run("run --steps abc").err));
  CHECK(run("--help").status == 0);
  CHECK(run("run --help").status == 0);
}

TEST_CASE("a directory is never taken for an input file", "[cli][input]") {
  const std::string dir = tmp("dir");
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  check_one_line(run("run --steps 1 --scenario " + dir), dir + ": is a directory");
  check_one_line(run("run --steps 1 --load " + dir), dir + ": is a directory");
  check_one_line(run("run --steps 1" + kTiny + "--init " + dir), dir + ": is a directory");
  ::rmdir(dir.c_str());
}

TEST_CASE("outputs that cannot be written fail before the first step", "[cli][input]") {
  const std::string dir = tmp("outdir");
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  // 10^8 steps would take minutes: the error must come before any of them.
  const std::string many = "run --steps 100000000" + kTiny;
  check_one_line(run(many + "--out " + dir), dir + ": cannot write here");
  check_one_line(run(many + "--save " + dir), dir + ": cannot write here");
  check_one_line(run(many + "--record " + dir), dir + ": cannot write here");
  check_one_line(run(many + "--out " + dir + "/missing/x.csv"), "missing/x.csv: cannot write here");
  ::rmdir(dir.c_str());
}

TEST_CASE("float overflow is refused and the output stays untouched", "[cli][input]") {
  const std::string out = tmp("keep.csv");
  std::ofstream(out) << "precious\n";
  check_one_line(run("run --steps 2" + kTiny + "--set world.size=1e39 --out " + out),
                 "world.size: must be at most 1e+12");
  CHECK(slurp(out) == "precious\n");
  std::remove(out.c_str());
}

TEST_CASE("deep TOML through the CLI is an error, not a crash", "[cli][input]") {
  const std::string s = tmp("deep.toml");
  {
    std::ofstream f(s);
    f << "a";
    for (int i = 0; i < 200000; ++i) f << ".a";
    f << " = 1\n";
  }
  check_one_line(run("run --steps 1 --scenario " + s), s + ":1: TOML nested more than 16");
  std::remove(s.c_str());
}

TEST_CASE("control bytes in arguments are escaped", "[cli][input]") {
  check_one_line(run("run --steps 1 --set 'wor\x01ld.si\x1bze=3'"), "wor\\x01ld.si\\x1bze");
}

TEST_CASE("memory limits are checked against the limit this process may use", "[cli][input]") {
  check_one_line(run("run --steps 1 --set boids.count=2000000", "BOIDS_MEMORY_LIMIT=1000000"),
                 "boids.count: 2000000 boids need about");
  // Checked before the --init file is even opened.
  check_one_line(run("run --steps 1 --set boids.count=2000000 --init /nonexistent/init.csv",
                     "BOIDS_MEMORY_LIMIT=1000000"),
                 "boids.count: 2000000 boids need about");
}

TEST_CASE("seeds up to 2^64-1 pass through the CLI and snapshots", "[cli][input]") {
  const std::string snap = tmp("seed.snap"), a = tmp("a.csv"), b = tmp("b.csv");
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  REQUIRE(run("run --steps 3" + kTiny + "--seed 18446744073709551615 --save " + snap).status == 0);
  CHECK(boids::World::load(snap).def().seed == max);
  REQUIRE(run("run --load " + snap + " --steps 0 --quiet --out " + a).status == 0);
  REQUIRE(
      run("run --steps 3" + kTiny + "--set boids.seed=18446744073709551615 --out " + b).status ==
      0);
  CHECK(slurp(a) == slurp(b));
  REQUIRE(run("run --steps 3" + kTiny + "--seed 18446744073709551614 --out " + b).status == 0);
  CHECK(slurp(a) != slurp(b));  // the seed is not clamped
  check_one_line(run("run --steps 1" + kTiny + "--seed 18446744073709551616"),
                 "--seed: expected an integer between 0 and 18446744073709551615");
  check_one_line(run("run --steps 1" + kTiny + "--seed -1"), "--seed: expected an integer");
  for (const auto& f : {snap, a, b}) std::remove(f.c_str());
}
