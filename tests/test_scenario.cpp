// Scenario files: every bad input gets one line naming file, line and key.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "boids/world.hpp"
#include "core/scenario.hpp"

using namespace boids;

namespace {

// The message parse_scenario throws for `text`, or "" when it parses.
// `text` with the first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    parse_scenario(text, "s.toml", sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kBase = R"([world]
dims = 3
size = 100.0
boundary = "wrap"
[boids]
count = 100
[rules]
radius = 9.0
separation_radius = 3.0
[motion]
dt = 0.1
)";

}  // namespace

TEST_CASE("keys a scenario leaves out keep their documented defaults", "[scenario]") {
  WorldDef d = parse_scenario(kBase, "x");
  const WorldDef def = default_world_def();
  CHECK(d.count == 100);
  CHECK(d.kinds[0].rules.cohesion == def.kinds[0].rules.cohesion);
  CHECK(d.kinds[0].motion.max_speed == def.kinds[0].motion.max_speed);
  CHECK(d.seed == def.seed);
}

TEST_CASE("scenario values reach the def", "[scenario]") {
  WorldDef d = parse_scenario(R"([world]
dims = 2
size = 50
boundary = "reflect"
[boids]
count = 123
seed = 99
[rules]
radius = 4.5
separation_radius = 1
view_angle = 270
separation = 2
alignment = 0.5
cohesion = 0.25
[motion]
dt = 0.05
max_speed = 3
min_speed = 0.5
max_force = 1.5
[engine]
kind = "naive"
threads = 2
precision = "double"
simd = false
)",
                              "x");
  CHECK(d.dims == 2);
  CHECK(d.size == 50.0);
  CHECK(d.boundary == Boundary::reflect);
  CHECK(d.count == 123);
  CHECK(d.seed == 99);
  CHECK(d.kinds[0].rules.radius == 4.5);
  CHECK(d.kinds[0].rules.separation_radius == 1.0);
  CHECK(d.kinds[0].rules.view_angle == 270.0);
  CHECK(d.kinds[0].rules.separation == 2.0);
  CHECK(d.kinds[0].rules.alignment == 0.5);
  CHECK(d.kinds[0].rules.cohesion == 0.25);
  CHECK(d.dt == 0.05);
  CHECK(d.kinds[0].motion.max_speed == 3.0);
  CHECK(d.kinds[0].motion.min_speed == 0.5);
  CHECK(d.kinds[0].motion.max_force == 1.5);
  CHECK(d.engine == EngineKind::naive);
  CHECK(d.threads == 2);
  CHECK(d.precision == Precision::f64);
  CHECK_FALSE(d.simd);
}

TEST_CASE("bad scenario input names file, line and key", "[scenario]") {
  // Line numbers count from 1 at "[world]".
  SECTION("malformed TOML") {
    CHECK(error_of("[world]\ndims = 3\nsize = = 4\n").rfind("s.toml:3:", 0) == 0);
    CHECK_THAT(error_of("[world]\ndims = 3\nsize = = 4\n"), Catch::Contains("TOML syntax error"));
  }
  SECTION("unknown section name close to a valid one") {
    CHECK(error_of(std::string(kBase) + "[rule]\nradius = 3\n") ==
          "s.toml:12: rule: unknown section (did you mean [rules]?)");
  }
  SECTION("unknown key in a section") {
    std::string t = kBase;
    t = with(t, "radius = 9.0", "radus = 9.0");
    CHECK(error_of(t) == "s.toml:8: rules.radus: unknown key (did you mean rules.radius?)");
  }
  SECTION("unknown section") {
    CHECK(error_of("[wrold]\ndims = 3\n") ==
          "s.toml:1: wrold: unknown section (did you mean [world]?)");
  }
  SECTION("wrong type") {
    std::string t = kBase;
    t = with(t, "radius = 9.0", "radius = \"9\"");
    CHECK(error_of(t) == "s.toml:8: rules.radius: expected a number, got a string");
    CHECK(error_of("[boids]\ncount = 10.5\n") ==
          "s.toml:2: boids.count: expected an integer, got a float");
    CHECK(
        error_of("[world]\nboundary = \"torus\"\n") ==
        "s.toml:2: world.boundary: expected one of \"wrap\", \"reflect\", \"open\", got \"torus\"");
  }
  SECTION("negative radius") {
    std::string t = kBase;
    t = with(t, "radius = 9.0", "radius = -1.0");
    CHECK_THAT(error_of(t),
               Catch::StartsWith("s.toml:8: rules.radius: must be a finite number >= 0"));
  }
  SECTION("separation radius above radius") {
    std::string t = kBase;
    t = with(t, "separation_radius = 3.0", "separation_radius = 10.0");
    CHECK(error_of(t) == "s.toml:9: rules.separation_radius: must be <= rules.radius (9), got 10");
  }
  SECTION("min_speed above max_speed") {
    CHECK(error_of(std::string(kBase) + "max_speed = 2\nmin_speed = 3\n") ==
          "s.toml:13: motion.min_speed: must be <= motion.max_speed (2), got 3");
  }
  SECTION("dt <= 0") {
    std::string t = kBase;
    t = with(t, "dt = 0.1", "dt = 0.0");
    CHECK(error_of(t) == "s.toml:11: motion.dt: must be a finite number > 0, got 0");
  }
  SECTION("radius >= L/2 in a wrapping world") {
    std::string t = kBase;
    t = with(t, "radius = 9.0", "radius = 50.0");
    CHECK(error_of(t) ==
          "s.toml:8: rules.radius: must be < world.size / 2 (50) in a wrapping world, got 50");
    t = with(t, "\"wrap\"", "\"open\"");
    CHECK(error_of(t).empty());
  }
  SECTION("non-finite numbers") {
    std::string t = kBase;
    t = with(t, "radius = 9.0", "radius = nan");
    CHECK(error_of(t) == "s.toml:8: rules.radius: must be a finite number");
    t = kBase;
    t = with(t, "size = 100.0", "size = inf");
    CHECK(error_of(t) == "s.toml:3: world.size: must be a finite number");
  }
  SECTION("a default that another key made invalid is named as a default") {
    CHECK(error_of("[rules]\nradius = 2\n") ==
          "s.toml: rules.separation_radius: must be <= rules.radius (2), got 3 (the default; set "
          "it explicitly)");
  }
  SECTION("keys outside a section") {
    CHECK(error_of("dims = 3\n") ==
          "s.toml:1: dims: keys must be inside a section such as [world]");
  }
}

