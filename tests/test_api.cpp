// The public C++ API beyond stepping: stable ids across add/remove, id-ordered views, runtime
// def changes, argument errors, lifetimes and the version. Every engine that can be created
// runs the same checks (the grid engine rebuilds its cell order in on_state_replaced()).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "boids/boids.hpp"
#include "test_support.hpp"

using namespace boids;

namespace {

WorldDef small_def(EngineKind e, int dims, std::uint32_t count, Precision p = Precision::f32) {
  WorldDef d = default_world_def();
  d.engine = e;
  d.dims = dims;
  d.count = count;
  d.size = 30;
  d.precision = p;
  d.threads = 2;
  d.seed = 7;
  return d;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Position x of `id` read through the id-ordered view.
float x_of(const World& w, std::uint32_t id) {
  const std::size_t i = w.index_of(id);
  REQUIRE(i != kNoIndex);
  return w.positions<float>().x[i];
}

}  // namespace

TEST_CASE("added boids get the next ids and the seeded state of (seed, id)", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(small_def(e, 3, 5));
    World ref = test::create_checked(small_def(e, 3, 8));  // ids 0..7 seeded at creation
    CHECK(w.next_id() == 5);
    CHECK(w.add_boids(3) == 5);
    CHECK(w.next_id() == 8);
    REQUIRE(w.count() == 8);
    CHECK(w.def().count == 5);  // boids at creation; count() is the live number
    const auto ids = w.ids();
    for (std::uint32_t i = 0; i < 8; ++i) CHECK(ids[i] == i);
    // Bit-identical to the boids that a world of 8 created with the same seed.
    const auto p = w.positions<float>(), q = ref.positions<float>();
    const auto v = w.velocities<float>(), u = ref.velocities<float>();
    for (std::size_t i = 0; i < 8; ++i) {
      CHECK(same_bits(p.x[i], q.x[i]));
      CHECK(same_bits(p.z[i], q.z[i]));
      CHECK(same_bits(v.y[i], u.y[i]));
    }
    CHECK(w.state_hash() == ref.state_hash());
    // A given kind is kept.
    const std::uint32_t first = w.add_boids(2, Kind::predator);
    CHECK(first == 8);
    CHECK(w.kinds()[8] == 1);
    CHECK(w.kinds()[9] == 1);
    CHECK(w.kinds()[7] == 0);
  }
}

TEST_CASE("removing boids keeps the other ids, their order and their state", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(small_def(e, 2, 6));
    w.step(3);
    const State before = w.state();
    const std::uint32_t gone[] = {3, 1};
    w.remove_boids(gone);
    REQUIRE(w.count() == 4);
    const std::vector<std::uint32_t> want{0, 2, 4, 5};
    CHECK(std::vector<std::uint32_t>(w.ids().begin(), w.ids().end()) == want);
    const State after = w.state();
    for (std::size_t r = 0; r < 4; ++r) {
      const std::size_t old = want[r];
      CHECK(after.x[r] == before.x[old]);
      CHECK(after.vy[r] == before.vy[old]);
    }
    CHECK(w.index_of(1) == kNoIndex);
    CHECK(w.index_of(3) == kNoIndex);
    CHECK(w.index_of(4) == 2);
    CHECK(w.index_of(99) == kNoIndex);
    // Ids are never reused.
    CHECK(w.add_boids(1) == 6);
    CHECK(w.ids().back() == 6);
    // Stepping still works and keeps ids in order.
    w.step(2);
    CHECK(std::vector<std::uint32_t>(w.ids().begin(), w.ids().end()) ==
          std::vector<std::uint32_t>{0, 2, 4, 5, 6});
    CHECK(w.step_count() == 5);
  }
}

TEST_CASE("a world after add/remove steps like a fresh world with the same ids and state",
          "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    WorldDef d = small_def(e, 3, 40);
    World a = test::create_checked(d);
    a.step(2);
    const std::uint32_t gone[] = {0, 7, 8, 39};
    a.remove_boids(gone);
    a.add_boids(5);
    // b: a world with ids 0..44, the same ones removed, then a's state written in.
    WorldDef db = d;
    db.count = 45;
    World b = test::create_checked(db);
    const std::uint32_t gone_b[] = {0, 7, 8, 39};
    b.remove_boids(gone_b);
    REQUIRE(b.count() == a.count());
    b.set_state(a.state());
    CHECK(b.state_hash() == a.state_hash());
    a.step(3);
    b.step(3);
    CHECK(b.state_hash() == a.state_hash());
    // The naive engine is the reference for either engine.
    WorldDef dn = db;
    dn.engine = EngineKind::naive;
    World n = test::create_checked(dn);
    n.remove_boids(gone_b);
    State s = b.state();
    b.step(1);
    n.set_state(s);
    n.step(1);
    const State sb = b.state(), sn = n.state();
    for (std::size_t r = 0; r < sb.x.size(); ++r) CHECK(sb.x[r] == Approx(sn.x[r]).margin(1e-4));
  }
}

