// The C API under hostile input (issue 12): deep TOML on a small host stack, counts that do
// not fit, directories as snapshots, and set_def keeping what it was not asked to change.
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "boids/boids.h"

using Catch::Matchers::Contains;

namespace {

struct Call {
  std::string text;
  boids_status status = BOIDS_OK;
  std::string error;
};

void* create_from(void* arg) {
  auto* c = static_cast<Call*>(arg);
  boids_world* w = nullptr;
  c->status = boids_world_create_from_scenario(c->text.c_str(), &w);
  c->error = boids_last_error();
  boids_world_destroy(w);
  return nullptr;
}

// Runs boids_world_create_from_scenario on a thread with a 128 KiB stack, as a host's worker
// thread might have.
Call on_small_stack(const std::string& text) {
  Call c;
  c.text = text;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 128 * 1024);
  pthread_t t;
  REQUIRE(pthread_create(&t, &attr, &create_from, &c) == 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  return c;
}

std::string scenario_of(boids_world* w) {
  size_t len = 0;
  boids_world_get_scenario(w, nullptr, 0, &len);
  std::string s(len + 1, '\0');
  REQUIRE(boids_world_get_scenario(w, s.data(), s.size(), &len) == BOIDS_OK);
  s.resize(len);
  return s;
}

}  // namespace

TEST_CASE("C: deep TOML on a small stack is an error, not a crash", "[c_api][input]") {
  std::string deep = "a";
  for (int i = 0; i < 100000; ++i) deep += ".a";
  Call c = on_small_stack(deep + " = 1\n");
  CHECK(c.status == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(c.error, Contains("<scenario>:1: TOML nested more than 16 levels"));
  std::string arrays = "[world]\nsize = " + std::string(5000, '[') + std::string(5000, ']');
  c = on_small_stack(arrays);
  CHECK(c.status == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(c.error, Contains("nested more than"));
}

TEST_CASE("C: set_def keeps behaviours and vehicles it was not asked to change", "[c_api][input]") {
  const char* toml =
      "[world]\ndims = 2\nsize = 40.0\n[boids]\ncount = 10\n[rules]\nradius = 4.0\n"
      "separation_radius = 1.0\n[behaviour]\nseek = 2.5\nwander = 0.75\n[vehicle]\n"
      "model = \"ellipse\"\nmass = 3.0\n[goal]\nposition = [5.0, 6.0]\n"
      "[predators.behaviour]\nchase = 4.0\n[engine]\nthreads = 1\nengine_kind_is = 0\n";
  boids_world* w = nullptr;
  // (the last key is a typo on purpose: the reader must name it)
  REQUIRE(boids_world_create_from_scenario(toml, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(boids_last_error()), Contains("engine.engine_kind_is: unknown key"));
  std::string fixed = toml;
  fixed.resize(fixed.find("engine_kind_is"));
  REQUIRE(boids_world_create_from_scenario(fixed.c_str(), &w) == BOIDS_OK);
  const std::string before = scenario_of(w);
  boids_world_def d;
  REQUIRE(boids_world_get_def(w, &d) == BOIDS_OK);
  d.dt = 0.125;
  d.kinds[0].rules.cohesion = 0.5;
  REQUIRE(boids_world_set_def(w, &d) == BOIDS_OK);
  const std::string after = scenario_of(w);
  for (const char* kept : {"seek = 2.5", "wander = 0.75", "model = \"ellipse\"", "mass = 3.0",
                           "position = [5.0, 6.0]", "chase = 4.0"}) {
    CHECK_THAT(before, Contains(kept));
    CHECK_THAT(after, Contains(kept));
  }
  CHECK_THAT(after, Contains("dt = 0.125"));
  CHECK_THAT(after, Contains("cohesion = 0.5"));
  boids_world_destroy(w);
}

TEST_CASE("C: counts that do not fit are refused and change nothing", "[c_api][input]") {
  boids_world_def d = boids_default_world_def();
  d.dims = 2;
  d.count = 20;
  d.size = 30;
  d.threads = 1;
  boids_world* w = nullptr;
  REQUIRE(boids_world_create(&d, &w) == BOIDS_OK);
  uint32_t first = 77;
  CHECK(boids_world_add(w, 0xFFFFFFFFu, BOIDS_KIND_BOID, &first) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(boids_last_error()), Contains("more than the limit of 2147483647"));
  CHECK(boids_world_add(w, 0x7FFFFFF0u, BOIDS_KIND_BOID, &first) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(first == 77);
  size_t n = 0;
  REQUIRE(boids_world_count(w, &n) == BOIDS_OK);
  CHECK(n == 20);
  std::vector<double> one(2, 1.0);
  CHECK(boids_world_add_with_state(w, one.data(), one.data(), nullptr, size_t(1) << 40, &first) ==
        BOIDS_ERROR_INVALID_ARGUMENT);
  boids_world_destroy(w);
  d.count = 0xFFFFFFFFu;
  w = nullptr;
  CHECK(boids_world_create(&d, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(w == nullptr);
}

TEST_CASE("C: a directory is not a snapshot", "[c_api][input]") {
  const std::string dir = "/tmp/boids_capi_dir_" + std::to_string(::getpid());
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  boids_world* w = nullptr;
  CHECK(boids_world_load(dir.c_str(), nullptr, nullptr, &w) == BOIDS_ERROR_IO);
  CHECK_THAT(std::string(boids_last_error()), Contains(dir + ": is a directory"));
  ::rmdir(dir.c_str());
}
