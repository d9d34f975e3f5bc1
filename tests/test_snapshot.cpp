// Snapshots (save, load, bit-identical continuation, bad files) and trajectory recording.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "boids/boids.hpp"
#include "core/engine.hpp"
#include "core/record.hpp"
#include "core/snapshot.hpp"
#include "test_support.hpp"

using namespace boids;

namespace {

std::string tmp(const std::string& name) { return boids::test::tmp_path("snap", name); }
using boids::test::slurp;

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

WorldDef def_for(EngineKind e, int dims, Precision p, Boundary b) {
  WorldDef d = default_world_def();
  d.engine = e;
  d.dims = dims;
  d.precision = p;
  d.boundary = b;
  d.count = 120;
  d.size = 40;
  d.seed = 11;
  d.threads = 2;
  d.dt = 0.07;
  d.kinds[0].rules.cohesion = 0.35;
  return d;
}

// A saved world for the corruption tests.
std::string saved_bytes() {
  World w = test::create_checked(def_for(EngineKind::naive, 2, Precision::f32, Boundary::wrap));
  w.step(2);
  return encode_snapshot(w);
}

}  // namespace

TEST_CASE("a loaded snapshot continues the run bit-identically", "[snapshot]") {
  const std::string path = tmp("cont.snap");
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    for (int dims : {2, 3}) {
      for (Precision p : {Precision::f32, Precision::f64}) {
        const Boundary b = dims == 2 ? Boundary::reflect : Boundary::wrap;
        World a = test::create_checked(def_for(e, dims, p, b));
        a.step(5);
        const std::uint32_t gone[] = {3, 50, 51};
        a.remove_boids(gone);  // ids with holes and a moved id counter
        a.add_boids(4, Kind::boid);
        WorldDef changed = a.def();  // a runtime change must be saved too
        changed.kinds[0].rules.alignment = 1.7;
        a.set_def(changed);
        a.step(2);
        a.save(path);
        World b2 = World::load(path);
        test::require_engine(b2, e);
        CHECK(b2.step_count() == 7);
        CHECK(b2.next_id() == a.next_id());
        CHECK(b2.count() == a.count());
        CHECK(b2.dims() == dims);
        CHECK(b2.precision() == p);
        CHECK(b2.def().kinds[0].rules.alignment == 1.7);
        CHECK(b2.def().dt == 0.07);
        CHECK(b2.def().count == a.def().count);
        CHECK(std::vector<std::uint32_t>(b2.ids().begin(), b2.ids().end()) ==
              std::vector<std::uint32_t>(a.ids().begin(), a.ids().end()));
        CHECK(b2.state_hash() == a.state_hash());
        a.step(6);
        b2.step(6);
        CHECK(b2.state_hash() == a.state_hash());
        CHECK(b2.step_count() == 13);
        // Ids keep coming from the saved counter.
        CHECK(b2.add_boids(1) == a.add_boids(1));
      }
    }
  }
  std::remove(path.c_str());
}

TEST_CASE("snapshot load takes host threading and a thread count", "[snapshot]") {
  const std::string path = tmp("opts.snap");
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World a = test::create_checked(def_for(e, 3, Precision::f32, Boundary::wrap));
    a.save(path);
    LoadOptions o;
    o.threads = 1;
    World b = World::load(path, o);
    test::require_engine(b, e);
    CHECK(b.def().threads == 1);
    CHECK(b.def().host_parallel_for == nullptr);
    CHECK(World::load(path).def().threads == 2);
  }
  std::remove(path.c_str());
}

