// The C API (boids.h), driven the way a C program or a ctypes binding drives it: every
// function, its error codes for bad arguments, and agreement with the C++ API.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "boids/boids.h"
#include "boids/world.hpp"
#include "test_support.hpp"

namespace {

std::string tmp(const std::string& name) {
  return "/tmp/boids_capi_" + std::to_string(::getpid()) + "_" + name;
}

std::string last() { return boids_last_error(); }

boids_world_def small_def(int32_t engine = BOIDS_ENGINE_NAIVE, int32_t dims = 3) {
  boids_world_def d = boids_default_world_def();
  d.engine = engine;
  d.dims = dims;
  d.count = 64;
  d.size = 30;
  d.seed = 5;
  d.threads = 1;
  return d;
}

// A world owned for the duration of a test.
struct Handle {
  boids_world* w = nullptr;
  explicit Handle(const boids_world_def& d) { REQUIRE(boids_world_create(&d, &w) == BOIDS_OK); }
  ~Handle() { boids_world_destroy(w); }
};

// Every engine, by its C value: every test below that runs one runs it on each.
const int32_t kEngines[] = {BOIDS_ENGINE_NAIVE, BOIDS_ENGINE_GRID, BOIDS_ENGINE_CLUSTER};

// Requires that the C world `w` really runs `engine` with the kernel it should. The C API has
// no kernel accessor, so: its snapshot (which holds the whole def) must load in C++ as a world
// of that engine with the expected kernel (test::require_engine), and a C world loaded from it
// must step bit for bit like that C++ world. For the grid and cluster engines, the naive engine
// from the same state must differ (it sums in another order), so a grid that silently stepped
// naively would fail. Call it on a freshly created world (ids 0..count-1).
void require_engine_c(boids_world* w, int32_t engine) {
  const std::string path = tmp("engine_check.snap");
  REQUIRE(boids_world_save(w, path.c_str()) == BOIDS_OK);
  boids::World cpp = boids::World::load(path);
  boids_world* twin = nullptr;
  REQUIRE(boids_world_load(path.c_str(), nullptr, nullptr, &twin) == BOIDS_OK);
  std::remove(path.c_str());
  boids::test::require_engine(cpp, boids::EngineKind(engine));
  const boids::State start = cpp.state();
  REQUIRE(boids_world_step(twin, 3) == BOIDS_OK);
  cpp.step(3);
  uint64_t h = 0;
  REQUIRE(boids_world_state_hash(twin, &h) == BOIDS_OK);
  boids_world_destroy(twin);
  CHECK(h == cpp.state_hash());
  // (With a few dozen boids the sums have enough terms for the orders to round differently.)
  if (engine != BOIDS_ENGINE_NAIVE && start.id.size() >= 32) {
    boids::WorldDef nd = cpp.def();
    nd.engine = boids::EngineKind::naive;
    boids::World naive = boids::test::create_checked(nd);
    naive.set_state(start);
    naive.step(3);
    CHECK(naive.state_hash() != h);
  }
}

// A host "job system": runs the range in reverse-ordered chunks of `grain`, on this thread and
// one helper thread, and counts the calls.
struct HostPool {
  std::atomic<int> calls{0};
  std::atomic<std::size_t> indices{0};
};

void host_parallel_for(boids_task_fn task, void* task_context, size_t count, size_t grain,
                       void* host_context) {
  auto* pool = static_cast<HostPool*>(host_context);
  pool->calls.fetch_add(1);
  if (grain == 0) grain = 1;
  std::vector<std::pair<size_t, size_t>> chunks;
  for (size_t b = 0; b < count; b += grain) chunks.emplace_back(b, std::min(count, b + grain));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < chunks.size();) {
      const auto [b, e] = chunks[chunks.size() - 1 - i];
      task(b, e, task_context);
      pool->indices.fetch_add(e - b);
    }
  };
  std::thread helper(work);
  work();
  helper.join();
}

}  // namespace

