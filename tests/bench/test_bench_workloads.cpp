// Issue 14's workloads (bench/workloads.cpp): what each adds to the world, the sweep axis,
// and the `x ref` ratio to the sweep's first workload.
#include <catch2/catch.hpp>

#include "bench/bench.hpp"
#include "boids/world.hpp"

using namespace boids;
using namespace boids::bench;

TEST_CASE("workloads: each adds what it names, scaled with n", "[bench]") {
  const WorldDef base = default_world_def();
  const Config c(Variant::grid_simd, 100000, 1, 3, Precision::f32, "predators");
  const WorldDef p = workload_def(base, c);
  CHECK(p.predators == 1000);
  CHECK(p.kinds[1].behaviour.chase == 1);
  CHECK(p.kinds[0].behaviour.flee_predators == 1);
  CHECK(p.size == Approx(def_for(base, c).size));  // same density as the reference
  const WorldDef o =
      workload_def(base, Config(Variant::grid_simd, 100000, 1, 3, Precision::f32, "obstacles"));
  CHECK(o.spheres.size() == 1000);
  for (const SphereObstacle& s : o.spheres) {
    REQUIRE(s.center.size() == 3);
    for (double x : s.center) CHECK((x >= 0 && x < o.size));
  }
  const WorldDef a =
      workload_def(base, Config(Variant::grid_simd, 10000, 1, 2, Precision::f64, "abm"));
  CHECK(a.profile == Profile::abm);
  CHECK(a.kinds[0].rules.radius == 15);
  // The large model's density, 400 birds in 150 x 150.
  CHECK(double(a.count) / (a.size * a.size) == Approx(400.0 / (150.0 * 150.0)));
  const WorldDef all =
      workload_def(base, Config(Variant::grid_simd, 10000, 1, 3, Precision::f32, "all-behaviours"));
  CHECK(all.predators == 100);
  CHECK(all.leaders == 10);
  CHECK(all.spheres.size() + all.boxes.size() == 24);
  CHECK(all.kinds[0].behaviour.closest_separation > 0);
  CHECK_NOTHROW(World::create(all));
  CHECK_THROWS_WITH(
      workload_def(base, Config(Variant::grid_simd, 100, 1, 3, Precision::f32, "nope")),
      Catch::Contains("unknown workload"));
}

TEST_CASE("workloads: the sweep axis and the ratio to the first workload", "[bench]") {
  SweepSpec s({Variant::grid_simd}, {1000, 10000}, {1}, {3}, {Precision::f32},
              {"obstacles-0", "obstacles"});
  const std::vector<Config> c = expand(s);
  REQUIRE(c.size() == 4);
  CHECK(c[0].workload == "obstacles-0");
  CHECK(c[1].workload == "obstacles");
  CHECK(c[1].count == 1000);
  std::vector<Result> rs(4);
  const double ms[4] = {2, 3, 20, 50};
  for (int i = 0; i < 4; ++i) {
    rs[std::size_t(i)].config = c[std::size_t(i)];
    rs[std::size_t(i)].ms.median = ms[i];
    rs[std::size_t(i)].ms.n = 3;
  }
  derive(rs);
  CHECK(rs[0].ratio_ref == Approx(1.0));
  CHECK(rs[1].ratio_ref == Approx(1.5));
  CHECK(rs[3].ratio_ref == Approx(2.5));
  CHECK(preset("obstacles-10k", 2).sweep.workloads ==
        std::vector<std::string>{"obstacles-0", "obstacles"});
}