TEST_CASE("bad snapshot files get a one-line error naming the file", "[snapshot]") {
  const std::string good = saved_bytes();
  const std::string path = tmp("bad.snap");
  auto load_error = [&](const std::string& bytes) {
    put(path, bytes);
    try {
      (void)World::load(path);
    } catch (const Error& e) {
      const std::string m = e.what();
      CHECK(m.find('\n') == std::string::npos);
      CHECK(m.rfind(path + ": ", 0) == 0);
      return m;
    }
    FAIL("loading did not fail");
    return std::string();
  };
  CHECK(decode_snapshot(good, "x").state.id.size() == 120);

  CHECK_THAT(load_error(""), Catch::Contains("not a boids snapshot"));
  CHECK_THAT(load_error("[world]\ndims = 3\n"), Catch::Contains("not a boids snapshot"));
  CHECK_THAT(load_error(good.substr(0, 20)), Catch::Contains("truncated"));
  CHECK_THAT(load_error(good.substr(0, good.size() - 1)), Catch::Contains("truncated"));
  CHECK_THAT(load_error(good.substr(0, 100)), Catch::Contains("truncated"));
  CHECK_THAT(load_error(good + "x"), Catch::Contains("unexpected bytes"));
  std::string flipped = good;
  flipped[good.size() - 3] ^= 0x10;  // one bit of the last velocity
  CHECK_THAT(load_error(flipped), Catch::Contains("checksum mismatch"));
  std::string toml_flip = good;
  toml_flip[kSnapshotHeaderBytes + 40] ^= 0x01;  // inside the embedded scenario
  CHECK_THAT(load_error(toml_flip), Catch::Contains("checksum mismatch"));
  std::string v2 = good;
  v2[8] = 2;
  CHECK_THAT(load_error(v2), Catch::Contains("format version 2, this library reads version 1"));
  // A recording is not a snapshot.
  std::string rec = good;
  std::memcpy(rec.data(), kRecordMagic, 8);
  CHECK_THAT(load_error(rec), Catch::Contains("not a boids snapshot"));
  CHECK_THROWS_WITH(World::load(tmp("missing.snap")), Catch::Contains("cannot open"));
  std::remove(path.c_str());
}

TEST_CASE("a consistent checksum does not let inconsistent contents through", "[snapshot]") {
  // Rewrite a field of the payload and fix the checksum: the decoder must still refuse.
  const std::string good = saved_bytes();
  auto with_checksum = [](std::string b) {
    const std::uint64_t h = fnv1a(b.data() + kSnapshotHeaderBytes, b.size() - kSnapshotHeaderBytes);
    std::memcpy(b.data() + 24, &h, 8);
    return b;
  };
  std::string dims = good;
  dims[kSnapshotHeaderBytes + 16] = 3;  // dims field says 3, the scenario says 2
  CHECK_THROWS_WITH(decode_snapshot(with_checksum(dims), "f"), Catch::Contains("inconsistent"));
  std::string count = good;
  count[kSnapshotHeaderBytes + 12] = 121;  // one boid more than the arrays hold
  CHECK_THROWS_WITH(decode_snapshot(with_checksum(count), "f"), Catch::Contains("inconsistent"));
  // A NaN in the state is refused when the world is restored.
  std::string nan = good;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + nan.size() - 4, &q, 4);
  const std::string path = tmp("nan.snap");
  put(path, with_checksum(nan));
  CHECK_THROWS_WITH(World::load(path), Catch::Contains("non-finite"));
  std::remove(path.c_str());
}

TEST_CASE("saving is atomic and reports unwritable paths", "[snapshot]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(def_for(e, 2, Precision::f64, Boundary::open));
    w.step(2);  // the grid engine keeps cell order by now; the snapshot is in id order
    CHECK_THROWS_WITH(w.save("/nonexistent-dir/x.snap"),
                      Catch::Contains("/nonexistent-dir/x.snap"));
    const std::string path = tmp("atomic.snap");
    put(path, "old contents");
    w.save(path);
    CHECK(slurp(path).substr(0, 8) == "BOIDSNAP");
    CHECK(World::load(path).state_hash() == w.state_hash());
    std::remove(path.c_str());
  }
}

