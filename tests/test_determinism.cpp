// Bit-identical results: for every thread count, for the host's own parallel-for, for every
// kernel instruction set (scalar included: see core/kernels.hpp for why that holds), and after
// reloading a state mid-run.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/kernels.hpp"
#include "test_support.hpp"

using namespace boids;

namespace {

WorldDef flock_def(Precision prec, int threads) {
  WorldDef d = default_world_def();
  d.count = 3000;
  d.size = 100.0 * std::cbrt(0.3);  // default density: ~30 neighbours
  d.precision = prec;
  d.threads = threads;
  return d;
}

std::uint64_t hash_after(const WorldDef& d, int steps) {
  World w = test::create_checked(d);  // the grid with the dispatched kernel, not a fallback
  w.step(steps);
  return w.state_hash();
}

// A host parallel-for on plain std::threads, splitting the range unevenly on purpose.
void host_pfor(ParallelForTask task, void* ctx, std::size_t count, std::size_t grain, void*) {
  std::vector<std::thread> threads;
  std::size_t begin = 0, part = 0;
  while (begin < count) {
    const std::size_t len = std::max<std::size_t>(1, grain * (1 + part % 3));
    const std::size_t end = std::min(count, begin + len);
    threads.emplace_back([=] { task(begin, end, ctx); });
    begin = end;
    ++part;
    if (threads.size() == 4) {
      for (auto& t : threads) t.join();
      threads.clear();
    }
  }
  for (auto& t : threads) t.join();
}

}  // namespace

TEST_CASE("grid state hash is identical for 1, 2, 3, 4 and 8 threads", "[grid][parallel]") {
  // Wrap in float and double, open (bounding-box grid) in float: kept small for TSan.
  const std::pair<Precision, Boundary> cases[] = {{Precision::f32, Boundary::wrap},
                                                  {Precision::f64, Boundary::wrap},
                                                  {Precision::f32, Boundary::open}};
  for (auto [prec, b] : cases) {
    WorldDef d = flock_def(prec, 1);
    d.count = 2000;
    d.boundary = b;
    const int steps = test::steps_or_sanitized(100, 25);
    const std::uint64_t h1 = hash_after(d, steps);
    for (int t : {2, 3, 4, 8}) {
      d.threads = t;
      INFO("threads " << t << " f64 " << (prec == Precision::f64) << " open "
                      << (b == Boundary::open));
      CHECK(hash_after(d, steps) == h1);
    }
  }
}

TEST_CASE("the host parallel-for gives the same hash as the engine's own threads",
          "[grid][parallel]") {
  WorldDef d = flock_def(Precision::f32, 1);
  const std::uint64_t h1 = hash_after(d, 30);
  d.host_parallel_for = &host_pfor;
  CHECK(hash_after(d, 30) == h1);
}

TEST_CASE("every kernel instruction set, scalar included, gives the same bits", "[grid]") {
  // Holds by construction (core/kernels.hpp): same virtual lanes, same reduction tree, integer
  // neighbour counts, no FMA, correctly rounded operations; the SIMD finish (FinishRow) against
  // the scalar finish_boid in every boundary mode. BOIDS_MAX_ISA caps the dispatch for this
  // test; each world must report the instruction set asked for (an ISA this CPU or build lacks
  // is reported as skipped by name, never run silently on a smaller one).
  const std::vector<Isa> isas = test::testable_isas();
  REQUIRE(!isas.empty());
  REQUIRE(isas.front() == Isa::scalar);
  for (Precision prec : {Precision::f32, Precision::f64}) {
    for (int dims : {2, 3}) {
      for (Boundary boundary : {Boundary::wrap, Boundary::reflect, Boundary::open}) {
        WorldDef d = flock_def(prec, 1);
        d.dims = dims;
        d.count = dims == 2 ? 1500 : 3000;
        d.boundary = boundary;
        // The cone path in one mode; all around (the default) in the others.
        if (boundary == Boundary::wrap)
          for (auto& k : d.kinds) k.rules.view_angle = 300;
        d.simd = false;
        World ws = test::create_checked(d);
        REQUIRE(engine_of(ws).kernel_name() == "scalar");
        ws.step(20);
        const std::uint64_t scalar = ws.state_hash();
        d.simd = true;
        for (Isa isa : isas) {
          test::MaxIsaScope cap(isa);
          INFO("isa " << isa_name(isa) << " " << dims << "D f64 " << (prec == Precision::f64)
                      << " boundary " << int(boundary));
          World w = test::create_checked(d);
          REQUIRE(engine_of(w).kernel_name() == isa_name(isa));
          w.step(20);
          CHECK(w.state_hash() == scalar);
        }
      }
    }
  }
}

TEST_CASE("reloading a state mid-run continues bit-identically", "[grid]") {
  WorldDef d = flock_def(Precision::f32, 1);
  World a = test::create_checked(d);
  a.step(40);
  World b = test::create_checked(d);
  b.step(20);
  World c = test::create_checked(d);
  c.set_state(b.state());  // id order in, cell order rebuilt from it
  c.step(20);
  CHECK(c.state_hash() == a.state_hash());
}