TEST_CASE("add and remove reject bad arguments and change nothing", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(small_def(e, 2, 4));
    const std::uint64_t h = w.state_hash();
    const std::uint32_t unknown[] = {2, 17};
    CHECK_THROWS_WITH(w.remove_boids(unknown), Catch::Contains("no boid has id 17"));
    const std::uint32_t twice[] = {1, 1};
    CHECK_THROWS_WITH(w.remove_boids(twice), Catch::Contains("id 1 given twice"));
    CHECK(w.count() == 4);
    CHECK(w.state_hash() == h);

    State rows = test::make_state(2, {1, 1, 2, 2}, {1, 0, 0, 1});
    CHECK_THROWS_WITH(w.add_boids(rows), Catch::Contains("leave State::id empty"));
    rows.id.clear();
    State nan = rows;
    nan.vx[1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(w.add_boids(nan), Catch::Contains("non-finite value for row 1"));
    State outside = rows;
    outside.y[0] = 30.0;  // size is 30, the box is half-open
    CHECK_THROWS_WITH(w.add_boids(outside), Catch::Contains("outside the world box"));
    State short_rows = rows;
    short_rows.vy.pop_back();
    CHECK_THROWS_WITH(w.add_boids(short_rows), Catch::Contains("must all have 2 entries"));
    State bad_kind = rows;
    bad_kind.kind[0] = 7;
    CHECK_THROWS_WITH(w.add_boids(bad_kind), Catch::Contains("kind out of range"));
    State zs = rows;
    zs.z = {1, 1};
    CHECK_THROWS_WITH(w.add_boids(zs), Catch::Contains("empty in 2D"));
    CHECK_THROWS_AS(w.add_boids(1, static_cast<Kind>(5)), Error);
    CHECK(w.count() == 4);
    CHECK(w.next_id() == 4);
    CHECK(w.state_hash() == h);

    // Valid rows land exactly where asked, as kind boid when kinds are left empty.
    rows.kind.clear();
    CHECK(w.add_boids(rows) == 4);
    CHECK(w.count() == 6);
    CHECK(x_of(w, 5) == 2.0f);
    CHECK(w.velocities<float>().y[w.index_of(5)] == 1.0f);
    CHECK(w.kinds()[5] == 0);
    // An empty removal or addition is allowed and changes nothing.
    w.remove_boids({});
    CHECK(w.add_boids(0) == 6);
    CHECK(w.count() == 6);
  }
}

TEST_CASE("views are in id order, typed by precision, and valid until the next change", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(small_def(e, 3, 50, Precision::f64));
    w.step(2);  // the grid engine has sorted its slots into cell order by now
    const auto ids = w.ids();
    for (std::size_t i = 1; i < ids.size(); ++i) CHECK(ids[i - 1] < ids[i]);
    CHECK_THROWS_WITH(w.positions<float>(), Catch::Contains("precision"));
    CHECK_THROWS_AS(w.velocities<float>(), Error);
    const auto p = w.positions<double>();
    const State s = w.state();
    REQUIRE(p.x.size() == 50);
    for (std::size_t i = 0; i < 50; ++i) {
      CHECK(p.x[i] == s.x[i]);
      CHECK(p.y[i] == s.y[i]);
      CHECK(p.z[i] == s.z[i]);
    }
    // Without a change in between, two views see the same memory (no copy per call).
    CHECK(w.positions<double>().x.data() == p.x.data());
    CHECK(w.kinds().size() == 50);
  }
  // 2D: z is empty.
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w2 = test::create_checked(small_def(e, 2, 3));
    CHECK(w2.positions<float>().z.empty());
    CHECK(w2.velocities<float>().z.empty());
    CHECK(w2.state().z.empty());
  }
}