TEST_CASE("binary recordings hold a header and one frame per call", "[snapshot][record]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    const std::string path = tmp("traj.bin");
    World w = test::create_checked(def_for(e, 3, Precision::f32, Boundary::wrap));
    std::vector<State> states;
    {
      Recorder r(path, w, 2);
      for (int f = 0; f < 3; ++f) {
        if (f == 2) {
          const std::uint32_t gone[] = {0};
          w.remove_boids(gone);  // frames may differ in count
        }
        r.frame(w);
        states.push_back(w.state());
        w.step(2);
      }
      CHECK(!exists(path));  // written beside the final name until finish()
      r.finish();
      CHECK(r.frames() == 3);
    }
    const std::string b = slurp(path);
    REQUIRE(b.size() >= 32);
    CHECK(b.substr(0, 8) == "BOIDSREC");
    std::uint32_t head[4];
    std::uint64_t every;
    std::memcpy(head, b.data() + 8, 16);
    std::memcpy(&every, b.data() + 24, 8);
    CHECK(head[0] == 1);  // format version
    CHECK(head[1] == 3);  // dims
    CHECK(head[2] == 4);  // bytes per value
    CHECK(every == 2);
    std::size_t at = 32;
    for (int f = 0; f < 3; ++f) {
      std::uint64_t fh[2];
      std::memcpy(fh, b.data() + at, 16);
      at += 16;
      const std::size_t n = fh[1];
      CHECK(fh[0] == std::uint64_t(2 * f));
      REQUIRE(n == states[f].id.size());
      std::vector<std::uint32_t> ids(n);
      std::memcpy(ids.data(), b.data() + at, 4 * n);
      CHECK(ids == states[f].id);
      at += 5 * n;  // ids, kinds
      const std::vector<double>* comps[6] = {&states[f].x,  &states[f].y,  &states[f].z,
                                             &states[f].vx, &states[f].vy, &states[f].vz};
      for (auto* c : comps) {
        for (std::size_t i = 0; i < n; i += 37) {
          float v;
          std::memcpy(&v, b.data() + at + 4 * i, 4);
          CHECK(double(v) == (*c)[i]);
        }
        at += 4 * n;
      }
    }
    CHECK(at == b.size());
    std::remove(path.c_str());
  }
}

TEST_CASE("CSV recordings have one row per boid and frame", "[snapshot][record]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    const std::string path = tmp("traj.csv");
    WorldDef d = def_for(e, 2, Precision::f64, Boundary::wrap);
    d.count = 3;
    World w = test::create_checked(d);
    {
      Recorder r(path, w, 1);
      r.frame(w);
      w.step(1);
      r.frame(w);
      r.finish();
    }
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    CHECK(line == "step,id,x,y,vx,vy,kind");
    int rows = 0;
    std::string last;
    while (std::getline(in, line)) {
      ++rows;
      last = line;
    }
    CHECK(rows == 6);
    // Last row: step 1, id 2; the numbers read back to exactly the state's values.
    const State s = w.state();
    std::vector<std::string> f;
    std::stringstream ss(last);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 7);
    CHECK(f[0] == "1");
    CHECK(f[1] == "2");
    CHECK(std::stod(f[2]) == s.x[2]);
    CHECK(std::stod(f[5]) == s.vy[2]);
    CHECK(f[6] == "0");
    CHECK_THROWS_WITH(Recorder("/nonexistent-dir/t.bin", w, 1), Catch::Contains("cannot write"));
    CHECK_THROWS_WITH(Recorder(path, w, 0), Catch::Contains("--every"));
    std::remove(path.c_str());
  }
}

#ifdef BOIDS_CLI_PATH
namespace {

struct Run {
  int status;
  std::string err;
};

Run cli(const std::string& args) {
  const std::string err = tmp("stderr.txt");
  const std::string cmd =
      std::string(BOIDS_CLI_PATH) + " run --quiet " + args + " >/dev/null 2>" + err;
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : 128, slurp(err)};
}

}  // namespace

TEST_CASE("boids run --save/--load continues a run bit-identically", "[snapshot][cli]") {
  const std::string snap = tmp("cli.snap"), a = tmp("a.csv"), b = tmp("b.csv");
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    const std::string world = std::string("--engine ") + test::engine_name(e) +
                              " --set boids.count=60 --set world.size=25 ";
    REQUIRE(cli(world + "--steps 8 --out " + a).status == 0);
    REQUIRE(cli(world + "--steps 5 --save " + snap).status == 0);
    REQUIRE(cli("--load " + snap + " --steps 3 --out " + b).status == 0);
    CHECK(slurp(a) == slurp(b));
    CHECK(slurp(a).size() > 60 * 20);
    const World saved = World::load(snap);
    test::require_engine(saved, e);  // the CLI ran the engine asked for
    CHECK(saved.step_count() == 5);
  }
  const std::string world = "--engine naive --set boids.count=60 --set world.size=25 ";

  // Bad use: one line on stderr, non-zero status, nothing written.
  const Run missing = cli("--load " + tmp("none.snap") + " --steps 1 --save " + snap + ".x");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("none.snap: cannot open snapshot"));
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
  CHECK(!exists(snap + ".x"));
  put(b, "not a snapshot at all");
  const Run foreign = cli("--load " + b);
  CHECK(foreign.status == 2);
  CHECK_THAT(foreign.err, Catch::Contains("not a boids snapshot"));
  CHECK(cli("--load " + snap + " --scenario x.toml").status != 0);  // mutually exclusive
  const Run unwritable = cli(world + "--steps 1 --save /nonexistent-dir/s.snap");
  CHECK(unwritable.status == 2);
  CHECK_THAT(unwritable.err, Catch::Contains("/nonexistent-dir/s.snap: cannot write here"));
  for (const auto& f : {snap, a, b, tmp("stderr.txt")}) std::remove(f.c_str());
}

