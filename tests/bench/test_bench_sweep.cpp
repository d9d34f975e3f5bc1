// The bench's sweep expansion, presets, count parsing and scenario scaling.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/bench.hpp"
#include "boids/world.hpp"
#include "core/scenario.hpp"

using namespace boids;
using namespace boids::bench;

TEST_CASE("expand: cartesian product in a fixed order, naive single-threaded", "[bench]") {
  SweepSpec s{
      {Variant::naive, Variant::grid_simd}, {1000, 100, 1000}, {2, 1}, {3}, {Precision::f32}};
  const std::vector<Config> c = expand(s);
  const std::vector<Config> want = {
      {Variant::naive, 100, 1, 3, Precision::f32},
      {Variant::naive, 1000, 1, 3, Precision::f32},
      {Variant::grid_simd, 100, 1, 3, Precision::f32},
      {Variant::grid_simd, 100, 2, 3, Precision::f32},
      {Variant::grid_simd, 1000, 1, 3, Precision::f32},
      {Variant::grid_simd, 1000, 2, 3, Precision::f32},
  };
  REQUIRE(c.size() == want.size());
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i] == want[i]);
  CHECK(config_label(c[3]) == "grid-simd 3D float n=100 t=2");

  SECTION("max_count drops larger counts") {
    const auto small = expand(s, 500);
    REQUIRE(small.size() == 3);
    for (const auto& x : small) CHECK(x.count == 100);
  }
  SECTION("the whole matrix has the expected size") {
    SweepSpec all{{Variant::naive, Variant::grid_scalar, Variant::grid_simd},
                  {1000, 10000, 100000, 1000000},
                  {1, 2, 4},
                  {2, 3},
                  {Precision::f32, Precision::f64}};
    // Per (dims, precision): naive 4 counts x 1 thread, grid 2 engines x 4 counts x 3 threads.
    CHECK(expand(all).size() == 4 * (4 + 2 * 4 * 3));
    // Dims and precision are the outer loops.
    const auto e = expand(all);
    CHECK(e.front().dims == 2);
    CHECK(e.front().precision == Precision::f32);
    CHECK(e.back().dims == 3);
    CHECK(e.back().precision == Precision::f64);
    CHECK(e.back().variant == Variant::grid_simd);
    CHECK(e.back().count == 1000000);
    CHECK(e.back().threads == 4);
  }
  SECTION("an empty axis gives an empty sweep") {
    s.threads.clear();
    CHECK(expand(s).empty());
  }
}

TEST_CASE("log_counts and thread_ladder", "[bench]") {
  CHECK(log_counts(1000, 100000, 2) ==
        std::vector<std::uint32_t>{1000, 3000, 10000, 30000, 100000});
  CHECK(log_counts(1000, 10000, 3) == std::vector<std::uint32_t>{1000, 2000, 5000, 10000});
  CHECK(log_counts(1000, 10000000, 1) ==
        std::vector<std::uint32_t>{1000, 10000, 100000, 1000000, 10000000});
  CHECK(log_counts(1000, 10000000, 2).size() == 9);
  CHECK(log_counts(5000, 4000, 2).empty());
  CHECK(thread_ladder(1) == std::vector<int>{1});
  CHECK(thread_ladder(2) == std::vector<int>{1, 2});
  CHECK(thread_ladder(6) == std::vector<int>{1, 2, 4, 6});
  CHECK(thread_ladder(8) == std::vector<int>{1, 2, 4, 8});
}

TEST_CASE("parse_counts: lists, suffixes, ranges and clear errors", "[bench]") {
  CHECK(parse_counts("1000,1e4,100k,2M", "--counts") ==
        std::vector<std::uint32_t>{1000, 10000, 100000, 2000000});
  CHECK(parse_counts("1e3:1e5:1", "--counts") == std::vector<std::uint32_t>{1000, 10000, 100000});
  CHECK(parse_counts("1000:4000", "--counts") == std::vector<std::uint32_t>{1000, 2000, 4000});
  for (const char* bad : {"abc", "1.5", "0", "-5", "1000,,x", "10:1", "1e3:1e4:0", "1e12"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_counts(bad, "--counts"), Catch::Contains("--counts"));
  }
}

