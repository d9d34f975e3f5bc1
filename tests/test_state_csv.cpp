// State CSV files: exact round trips and a one-line error for every malformed input.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "boids/world.hpp"
#include "core/state_csv.hpp"

using namespace boids;

namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/boids_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string p = temp_path(name);
  std::ofstream(p) << text;
  return p;
}

std::string read_error(const std::string& text, int dims, std::size_t count) {
  const std::string p = write_temp("bad.csv", text);
  try {
    read_state_csv(p, dims, count);
  } catch (const Error& e) {
    std::remove(p.c_str());
    std::string m = e.what();
    return m.substr(p.size());  // drop the temp path, keep ":LINE: ..."
  }
  std::remove(p.c_str());
  return "";
}

}  // namespace

TEST_CASE("state CSV reads back exactly what was written, float and double", "[csv]") {
  for (Precision prec : {Precision::f32, Precision::f64}) {
    WorldDef d = default_world_def();
    d.count = 50;
    d.engine = EngineKind::naive;
    d.precision = prec;
    World w = World::create(d);
    w.step(2);
    const std::string p = temp_path("rt.csv");
    write_state_csv(p, w.state(), 3, prec);
    State back = read_state_csv(p, 3, 50);
    State orig = w.state();
    CHECK(back.id == orig.id);
    // A float world writes the shortest text that reads back to the same float.
    for (std::size_t i = 0; i < orig.x.size(); ++i) {
      if (prec == Precision::f32) {
        CHECK(float(back.x[i]) == float(orig.x[i]));
        CHECK(float(back.vz[i]) == float(orig.vz[i]));
      } else {
        CHECK(back.x[i] == orig.x[i]);
        CHECK(back.vz[i] == orig.vz[i]);
      }
    }
    World w2 = World::create(d);
    w2.set_state(back);
    // Same bytes: the hash covers positions, velocities, ids and kinds.
    World w3 = World::create(d);
    w3.set_state(orig);
    CHECK(w2.state_hash() == w3.state_hash());
    std::remove(p.c_str());
  }
}

TEST_CASE("2D state files have id,x,y,vx,vy", "[csv]") {
  const std::string p = write_temp("2d.csv", "id,x,y,vx,vy\n0,1.5,2.5,0.25,-1\n1,3,4,0,0\n");
  State s = read_state_csv(p, 2, 2);
  CHECK(s.x == std::vector<double>{1.5, 3});
  CHECK(s.vy == std::vector<double>{-1, 0});
  CHECK(s.z.empty());
  std::remove(p.c_str());
}

TEST_CASE("bad state files name the line and column", "[csv]") {
  const char* h = "id,x,y,z,vx,vy,vz\n";
  CHECK(read_error("id,x,y,vx,vy,vz\n0,1,2,3,4,5\n", 3, 1) ==
        ":1: column z: missing from the header");
  CHECK(read_error(std::string(h) + "0,1,2,3,4,5,abc\n", 3, 1) ==
        ":2: column vz: expected a number, got \"abc\"");
  CHECK(read_error(std::string(h) + "0,1,nan,3,4,5,6\n", 3, 1) ==
        ":2: column y: NaN and Inf are not allowed");
  CHECK(read_error(std::string(h) + "0,1,2,3,4,5,inf\n", 3, 1) ==
        ":2: column vz: NaN and Inf are not allowed");
  CHECK(read_error(std::string(h) + "0,1,2,3,4,5,6\n1,1,2,3", 3, 2) ==
        ":3: expected 7 fields, got 4 (truncated or malformed line)");
  CHECK(read_error(std::string(h) + "0,1,2,3,4,5,6\n", 3, 2) ==
        ":2: has 1 boids but the scenario has 2 (boids.count)");
  CHECK(read_error(std::string(h) + "1,1,2,3,4,5,6\n0,1,2,3,4,5,6\n", 3, 2) ==
        ":3: column id: rows must be in increasing id order");
  CHECK(read_error("id,x,y,w,vx,vy\n", 2, 0) ==
        ":1: column w: unknown column for a 2D state (expected id,x,y,vx,vy)");
  CHECK(read_error("", 3, 0) == ":1: empty file: expected a header line");
  CHECK(read_error(std::string(h) + "-1,1,2,3,4,5,6\n", 3, 1) ==
        ":2: column id: expected a non-negative integer, got \"-1\"");
}

TEST_CASE("a missing state file is an error naming it", "[csv]") {
  CHECK_THROWS_WITH(read_state_csv("/nonexistent/s.csv", 3, 1),
                    "/nonexistent/s.csv: cannot open state file");
}

TEST_CASE("set_state refuses states that do not fit the world", "[csv]") {
  WorldDef d = default_world_def();
  d.count = 2;
  d.dims = 2;
  d.engine = EngineKind::naive;
  World w = World::create(d);
  State s = w.state();
  s.x[1] = 1e9;
  CHECK_THROWS_WITH(w.set_state(s),
                    "set_state: position of id 1 lies outside the world box [0, size)");
  s = w.state();
  s.vy[0] = std::nan("");
  CHECK_THROWS_WITH(w.set_state(s), "set_state: non-finite value for id 0");
  s = w.state();
  s.id[1] = 7;
  CHECK_THROWS_WITH(w.set_state(s), "set_state: id at row 1 does not match the world's ids");
}
