// The C API of state files and recordings (boids.h, "state files and recordings"): the files
// are the bytes the C++ writers (boids/io.hpp) make, reading back restores the state exactly,
// and every bad argument or file gets its status and one line, changing nothing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "boids/boids.h"
#include "boids/io.hpp"
#include "boids/world.hpp"
#include "test_support.hpp"

namespace {

std::string tmp(const std::string& name) { return boids::test::tmp_path("capi_io", name); }
using boids::test::slurp;

bool exists(const std::string& path) { return std::ifstream(path).good(); }

boids_world_def def_for(int32_t dims, int32_t precision, uint64_t seed) {
  boids_world_def d = boids_default_world_def();
  d.engine = BOIDS_ENGINE_GRID;
  d.dims = dims;
  d.precision = precision;
  d.count = 300;
  d.size = 40;
  d.seed = seed;
  d.threads = 2;
  return d;
}

struct Handle {
  boids_world* w = nullptr;
  explicit Handle(const boids_world_def& d) { REQUIRE(boids_world_create(&d, &w) == BOIDS_OK); }
  ~Handle() { boids_world_destroy(w); }
};

uint64_t hash_of(const boids_world* w) {
  uint64_t h = 0;
  REQUIRE(boids_world_state_hash(w, &h) == BOIDS_OK);
  return h;
}

// The C++ world with the same def and state as the C world `w` (through a snapshot).
boids::World twin_of(const boids_world* w) {
  const std::string snap = tmp("twin.snap");
  REQUIRE(boids_world_save(w, snap.c_str()) == BOIDS_OK);
  boids::World cpp = boids::World::load(snap);
  std::remove(snap.c_str());
  return cpp;
}

}  // namespace

TEST_CASE("C: state CSV is the C++ writer's bytes and reads back to the same state", "[c_api]") {
  for (int32_t dims : {2, 3}) {
    for (int32_t prec : {BOIDS_F32, BOIDS_F64}) {
      INFO("dims " << dims << ", precision " << prec);
      Handle a(def_for(dims, prec, 11));
      REQUIRE(boids_world_step(a.w, 4) == BOIDS_OK);
      const std::string c_path = tmp("c.csv"), cpp_path = tmp("cpp.csv");
      REQUIRE(boids_world_write_state_csv(a.w, c_path.c_str()) == BOIDS_OK);
      boids::write_state_csv(cpp_path, twin_of(a.w));
      const std::string text = slurp(c_path);
      CHECK(text.size() > 300 * 10);
      CHECK(text == slurp(cpp_path));
      // Another world of the same shape (other seed, so another state) takes the file's state.
      Handle b(def_for(dims, prec, 12));
      REQUIRE(hash_of(b.w) != hash_of(a.w));
      REQUIRE(boids_world_read_state_csv(b.w, c_path.c_str()) == BOIDS_OK);
      CHECK(hash_of(b.w) == hash_of(a.w));
      std::remove(c_path.c_str());
      std::remove(cpp_path.c_str());
    }
  }
}