TEST_CASE("presets quick, demo, full and tiny, and unknown names refused", "[bench]") {
  const Preset q = preset("quick", 2);
  CHECK(q.sweep.variants.size() == 3);
  CHECK(q.sweep.counts == std::vector<std::uint32_t>{1000, 10000, 100000, 1000000});
  CHECK(q.sweep.threads == std::vector<int>{1, 2});
  const Preset d = preset("demo", 2);
  CHECK(d.sweep.variants == std::vector<Variant>{Variant::naive, Variant::grid_simd});
  CHECK(d.sweep.dims == std::vector<int>{3});
  const Preset f = preset("full", 4);
  CHECK(f.sweep.counts.front() == 1000);
  CHECK(f.sweep.counts.back() == 10000000);
  CHECK(f.sweep.threads == std::vector<int>{1, 2, 4});
  CHECK(f.sweep.dims.size() == 2);
  CHECK(f.sweep.precisions.size() == 2);
  CHECK(preset("tiny", 1).sweep.counts.back() <= 1000);
  CHECK_THROWS_WITH(preset("fast", 2), Catch::Contains("unknown preset \"fast\""));
}

TEST_CASE("def_for keeps the scenario's neighbour count at every n and in 2D", "[bench]") {
  const WorldDef base = parse_scenario(default_scenario_text(), "default");
  const double k = expected_neighbours(base);
  // Default: 10000 boids in 100^3, r = 9: 0.01 * 4/3 pi 729 = 30.536.
  CHECK(k == Approx(0.01 * 4.0 / 3.0 * 3.14159265358979 * 729.0));

  const WorldDef d3 = def_for(base, {Variant::grid_scalar, 1000, 2, 3, Precision::f64});
  CHECK(d3.size == Approx(100.0 * std::cbrt(0.1)));
  CHECK(d3.count == 1000);
  CHECK(d3.threads == 2);
  CHECK(d3.engine == EngineKind::grid);
  CHECK_FALSE(d3.simd);
  CHECK(d3.precision == Precision::f64);
  CHECK(expected_neighbours(d3) == Approx(k));

  const WorldDef d2 = def_for(base, {Variant::grid_simd, 5000, 1, 2, Precision::f32});
  CHECK(d2.dims == 2);
  CHECK(d2.simd);
  CHECK(expected_neighbours(d2) == Approx(k));
  CHECK(d2.size == Approx(std::sqrt(5000.0 / (k / (3.14159265358979 * 81.0)))));

  std::string note;
  const WorldDef tiny = def_for(base, {Variant::naive, 10, 1, 3, Precision::f32}, &note);
  CHECK(tiny.engine == EngineKind::naive);
  CHECK(tiny.size == Approx(2.05 * 9.0));
  CHECK(note.find("sparser") != std::string::npos);
  CHECK_NOTHROW(validate(tiny));

  WorldDef empty = base;
  empty.count = 0;
  CHECK_THROWS_WITH(def_for(empty, {}), Catch::Contains("boids.count"));
}

TEST_CASE("parse_variant and names", "[bench]") {
  CHECK(parse_variant("naive") == Variant::naive);
  CHECK(parse_variant("grid") == Variant::grid_simd);
  CHECK(parse_variant("grid-scalar") == Variant::grid_scalar);
  CHECK_FALSE(parse_variant("fast").has_value());
  CHECK(std::string(variant_name(Variant::grid_simd)) == "grid-simd");
}

TEST_CASE("standard benchmark scenarios parse and have the neighbour count they document",
          "[bench]") {
  namespace fs = std::filesystem;
  int found = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BOIDS_SOURCE_DIR) / "scenarios")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("bench-", 0) != 0 || e.path().extension() != ".toml") continue;
    ++found;
    INFO(name);
    const WorldDef d = load_scenario(e.path().string());
    std::ifstream in(e.path());
    double documented = -1;
    const std::string key = "# expected neighbours per boid: ";
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(key, 0) == 0) documented = std::stod(line.substr(key.size()));
    }
    REQUIRE(documented > 0);
    CHECK(expected_neighbours(d) == Approx(documented).epsilon(0.01));
    // The bench's rescaling keeps it at another count and in the other dimensionality.
    const WorldDef big = def_for(d, {Variant::grid_simd, 1000000, 1, d.dims, Precision::f32});
    CHECK(expected_neighbours(big) == Approx(documented).epsilon(0.01));
  }
  CHECK(found >= 5);
}