TEST_CASE("set overrides are checked like file keys and named in errors", "[scenario]") {
  WorldDef d = parse_scenario(kBase, "s.toml", {"rules.radius=5", "world.boundary=reflect"});
  CHECK(d.kinds[0].rules.radius == 5.0);
  CHECK(d.boundary == Boundary::reflect);
  CHECK(error_of(kBase, {"rules.radius=abc"}) ==
        "--set rules.radius=abc: rules.radius: expected a number, got a string");
  CHECK(error_of(kBase, {"rules.radius"}) == "--set rules.radius: expected section.key=value");
  CHECK(error_of(kBase, {"rules.separation_radius=20"}) ==
        "--set rules.separation_radius=20: rules.separation_radius: must be <= rules.radius (9), "
        "got 20");
}

TEST_CASE("a missing scenario file is an error naming it", "[scenario]") {
  try {
    load_scenario("/nonexistent/x.toml");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "/nonexistent/x.toml: cannot open scenario file");
  }
}

TEST_CASE("the built-in default scenario is the documented one", "[scenario]") {
  WorldDef text = parse_scenario(default_scenario_text(), "default");
  WorldDef defs = default_world_def();
  CHECK(scenario_to_toml(text) == scenario_to_toml(defs));
  std::ifstream f(BOIDS_SOURCE_DIR "/scenarios/default.toml");
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(scenario_to_toml(parse_scenario(ss.str(), "default.toml")) == scenario_to_toml(defs));
  // About 30 neighbours: density * sphere volume.
  const double r = defs.kinds[0].rules.radius;
  const double expected = defs.count / (defs.size * defs.size * defs.size) * 4.18879 * r * r * r;
  CHECK(expected > 20);
  CHECK(expected < 40);
}

TEST_CASE("scenario_to_toml round-trips every key exactly", "[scenario]") {
  WorldDef d = default_world_def();
  d.dims = 2;
  d.size = 1.0 / 3.0;
  d.kinds[0].rules.radius = 0.1;
  d.kinds[0].rules.separation_radius = 0.07;
  d.dt = 0.1 + 1e-12;
  d.seed = 1234567890123ull;
  d.boundary = Boundary::open;
  const std::string t = scenario_to_toml(d);
  WorldDef back = parse_scenario(t, "roundtrip");
  CHECK(back.size == d.size);
  CHECK(back.dt == d.dt);
  CHECK(back.seed == d.seed);
  CHECK(back.kinds[0].rules.separation_radius == d.kinds[0].rules.separation_radius);
  CHECK(scenario_to_toml(back) == t);
}

TEST_CASE("edit distance", "[scenario]") {
  CHECK(edit_distance("radus", "radius") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}