TEST_CASE("C: a bad state CSV is refused with the file and line, the world unchanged", "[c_api]") {
  Handle w(def_for(3, BOIDS_F32, 3));
  const uint64_t before = hash_of(w.w);
  const std::string path = tmp("bad.csv");
  REQUIRE(boids_world_write_state_csv(w.w, path.c_str()) == BOIDS_OK);
  std::string text = slurp(path);
  text[text.find('\n') + 1] = 'x';  // the first data row's id is no number
  std::ofstream(path, std::ios::binary) << text;
  CHECK(boids_world_read_state_csv(w.w, path.c_str()) == BOIDS_ERROR_IO);
  const std::string msg = boids_last_error();
  CHECK(msg.find("boids_world_read_state_csv: " + path + ":2:") == 0);
  CHECK(msg.find('\n') == std::string::npos);
  CHECK(hash_of(w.w) == before);
  // A file of another count of boids.
  Handle small([] {
    boids_world_def d = def_for(3, BOIDS_F32, 3);
    d.count = 10;
    return d;
  }());
  REQUIRE(boids_world_write_state_csv(small.w, path.c_str()) == BOIDS_OK);
  CHECK(boids_world_read_state_csv(w.w, path.c_str()) == BOIDS_ERROR_IO);
  CHECK(hash_of(w.w) == before);
  CHECK(boids_world_read_state_csv(w.w, tmp("missing.csv").c_str()) == BOIDS_ERROR_IO);
  CHECK(boids_world_read_state_csv(nullptr, path.c_str()) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_world_read_state_csv(w.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_world_write_state_csv(nullptr, path.c_str()) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_world_write_state_csv(w.w, "/nonexistent-dir/x.csv") == BOIDS_ERROR_IO);
  std::remove(path.c_str());
}

TEST_CASE("C: a recording is the C++ Recorder's bytes, in both formats", "[c_api]") {
  for (const char* ext : {".rec", ".csv"}) {
    INFO("format " << ext);
    Handle a(def_for(3, BOIDS_F32, 21));
    boids::World cpp = twin_of(a.w);
    const std::string c_path = tmp(std::string("c") + ext);
    const std::string cpp_path = tmp(std::string("cpp") + ext);
    boids_recorder* rec = nullptr;
    REQUIRE(boids_recorder_open(a.w, c_path.c_str(), 2, &rec) == BOIDS_OK);
    boids::Recorder cpp_rec(cpp_path, cpp, 2);
    for (int k = 0; k < 3; ++k) {
      REQUIRE(boids_recorder_frame(rec, a.w) == BOIDS_OK);
      cpp_rec.frame(cpp);
      REQUIRE(boids_world_step(a.w, 2) == BOIDS_OK);
      cpp.step(2);
    }
    CHECK_FALSE(exists(c_path));  // nothing at the path before finish
    uint64_t frames = 0;
    REQUIRE(boids_recorder_finish(rec, &frames) == BOIDS_OK);
    cpp_rec.finish();
    CHECK(frames == 3);
    CHECK(slurp(c_path).size() > 3 * 300 * 20);
    CHECK(slurp(c_path) == slurp(cpp_path));
    // Finished: a frame is refused, finishing again does nothing.
    CHECK(boids_recorder_frame(rec, a.w) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_recorder_finish(rec, &frames) == BOIDS_OK);
    CHECK(frames == 3);
    boids_recorder_destroy(rec);
    std::remove(c_path.c_str());
    std::remove(cpp_path.c_str());
  }
}

TEST_CASE("C: recorder misuse gets a status and leaves no file", "[c_api]") {
  Handle w(def_for(3, BOIDS_F32, 1));
  Handle flat(def_for(2, BOIDS_F32, 1));
  const std::string path = tmp("misuse.rec");
  boids_recorder* rec = nullptr;
  CHECK(boids_recorder_open(nullptr, path.c_str(), 1, &rec) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_open(w.w, nullptr, 1, &rec) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_open(w.w, path.c_str(), 1, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_open(w.w, path.c_str(), 0, &rec) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_open(w.w, "/nonexistent-dir/x.rec", 1, &rec) == BOIDS_ERROR_IO);
  CHECK(rec == nullptr);
  REQUIRE(boids_recorder_open(w.w, path.c_str(), 1, &rec) == BOIDS_OK);
  REQUIRE(boids_recorder_frame(rec, w.w) == BOIDS_OK);
  CHECK(boids_recorder_frame(rec, flat.w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(boids_last_error()).find("another dims") != std::string::npos);
  CHECK(boids_recorder_frame(nullptr, w.w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_frame(rec, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(boids_recorder_finish(nullptr, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  boids_recorder_destroy(rec);  // unfinished: abandoned
  CHECK_FALSE(exists(path));
  boids_recorder_destroy(nullptr);
}