TEST_CASE("C: the default def mirrors the C++ defaults", "[c_api]") {
  const boids_world_def c = boids_default_world_def();
  const boids::WorldDef d = boids::default_world_def();
  CHECK(c.dims == d.dims);
  CHECK(c.size == d.size);
  CHECK(c.boundary == int32_t(d.boundary));
  CHECK(c.count == d.count);
  CHECK(c.predators == d.predators);
  CHECK(c.leaders == d.leaders);
  CHECK(c.seed == d.seed);
  CHECK(c.dt == d.dt);
  for (int k = 0; k < BOIDS_KIND_COUNT; ++k) {
    CHECK(c.kinds[k].rules.radius == d.kinds[k].rules.radius);
    CHECK(c.kinds[k].rules.separation_radius == d.kinds[k].rules.separation_radius);
    CHECK(c.kinds[k].rules.view_angle == d.kinds[k].rules.view_angle);
    CHECK(c.kinds[k].rules.cohesion == d.kinds[k].rules.cohesion);
    CHECK(c.kinds[k].motion.max_speed == d.kinds[k].motion.max_speed);
    CHECK(c.kinds[k].motion.min_speed == d.kinds[k].motion.min_speed);
    CHECK(c.kinds[k].motion.max_force == d.kinds[k].motion.max_force);
  }
  CHECK(c.engine == int32_t(d.engine));
  CHECK(c.precision == int32_t(d.precision));
  CHECK(c.threads == d.threads);
  CHECK(c.simd == 1);
  CHECK(c.cells_per_radius == d.cells_per_radius);
  CHECK(c.host_parallel_for == nullptr);
  CHECK(c.internal_cookie == d.internal_cookie);
  CHECK(std::string(boids_version()) == BOIDS_VERSION_STRING);
  CHECK(std::string(boids_status_name(BOIDS_ERROR_IO)) == "i/o error");
  CHECK(std::string(boids_status_name(BOIDS_OK)) == "ok");
}

