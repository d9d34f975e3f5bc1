// Writers that stream (issue 13, "Memory"): the state CSV (--out), snapshots (--save) and
// recordings read the engine's store a chunk at a time in id order (core/id_rows.hpp). They
// must write the same bytes as the whole-state paths and must not allocate anything the size
// of the flock: the engine's own memory report (bytes_per_boid(), which counts the id-order
// copy behind World::positions() once it exists) is the same before and after writing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/engine.hpp"
#include "core/id_rows.hpp"
#include "core/input_limits.hpp"
#include "core/record.hpp"
#include "core/snapshot.hpp"
#include "core/state_csv.hpp"
#include "test_support.hpp"

using namespace boids;

namespace {

std::string tmp(const std::string& name) { return boids::test::tmp_path("stream", name); }
using boids::test::slurp;

const EngineKind kAll[] = {EngineKind::naive, EngineKind::grid, EngineKind::cluster};

// A world whose slots are not in id order (grid, cluster: cell order after a step), with
// predators and leaders when `kinds`, and a removed boid so ids are not 0..n-1.
World stepped_world(EngineKind e, int dims, Precision prec, bool kinds) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.precision = prec;
  // Grid and cluster worlds cross the writers' chunk boundary (IdRows::kChunk rows); the
  // O(n^2) naive engine stays at 3,000 boids to keep the test short (the writers' chunk loop
  // is the same for every engine).
  d.count = e == EngineKind::naive ? 3000 : std::uint32_t(IdRows::kChunk) + 700;
  d.size = dims == 2 ? 120 : 40;
  d.threads = 2;
  d.engine = e;
  World w = World::create(d);
  if (kinds) {
    w.add_boids(3, Kind::predator);
    w.add_boids(2, Kind::leader);
  }
  const std::uint32_t gone[] = {7};
  w.remove_boids(gone);
  w.step(3);
  return w;
}

}  // namespace

TEST_CASE("streamed --out equals the State writer byte for byte and copies nothing",
          "[stream][csv]") {
  for (EngineKind e : kAll) {
    // The writer reads every engine's state the same way; under the sanitizers the O(n^2)
    // naive engine's 3,000-boid steps were most of this test's time.
    if (test::under_sanitizer && e == EngineKind::naive) continue;
    for (int dims : {2, 3}) {
      for (Precision prec : {Precision::f32, Precision::f64}) {
        for (bool kinds : {false, true}) {
          INFO("engine " << int(e) << ", " << dims << "D, f64 " << (prec == Precision::f64)
                         << ", kinds " << kinds);
          World w = stepped_world(e, dims, prec, kinds);
          const std::size_t before = engine_of(w).bytes_per_boid();
          const std::string a = tmp("a.csv"), b = tmp("b.csv");
          write_state_csv(a, w);  // streamed
          CHECK(engine_of(w).bytes_per_boid() == before);
          write_state_csv(b, w.state(), dims, prec);
          const std::string sa = slurp(a);
          CHECK(sa.size() > 3000 * 20);
          CHECK(sa == slurp(b));
          CHECK((sa.find(",kind\n") != std::string::npos) == kinds);
          const State back = read_state_csv(a, dims, w.count());
          CHECK(back.id == w.state().id);
          std::remove(a.c_str());
          std::remove(b.c_str());
        }
      }
    }
  }
}

TEST_CASE("a streamed snapshot equals encode_snapshot and loads back bit-identically",
          "[stream][snapshot]") {
  for (EngineKind e : kAll) {
    for (Precision prec : {Precision::f32, Precision::f64}) {
      INFO("engine " << int(e) << ", f64 " << (prec == Precision::f64));
      World w = stepped_world(e, 3, prec, true);
      const std::size_t before = engine_of(w).bytes_per_boid();
      const std::string p = tmp("s.snap");
      w.save(p);  // write_snapshot
      CHECK(engine_of(w).bytes_per_boid() == before);
      CHECK(slurp(p) == encode_snapshot(w));
      World back = World::load(p);
      CHECK(back.state_hash() == w.state_hash());
      back.step(2);
      w.step(2);
      CHECK(back.state_hash() == w.state_hash());
      std::remove(p.c_str());
    }
  }
}

TEST_CASE("recording frames copies nothing the size of the flock", "[stream][record]") {
  for (EngineKind e : {EngineKind::grid, EngineKind::cluster}) {
    for (const char* ext : {".bin", ".csv"}) {
      INFO("engine " << int(e) << ext);
      World w = stepped_world(e, 3, Precision::f32, true);
      const std::size_t before = engine_of(w).bytes_per_boid();
      const std::string p = tmp(std::string("r") + ext);
      Recorder r(p, w, 1);
      r.frame(w);
      CHECK(engine_of(w).bytes_per_boid() == before);
      // The step may add a slot to the row loop's scratch pool (one per task that ran at once,
      // counted in the report), so the second frame is measured against the state after it.
      w.step(1);
      const std::size_t stepped = engine_of(w).bytes_per_boid();
      r.frame(w);
      r.finish();
      CHECK(engine_of(w).bytes_per_boid() == stepped);
      // The frame is the state in id order: the last row holds the highest id.
      const std::string text = slurp(p);
      if (std::string(ext) == ".csv") {
        const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
        const std::string step_id = "4," + std::to_string(w.state().id.back()) + ",";
        CHECK(last.rfind(step_id, 0) == 0);
      }
      std::remove(p.c_str());
    }
  }
}

TEST_CASE("the grid and cluster engines hold at most 64 bytes per boid in 3D float",
          "[stream][memory][cluster]") {
  for (EngineKind e : {EngineKind::grid, EngineKind::cluster}) {
    INFO("engine " << int(e));
    WorldDef d = default_world_def();  // 3D float wrap, the default density
    d.count = 200000;
    d.size = 100 * std::cbrt(d.count / 10000.0);
    d.threads = 2;
    d.engine = e;
    World w = World::create(d);
    w.step(2);
    const std::size_t b = engine_of(w).bytes_per_boid();
    // Two stores (29 B each), cell starts and histograms (about 1 B at the default density),
    // the cluster engine's sub-cell keys (1 B), and the row loop's pooled scratch (a fixed
    // amount per thread: about 1 B per boid here, nothing at 10M); no rank map, no gather map
    // (docs/engine.md, "Memory"). Issue 13's bound: 64 B.
    INFO("bytes per boid " << b);
    CHECK(b >= 2 * 29);
    CHECK(b <= 64);
    // The id-order copy behind the views is counted once it exists, and only then.
    (void)w.positions<float>();
    CHECK(engine_of(w).bytes_per_boid() >= b + 29);
    // The up-front estimate bounds what the engine really holds.
    CHECK(bytes_per_boid(w.def()) >= engine_of(w).bytes_per_boid());
  }
}

TEST_CASE("10^8 boids in 3D are refused up front when they do not fit", "[stream][memory]") {
  WorldDef d = default_world_def();
  d.count = 100000000;
  d.size = 100 * std::cbrt(d.count / 10000.0);
  ::setenv("BOIDS_MEMORY_LIMIT", "8000000000", 1);  // 8 GB: 10^8 boids need more
  REQUIRE_THROWS_WITH(World::create(d),
                      Catch::Contains("boids.count: 100000000 boids need about") &&
                          Catch::Contains("GiB this process may use"));
  ::unsetenv("BOIDS_MEMORY_LIMIT");
  // The estimate per boid of a plain 3D float run: three stores of 29 B, cells, a State.
  CHECK(bytes_per_boid(d) == 3 * 29 + 24 + 56);
}