TEST_CASE("boids run --record writes frames every K steps", "[snapshot][cli][record]") {
  const std::string csv = tmp("rec.csv"), bin = tmp("rec.bin");
  const std::string world = "--engine naive --set boids.count=10 --set world.dims=2 ";
  REQUIRE(cli(world + "--steps 5 --record " + csv + " --every 2").status == 0);
  // Frames at steps 0, 2, 4 and the final 5: 4 frames of 10 rows plus the header.
  std::ifstream in(csv);
  std::string line;
  std::vector<std::string> steps;
  std::getline(in, line);
  CHECK(line == "step,id,x,y,vx,vy,kind");
  while (std::getline(in, line)) steps.push_back(line.substr(0, line.find(',')));
  REQUIRE(steps.size() == 40);
  CHECK(steps[0] == "0");
  CHECK(steps[10] == "2");
  CHECK(steps[20] == "4");
  CHECK(steps[39] == "5");
  REQUIRE(cli(world + "--steps 4 --record " + bin + " --every 4").status == 0);
  const std::string b = slurp(bin);
  // Header + 2 frames of (16 + 10 * (4 + 1 + 4 * 4)) bytes.
  CHECK(b.size() == 32 + 2 * (16 + 10 * 21));
  CHECK(b.substr(0, 8) == "BOIDSREC");
  const Run bad = cli(world + "--steps 1 --every 3");
  CHECK(bad.status != 0);  // --every needs --record
  const Run zero = cli(world + "--steps 1 --record " + bin + " --every 0");
  CHECK(zero.status != 0);
  for (const auto& f : {csv, bin, tmp("stderr.txt")}) std::remove(f.c_str());
}
#endif

TEST_CASE("snapshots keep behaviours, obstacles, goals and agent kinds", "[snapshot]") {
  const std::string path = tmp("beh.snap");
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    WorldDef d = def_for(e, 3, Precision::f32, Boundary::reflect);
    d.count = 150;
    d.predators = 3;
    d.leaders = 2;
    d.goal = {30, 10, 20};
    d.spheres.push_back({{20, 20, 20}, 4.0});
    d.boxes.push_back({{2, 2, 2}, {6, 8, 10}});
    d.kinds[0].behaviour.wander = 0.4;  // draws from the counter-based RNG every step
    d.kinds[0].behaviour.avoid = 1.0;
    d.kinds[0].behaviour.containment = 0.5;
    World a = test::create_checked(d);
    a.step(4);
    a.save(path);
    World b = World::load(path);
    test::require_engine(b, e);
    CHECK(b.def().predators == 3);
    CHECK(b.def().leaders == 2);
    CHECK(b.def().goal == d.goal);
    REQUIRE(b.def().spheres.size() == 1);
    CHECK(b.def().spheres[0].radius == 4.0);
    REQUIRE(b.def().boxes.size() == 1);
    CHECK(b.def().boxes[0].hi == std::vector<double>{6, 8, 10});
    CHECK(b.def().kinds[0].behaviour.wander == 0.4);
    CHECK(b.kinds()[149] == 2);  // leaders: the highest ids
    CHECK(b.kinds()[146] == 1);  // predators: just below
    a.step(5);
    b.step(5);
    CHECK(a.state_hash() == b.state_hash());
  }
  std::remove(path.c_str());
}
