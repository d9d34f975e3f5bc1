// The `boids` program end to end: bad input ends with one line on stderr naming the file,
// line and key, a non-zero exit status, and an existing --out file left untouched.
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#ifndef BOIDS_CLI_PATH
#error "tests need the boids program"
#endif

namespace {

struct Result {
  int status;
  std::string err;
};

std::string tmp(const std::string& name) {
  return "/tmp/boids_cli_" + std::to_string(::getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

Result run(const std::string& args) {
  const std::string err = tmp("stderr.txt");
  const std::string cmd = std::string(BOIDS_CLI_PATH) + " " + args + " >/dev/null 2>" + err;
  const int rc = std::system(cmd.c_str());
  Result r{WIFEXITED(rc) ? WEXITSTATUS(rc) : 128, slurp(err)};
  std::remove(err.c_str());
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const char* kScenario = R"([world]
dims = 2
size = 20.0
boundary = "wrap"
[boids]
count = 3
[rules]
radius = 3.0
separation_radius = 1.0
[motion]
dt = 0.1
)";

const char* kState = "id,x,y,vx,vy\n0,1,1,1,0\n1,2,1,0,1\n2,5,5,-1,0\n";

}  // namespace

TEST_CASE("boids run writes the final state", "[cli]") {
  const std::string s = tmp("ok.toml"), init = tmp("ok_init.csv"), out = tmp("ok_out.csv");
  put(s, kScenario);
  put(init, kState);
  Result r = run("run --engine naive --scenario " + s + " --init " + init + " --out " + out +
                 " --steps 1");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  const std::string o = slurp(out);
  CHECK(o.rfind("id,x,y,vx,vy\n0,", 0) == 0);
  CHECK(lines(o) == 4);
  for (const auto& f : {s, init, out}) std::remove(f.c_str());
}

TEST_CASE("bad input: one line, non-zero exit, --out untouched", "[cli]") {
  const std::string s = tmp("s.toml"), init = tmp("init.csv"), out = tmp("out.csv");
  put(s, kScenario);
  put(init, kState);
  const std::string precious = "precious contents\n";
  put(out, precious);
  const std::string base = "run --engine naive --scenario " + s + " --out " + out;

  auto expect_error = [&](const std::string& args, const std::string& needle) {
    Result r = run(args);
    INFO(args);
    CHECK(r.status != 0);
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains(needle));
    CHECK(slurp(out) == precious);
  };

  SECTION("malformed scenario") {
    put(s, "[world]\ndims = \n");
    expect_error(base, s + ":2:");
  }
  SECTION("unknown key with the nearest name") {
    put(s, std::string(kScenario) + "max_sped = 3\n");
    expect_error(base, s + ":12: motion.max_sped: unknown key (did you mean motion.max_speed?)");
  }
  SECTION("out-of-range value") {
    put(s, std::string(kScenario) + "min_speed = 9\nmax_speed = 2\n");
    expect_error(base, s + ":12: motion.min_speed: must be <= motion.max_speed (2), got 9");
  }
  SECTION("missing scenario file") {
    expect_error("run --scenario /nonexistent.toml --out " + out,
                 "/nonexistent.toml: cannot open scenario file");
  }
  SECTION("state file with a missing column") {
    put(init, "id,x,vx,vy\n0,1,1,0\n");
    expect_error(base + " --init " + init, init + ":1: column y: missing from the header");
  }
  SECTION("state file with a non-number") {
    put(init, "id,x,y,vx,vy\n0,1,1,1,0\n1,2,x1,0,1\n2,5,5,-1,0\n");
    expect_error(base + " --init " + init, init + ":3: column y: expected a number, got \"x1\"");
  }
  SECTION("state file with NaN") {
    put(init, "id,x,y,vx,vy\n0,1,1,1,0\n1,2,1,nan,1\n2,5,5,-1,0\n");
    expect_error(base + " --init " + init, init + ":3: column vx: NaN and Inf are not allowed");
  }
  SECTION("truncated state file") {
    put(init, "id,x,y,vx,vy\n0,1,1,1,0\n1,2,1,0,1\n2,5,5");
    expect_error(base + " --init " + init, init + ":4: expected 5 fields, got 3");
  }
  SECTION("boid count disagrees with the scenario") {
    put(init, "id,x,y,vx,vy\n0,1,1,1,0\n1,2,1,0,1\n");
    expect_error(base + " --init " + init, "has 2 boids but the scenario has 3 (boids.count)");
  }
  SECTION("bad --set") {
    expect_error(base + " --set rules.radius=-2", "--set rules.radius=-2: rules.radius:");
  }
  SECTION("state outside the world box") {
    put(init, "id,x,y,vx,vy\n0,1,1,1,0\n1,2,1,0,1\n2,25,5,-1,0\n");
    expect_error(base + " --init " + init, "position of id 2 lies outside the world box");
  }
  SECTION("unwritable --out directory") {
    Result r = run("run --engine naive --scenario " + s + " --out /nonexistent/dir/o.csv");
    CHECK(r.status != 0);
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains("/nonexistent/dir/o.csv: cannot write here"));
  }
  SECTION("unknown command-line option") {
    Result r = run("run --stpes 3");
    CHECK(r.status != 0);
    CHECK_THAT(r.err, Catch::Contains("--stpes"));
  }
  for (const auto& f : {s, init, out}) std::remove(f.c_str());
}