TEST_CASE("C: create and destroy, with errors for bad defs", "[c_api]") {
  boids_world* w = nullptr;
  boids_world_def d = small_def();
  CHECK(boids_world_create(nullptr, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last() == "boids_world_create: def is NULL");
  CHECK(boids_world_create(&d, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last() == "boids_world_create: out_world is NULL");
  boids_world_def zero;
  std::memset(&zero, 0, sizeof(zero));
  CHECK(boids_world_create(&zero, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last().find("default_world_def") != std::string::npos);
  boids_world_def bad = d;
  bad.kinds[0].rules.separation_radius = 50;  // > radius
  CHECK(boids_world_create(&bad, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last().find("rules.separation_radius") != std::string::npos);
  bad = d;
  bad.engine = 7;
  CHECK(boids_world_create(&bad, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last().find("engine.kind") != std::string::npos);
  bad = d;
  bad.precision = -1;
  CHECK(boids_world_create(&bad, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  bad = d;
  bad.boundary = 3;
  CHECK(boids_world_create(&bad, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  bad = d;
  bad.dt = std::numeric_limits<double>::quiet_NaN();
  CHECK(boids_world_create(&bad, &w) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last().find("motion.dt") != std::string::npos);
  CHECK(w == nullptr);  // untouched on failure

  REQUIRE(boids_world_create(&d, &w) == BOIDS_OK);
  REQUIRE(w != nullptr);
  boids_world_destroy(w);
  boids_world_destroy(nullptr);  // allowed
}

TEST_CASE("C: worlds from scenario TOML", "[c_api]") {
  boids_world* w = nullptr;
  REQUIRE(boids_world_create_from_scenario(
              "[world]\ndims = 2\nsize = 20\n[boids]\ncount = 9\n[engine]\nkind = \"naive\"\n",
              &w) == BOIDS_OK);
  size_t n = 0;
  int32_t dims = 0;
  CHECK(boids_world_count(w, &n) == BOIDS_OK);
  CHECK(boids_world_dims(w, &dims) == BOIDS_OK);
  CHECK(n == 9);
  CHECK(dims == 2);
  boids_world_destroy(w);
  boids_world* w2 = nullptr;
  CHECK(boids_world_create_from_scenario("[world]\ndimz = 2\n", &w2) ==
        BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(last().find("<scenario>:2") != std::string::npos);
  CHECK(last().find("world.dimz") != std::string::npos);
  CHECK(boids_world_create_from_scenario(nullptr, &w2) == BOIDS_ERROR_INVALID_ARGUMENT);
  CHECK(w2 == nullptr);
}

TEST_CASE("C: queries, and NULL handles or outputs are errors", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    Handle h(small_def(engine));
    require_engine_c(h.w, engine);
    size_t n = 0;
    uint64_t steps = 1, hash = 0;
    int32_t dims = 0, prec = -1;
    uint32_t next = 0;
    CHECK(boids_world_step(h.w, 3) == BOIDS_OK);
    CHECK(boids_world_count(h.w, &n) == BOIDS_OK);
    CHECK(boids_world_step_count(h.w, &steps) == BOIDS_OK);
    CHECK(boids_world_dims(h.w, &dims) == BOIDS_OK);
    CHECK(boids_world_precision(h.w, &prec) == BOIDS_OK);
    CHECK(boids_world_next_id(h.w, &next) == BOIDS_OK);
    CHECK(boids_world_state_hash(h.w, &hash) == BOIDS_OK);
    CHECK(n == 64);
    CHECK(steps == 3);
    CHECK(dims == 3);
    CHECK(prec == BOIDS_F32);
    CHECK(next == 64);
    CHECK(hash != 0);

    CHECK(boids_world_step(nullptr, 1) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last() == "boids_world_step: world is NULL");
    CHECK(boids_world_step(h.w, -2) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_count(nullptr, &n) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_count(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_step_count(nullptr, &steps) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_step_count(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_dims(nullptr, &dims) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_precision(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_next_id(nullptr, &next) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_state_hash(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    size_t idx = 99;
    CHECK(boids_world_index_of(h.w, 10, &idx) == BOIDS_OK);
    CHECK(idx == 10);
    CHECK(boids_world_index_of(h.w, 64, &idx) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last() == "boids_world_index_of: no boid has id 64");
    CHECK(idx == 10);
    CHECK(boids_world_step_count(h.w, &steps) == BOIDS_OK);
    CHECK(steps == 3);  // failed calls changed nothing
  }
}

TEST_CASE("C: copies and zero-copy views agree, in id order", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    for (int32_t prec : {BOIDS_F32, BOIDS_F64}) {
      boids_world_def d = small_def(engine);
      d.precision = prec;
      Handle h(d);
      require_engine_c(h.w, engine);
      REQUIRE(boids_world_step(h.w, 2) == BOIDS_OK);
      std::vector<double> pos(64 * 3), vel(64 * 3);
      std::vector<uint8_t> kinds(64, 9);
      std::vector<uint32_t> ids(64);
      REQUIRE(boids_world_get_positions(h.w, pos.data(), pos.size()) == BOIDS_OK);
      REQUIRE(boids_world_get_velocities(h.w, vel.data(), vel.size()) == BOIDS_OK);
      REQUIRE(boids_world_get_kinds(h.w, kinds.data(), kinds.size()) == BOIDS_OK);
      REQUIRE(boids_world_get_ids(h.w, ids.data(), ids.size()) == BOIDS_OK);
      boids_view pv{}, vv{};
      REQUIRE(boids_world_view_positions(h.w, &pv) == BOIDS_OK);
      REQUIRE(boids_world_view_velocities(h.w, &vv) == BOIDS_OK);
      const uint8_t* kv = nullptr;
      const uint32_t* iv = nullptr;
      size_t kn = 0, in = 0;
      REQUIRE(boids_world_view_kinds(h.w, &kv, &kn) == BOIDS_OK);
      REQUIRE(boids_world_view_ids(h.w, &iv, &in) == BOIDS_OK);
      CHECK(pv.count == 64);
      CHECK(pv.precision == prec);
      CHECK(kn == 64);
      CHECK(in == 64);
      auto at = [prec](const void* p, size_t i) {
        return prec == BOIDS_F32 ? double(static_cast<const float*>(p)[i])
                                 : static_cast<const double*>(p)[i];
      };
      for (size_t i = 0; i < 64; ++i) {
        CHECK(ids[i] == i);
        CHECK(iv[i] == i);
        CHECK(kinds[i] == 0);
        CHECK(kv[i] == 0);
        CHECK(pos[3 * i] == at(pv.x, i));
        CHECK(pos[3 * i + 1] == at(pv.y, i));
        CHECK(pos[3 * i + 2] == at(pv.z, i));
        CHECK(vel[3 * i + 2] == at(vv.z, i));
      }
      // Too small buffers and NULLs are errors and write nothing.
      std::vector<double> small(64 * 3 - 1, -1.0);
      CHECK(boids_world_get_positions(h.w, small.data(), small.size()) ==
            BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(last().find("need count*dims = 192") != std::string::npos);
      CHECK(small[0] == -1.0);
      CHECK(boids_world_get_velocities(h.w, nullptr, 192) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_get_kinds(h.w, kinds.data(), 63) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_get_ids(h.w, ids.data(), 0) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_get_ids(nullptr, ids.data(), 64) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_view_positions(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_view_velocities(nullptr, &vv) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_view_kinds(h.w, nullptr, &kn) == BOIDS_ERROR_INVALID_ARGUMENT);
      CHECK(boids_world_view_ids(h.w, &iv, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    }
    // 2D: two values per boid, no z view.
    Handle h2(small_def(engine, 2));
    require_engine_c(h2.w, engine);
    std::vector<double> pos(128);
    CHECK(boids_world_get_positions(h2.w, pos.data(), pos.size()) == BOIDS_OK);
    boids_view pv{};
    CHECK(boids_world_view_positions(h2.w, &pv) == BOIDS_OK);
    CHECK(pv.z == nullptr);
    CHECK(pos[2] == double(static_cast<const float*>(pv.x)[1]));
  }
}

TEST_CASE("C: set_state writes interleaved rows and rejects bad ones", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    boids_world_def d = small_def(engine, 2);
    d.count = 2;
    d.precision = BOIDS_F64;
    Handle h(d);
    require_engine_c(h.w, engine);
    const double pos[] = {1, 2, 3, 4}, vel[] = {0.5, 0, 0, -0.5};
    const uint8_t kinds[] = {0, 2};
    REQUIRE(boids_world_set_state(h.w, pos, vel, kinds, 2) == BOIDS_OK);
    double out[4];
    REQUIRE(boids_world_get_positions(h.w, out, 4) == BOIDS_OK);
    CHECK(out[0] == 1);
    CHECK(out[1] == 2);
    CHECK(out[2] == 3);
    CHECK(out[3] == 4);
    uint8_t k[2];
    REQUIRE(boids_world_get_kinds(h.w, k, 2) == BOIDS_OK);
    CHECK(k[1] == 2);
    uint64_t hash = 0, hash2 = 0;
    REQUIRE(boids_world_state_hash(h.w, &hash) == BOIDS_OK);

    const double nan_pos[] = {1, std::numeric_limits<double>::quiet_NaN(), 3, 4};
    CHECK(boids_world_set_state(h.w, nan_pos, vel, nullptr, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last().find("non-finite value for id 0") != std::string::npos);
    const double out_pos[] = {1, 2, 3, 30};  // size 30: outside the half-open box
    CHECK(boids_world_set_state(h.w, out_pos, vel, nullptr, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_set_state(h.w, pos, vel, nullptr, 3) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last().find("count is 3, the world has 2 boids") != std::string::npos);
    CHECK(boids_world_set_state(h.w, nullptr, vel, nullptr, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_set_state(nullptr, pos, vel, nullptr, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    const uint8_t bad_kinds[] = {0, 3};
    CHECK(boids_world_set_state(h.w, pos, vel, bad_kinds, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    REQUIRE(boids_world_state_hash(h.w, &hash2) == BOIDS_OK);
    CHECK(hash2 == hash);
  }
}

TEST_CASE("C: add and remove keep ids stable", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    Handle h(small_def(engine, 2));
    require_engine_c(h.w, engine);
    uint32_t first = 0;
    REQUIRE(boids_world_add(h.w, 3, BOIDS_KIND_PREDATOR, &first) == BOIDS_OK);
    CHECK(first == 64);
    const uint32_t gone[] = {0, 65};
    REQUIRE(boids_world_remove(h.w, gone, 2) == BOIDS_OK);
    const double pos[] = {5, 6}, vel[] = {1, 1};
    REQUIRE(boids_world_add_with_state(h.w, pos, vel, nullptr, 1, &first) == BOIDS_OK);
    CHECK(first == 67);
    // 64 created + 3 - 2 + 1 = 66 boids: ids 1..64, 66, 67 (65 and 0 are gone, never reused).
    size_t n = 0;
    REQUIRE(boids_world_count(h.w, &n) == BOIDS_OK);
    REQUIRE(n == 66);
    std::vector<uint32_t> ids(n);
    std::vector<uint8_t> kinds(n);
    REQUIRE(boids_world_get_ids(h.w, ids.data(), n) == BOIDS_OK);
    REQUIRE(boids_world_get_kinds(h.w, kinds.data(), n) == BOIDS_OK);
    CHECK(ids.front() == 1);
    CHECK(ids[62] == 63);
    CHECK(ids[63] == 64);
    CHECK(ids[64] == 66);
    CHECK(ids[65] == 67);
    CHECK(kinds[62] == BOIDS_KIND_BOID);
    CHECK(kinds[63] == BOIDS_KIND_PREDATOR);
    CHECK(kinds[64] == BOIDS_KIND_PREDATOR);
    CHECK(kinds[65] == BOIDS_KIND_BOID);
    double p67[2];
    size_t idx = 0;
    REQUIRE(boids_world_index_of(h.w, 67, &idx) == BOIDS_OK);
    CHECK(idx == 65);
    std::vector<double> all(2 * n);
    REQUIRE(boids_world_get_positions(h.w, all.data(), all.size()) == BOIDS_OK);
    p67[0] = all[2 * idx];
    p67[1] = all[2 * idx + 1];
    CHECK(p67[0] == 5);
    CHECK(p67[1] == 6);

    // Errors: unknown ids, duplicates, NULLs, bad kind; nothing changes.
    const uint32_t unknown[] = {0};
    CHECK(boids_world_remove(h.w, unknown, 1) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last().find("no boid has id 0") != std::string::npos);
    const uint32_t dup[] = {5, 5};
    CHECK(boids_world_remove(h.w, dup, 2) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_remove(h.w, nullptr, 1) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_remove(h.w, nullptr, 0) == BOIDS_OK);
    CHECK(boids_world_add(h.w, 1, 3, &first) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_add(nullptr, 1, 0, &first) == BOIDS_ERROR_INVALID_ARGUMENT);
    const double nan_vel[] = {std::numeric_limits<double>::infinity(), 0};
    CHECK(boids_world_add_with_state(h.w, pos, nan_vel, nullptr, 1, &first) ==
          BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_add_with_state(h.w, pos, nullptr, nullptr, 1, &first) ==
          BOIDS_ERROR_INVALID_ARGUMENT);
    REQUIRE(boids_world_count(h.w, &n) == BOIDS_OK);
    CHECK(n == 66);
    uint32_t next = 0;
    REQUIRE(boids_world_next_id(h.w, &next) == BOIDS_OK);
    CHECK(next == 68);
  }
}

TEST_CASE("C: the def and the scenario change between steps", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    Handle h(small_def(engine));
    require_engine_c(h.w, engine);
    boids_world_def d{};
    REQUIRE(boids_world_get_def(h.w, &d) == BOIDS_OK);
    CHECK(d.count == 64);
    CHECK(d.predators == 0);
    CHECK(d.engine == engine);
    d.kinds[0].rules.cohesion = 0.75;
    d.dt = 0.2;
    REQUIRE(boids_world_set_def(h.w, &d) == BOIDS_OK);
    boids_world_def now{};
    REQUIRE(boids_world_get_def(h.w, &now) == BOIDS_OK);
    CHECK(now.kinds[0].rules.cohesion == 0.75);
    CHECK(now.dt == 0.2);
    boids_world_def bad = now;
    bad.size = 31;
    CHECK(boids_world_set_def(h.w, &bad) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(last() ==
          "boids_world_set_def: world.size: cannot change between steps (create a new world)");
    bad = now;
    bad.kinds[0].rules.radius = -2;
    CHECK(boids_world_set_def(h.w, &bad) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_set_def(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_set_def(nullptr, &now) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_get_def(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);

    // The scenario text round-trips and can carry changes.
    size_t len = 0;
    CHECK(boids_world_get_scenario(h.w, nullptr, 0, &len) == BOIDS_ERROR_INVALID_ARGUMENT);
    REQUIRE(len > 0);
    std::string text(len + 1, '\0');
    REQUIRE(boids_world_get_scenario(h.w, text.data(), text.size(), &len) == BOIDS_OK);
    text.resize(len);
    CHECK(text.find("cohesion = 0.75") != std::string::npos);
    const std::string changed = text.replace(text.find("cohesion = 0.75"), 15, "cohesion = 0.5");
    REQUIRE(boids_world_set_scenario(h.w, changed.c_str()) == BOIDS_OK);
    REQUIRE(boids_world_get_def(h.w, &now) == BOIDS_OK);
    CHECK(now.kinds[0].rules.cohesion == 0.5);
    CHECK(boids_world_set_scenario(h.w, "[world]\nsize = 5\n") == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_set_scenario(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
  }
}

TEST_CASE("C: save and load continue bit-identically, and bad files are I/O errors", "[c_api]") {
  for (int32_t engine : kEngines) {
    INFO("engine " << engine);
    const std::string path = tmp("w.snap");
    Handle h(small_def(engine));
    require_engine_c(h.w, engine);
    REQUIRE(boids_world_step(h.w, 4) == BOIDS_OK);
    REQUIRE(boids_world_save(h.w, path.c_str()) == BOIDS_OK);
    boids_world* l = nullptr;
    REQUIRE(boids_world_load(path.c_str(), nullptr, nullptr, &l) == BOIDS_OK);
    REQUIRE(boids_world_step(h.w, 3) == BOIDS_OK);
    REQUIRE(boids_world_step(l, 3) == BOIDS_OK);
    uint64_t a = 0, b = 0, steps = 0;
    REQUIRE(boids_world_state_hash(h.w, &a) == BOIDS_OK);
    REQUIRE(boids_world_state_hash(l, &b) == BOIDS_OK);
    REQUIRE(boids_world_step_count(l, &steps) == BOIDS_OK);
    CHECK(a == b);
    CHECK(steps == 7);
    boids_world_destroy(l);

    boids_world* none = nullptr;
    CHECK(boids_world_load(tmp("missing.snap").c_str(), nullptr, nullptr, &none) == BOIDS_ERROR_IO);
    CHECK(last().find("cannot open") != std::string::npos);
    CHECK(boids_world_load(__FILE__, nullptr, nullptr, &none) == BOIDS_ERROR_IO);
    CHECK(last().find("not a boids snapshot") != std::string::npos);
    CHECK(boids_world_load(nullptr, nullptr, nullptr, &none) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_load(path.c_str(), nullptr, nullptr, nullptr) ==
          BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(none == nullptr);
    CHECK(boids_world_save(h.w, "/nonexistent-dir/w.snap") == BOIDS_ERROR_IO);
    CHECK(boids_world_save(nullptr, path.c_str()) == BOIDS_ERROR_INVALID_ARGUMENT);
    CHECK(boids_world_save(h.w, nullptr) == BOIDS_ERROR_INVALID_ARGUMENT);
    std::remove(path.c_str());
  }
}

TEST_CASE("C: the last error is per thread", "[c_api]") {
  Handle h(small_def());
  CHECK(boids_world_step(h.w, -1) == BOIDS_ERROR_INVALID_ARGUMENT);
  const std::string mine = last();
  std::string before, after;
  std::thread t([&] {
    before = boids_last_error();  // nothing failed on this thread yet
    boids_world_step(nullptr, 1);
    after = boids_last_error();
  });
  t.join();
  CHECK(before.empty());
  CHECK(after == "boids_world_step: world is NULL");
  CHECK(last() == mine);
}

TEST_CASE("C: host-supplied threads run the grid engine deterministically", "[c_api][parallel]") {
  boids_world_def d = small_def(BOIDS_ENGINE_GRID);
  d.count = 3000;
  d.size = 60;
  Handle serial(d);
  require_engine_c(serial.w, BOIDS_ENGINE_GRID);
  HostPool pool;
  d.host_parallel_for = host_parallel_for;
  d.host_context = &pool;
  Handle hosted(d);
  REQUIRE(boids_world_step(serial.w, 5) == BOIDS_OK);
  REQUIRE(boids_world_step(hosted.w, 5) == BOIDS_OK);
  CHECK(pool.calls.load() > 0);
  CHECK(pool.indices.load() > 0);
  uint64_t a = 0, b = 0;
  REQUIRE(boids_world_state_hash(serial.w, &a) == BOIDS_OK);
  REQUIRE(boids_world_state_hash(hosted.w, &b) == BOIDS_OK);
  CHECK(a == b);
  // The host threading cannot be swapped between steps, and a loaded snapshot takes it anew.
  boids_world_def now{};
  REQUIRE(boids_world_get_def(hosted.w, &now) == BOIDS_OK);
  now.host_parallel_for = nullptr;
  CHECK(boids_world_set_def(hosted.w, &now) == BOIDS_ERROR_INVALID_ARGUMENT);
  const std::string path = tmp("host.snap");
  REQUIRE(boids_world_save(hosted.w, path.c_str()) == BOIDS_OK);
  boids_world* l = nullptr;
  const int before = pool.calls.load();
  REQUIRE(boids_world_load(path.c_str(), host_parallel_for, &pool, &l) == BOIDS_OK);
  REQUIRE(boids_world_step(l, 2) == BOIDS_OK);
  REQUIRE(boids_world_step(hosted.w, 2) == BOIDS_OK);
  CHECK(pool.calls.load() > before);
  REQUIRE(boids_world_state_hash(hosted.w, &a) == BOIDS_OK);
  REQUIRE(boids_world_state_hash(l, &b) == BOIDS_OK);
  CHECK(a == b);
  boids_world_destroy(l);
  std::remove(path.c_str());
}