TEST_CASE("set_def changes rules between steps and refuses structural fields", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    WorldDef d = small_def(e, 3, 60);
    World w = test::create_checked(d);
    w.step(2);
    const State s = w.state();

    WorldDef changed = w.def();
    changed.kinds[0].rules.cohesion = 0.9;
    changed.kinds[0].rules.radius = 12;  // larger than at creation: the grid must follow
    changed.kinds[0].motion.max_speed = 3;
    changed.dt = 0.05;
    w.set_def(changed);
    CHECK(w.def().kinds[0].rules.cohesion == 0.9);
    CHECK(w.def().dt == 0.05);
    w.step(2);

    // The same as a world created with the changed def from the same state.
    WorldDef fresh_def = d;
    fresh_def.kinds[0] = changed.kinds[0];
    fresh_def.dt = 0.05;
    World ref = test::create_checked(fresh_def);
    ref.set_state(s);
    ref.step(2);
    CHECK(ref.state_hash() == w.state_hash());

    const std::uint64_t h = w.state_hash();
    auto refused = [&](auto mutate, const char* key) {
      WorldDef bad = w.def();
      mutate(bad);
      CHECK_THROWS_WITH(w.set_def(bad), Catch::StartsWith(key));
    };
    refused([](WorldDef& x) { x.size = 31; }, "world.size");
    refused([](WorldDef& x) { x.dims = 2; }, "world.dims");
    refused([](WorldDef& x) { x.boundary = Boundary::reflect; }, "world.boundary");
    refused([](WorldDef& x) { x.count = 61; }, "boids.count");
    refused([](WorldDef& x) { x.seed = 8; }, "boids.seed");
    refused([](WorldDef& x) { x.predators = 1; }, "predators.count");
    refused([](WorldDef& x) { x.leaders = 1; }, "leaders.count");
    refused([](WorldDef& x) { x.precision = Precision::f64; }, "engine.precision");
    refused([](WorldDef& x) { x.threads = 3; }, "engine.threads");
    refused([](WorldDef& x) { x.cells_per_radius = 2; }, "engine.cells_per_radius");
    refused(
        [](WorldDef& x) {
          x.engine = x.engine == EngineKind::naive ? EngineKind::grid : EngineKind::naive;
        },
        "engine.kind");
    // Invalid values are refused with the field named; nothing changes.
    refused([](WorldDef& x) { x.kinds[0].rules.radius = -1; }, "rules.");
    refused([](WorldDef& x) { x.dt = std::numeric_limits<double>::quiet_NaN(); }, "motion.dt");
    WorldDef raw;  // not from default_world_def()
    CHECK_THROWS_WITH(w.set_def(raw), Catch::Contains("default_world_def"));
    CHECK(w.def().kinds[0].rules.cohesion == 0.9);
    CHECK(w.state_hash() == h);
  }
}

TEST_CASE("set_state and step reject bad arguments", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World w = test::create_checked(small_def(e, 2, 2));
    const std::uint64_t h = w.state_hash();
    State s = test::make_state(2, {1, 1, 2, 2}, {1, 0, 0, 1});
    State nan = s;
    nan.x[0] = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(w.set_state(nan), Catch::Contains("non-finite value for id 0"));
    State wrong_ids = s;
    wrong_ids.id[1] = 9;
    CHECK_THROWS_WITH(w.set_state(wrong_ids), Catch::Contains("does not match"));
    State few = s;
    few.id.pop_back();
    CHECK_THROWS_WITH(w.set_state(few), Catch::Contains("expected 2 ids, got 1"));
    State no_vy = s;
    no_vy.vy.clear();
    CHECK_THROWS_AS(w.set_state(no_vy), Error);
    CHECK_THROWS_WITH(w.step(-1), Catch::Contains("count must be >= 0"));
    CHECK(w.state_hash() == h);
    w.set_state(s);
    CHECK(w.positions<float>().y[1] == 2.0f);
  }
}

TEST_CASE("worlds are movable and independent", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    World a = test::create_checked(small_def(e, 3, 10));
    World b = test::create_checked(small_def(e, 3, 10));
    World c = std::move(a);
    c.step(1);
    CHECK(c.step_count() == 1);
    CHECK(b.step_count() == 0);
    b.step(1);
    CHECK(b.state_hash() == c.state_hash());
    b = std::move(c);
    CHECK(b.step_count() == 1);
    CHECK(b.count() == 10);
  }
}

TEST_CASE("the version macros and the library agree", "[api]") {
  CHECK(std::string(version()) == BOIDS_VERSION_STRING);
  CHECK(std::string(version()) == std::to_string(kVersionMajor) + "." +
                                      std::to_string(kVersionMinor) + "." +
                                      std::to_string(kVersionPatch));
  CHECK(BOIDS_VERSION_NUMBER == kVersionMajor * 10000 + kVersionMinor * 100 + kVersionPatch);
  CHECK(std::string(boids_version()) == version());
}

TEST_CASE("set_def moves goals and adds obstacles between steps", "[api]") {
  for (EngineKind e : test::all_engines()) {
    INFO(test::engine_name(e));
    WorldDef d = small_def(e, 2, 80);
    d.boundary = Boundary::reflect;
    d.kinds[0].behaviour.seek = 1.0;
    d.kinds[0].behaviour.avoid = 2.0;
    d.goal = {5, 5};
    World w = test::create_checked(d);
    w.step(3);
    const State s = w.state();
    WorldDef changed = w.def();
    changed.goal = {25, 20};
    changed.spheres.push_back({{15, 15}, 3.0});
    w.set_def(changed);
    w.step(4);
    WorldDef fresh = d;
    fresh.goal = changed.goal;
    fresh.spheres = changed.spheres;
    World ref = test::create_checked(fresh);
    ref.set_state(s);
    ref.step(4);
    CHECK(ref.state_hash() == w.state_hash());
    // The old goal would have given another flock.
    World old = test::create_checked(d);
    old.set_state(s);
    old.step(4);
    CHECK(old.state_hash() != w.state_hash());
    // A malformed obstacle is refused with its key.
    WorldDef bad = w.def();
    bad.spheres.push_back({{1, 2, 3}, 1.0});  // 3 numbers in a 2D world
    CHECK_THROWS_AS(w.set_def(bad), Error);
    CHECK(w.def().spheres.size() == 1);
  }
}
