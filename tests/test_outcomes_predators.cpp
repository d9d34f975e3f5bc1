// Outcome: predators that can be escaped. In a free chase (nothing scripted) with the default
// chase on, prey that flee keep clearly larger distances from the predators than prey that do
// not (mean over many seeds >= 1.5x), and no predator stays locked onto a prey at zero
// distance (docs/behaviours.md, "Predators and prey"). 2D and 3D, centroid and nearest-prey
// chasing, both engines.
#include <catch2/catch.hpp>

#include "outcome_support.hpp"
#include "test_support.hpp"

using namespace boids;
using namespace boids::test;

namespace {

struct ChaseStats {
  double mean_gap = 0;     // predator -> nearest prey distance, mean over predators and steps
  double locked = 0;       // fraction of predator-steps with a prey nearer than 0.5 u
  double longest_run = 0;  // longest run of consecutive steps a predator spent that near
};

ChaseStats chase(int dims, Flavour fl, ChaseMode mode, bool flee, std::uint64_t seed,
                 int steps = 300) {
  WorldDef d = tiny_def(dims, dims == 2 ? 60.0 : 30.0, Boundary::wrap, dims == 2 ? 122 : 152);
  d.engine = fl.engine;
  d.precision = fl.precision;
  d.seed = seed;
  d.predators = 2;
  d.kinds[1].behaviour.chase_mode = mode;
  REQUIRE(d.kinds[1].behaviour.chase == 1.0);        // the defaults: predators chase ...
  REQUIRE(d.kinds[0].behaviour.flee_predators > 0);  // ... and prey flee
  if (!flee) d.kinds[0].behaviour.flee_predators = 0;
  World w = World::create(d);
  ChaseStats st;
  const int warmup = 50;
  std::vector<int> run(2, 0);
  long samples = 0, near = 0;
  for (int s = 0; s < steps; ++s) {
    w.step();
    if (s < warmup) continue;
    const State cur = w.state();
    for (std::size_t k = 0; k < cur.id.size(); ++k) {
      if (cur.kind[k] != 1) continue;
      const Row pr = row(cur, k);
      double best = 1e300;
      for (std::size_t i = 0; i < cur.id.size(); ++i) {
        if (cur.kind[i] != 0) continue;
        const Row q = row(cur, i);
        double off[3];
        offset3(pr.p, q.p, d.size, true, off);
        best = std::min(best, norm3(off));
      }
      const std::size_t slot = cur.id[k] % 2;
      st.mean_gap += best;
      ++samples;
      if (best < 0.5) {
        ++near;
        st.longest_run = std::max(st.longest_run, double(++run[slot]));
      } else {
        run[slot] = 0;
      }
    }
  }
  st.mean_gap /= double(samples);
  st.locked = double(near) / double(samples);
  return st;
}

}  // namespace

// [slow]: a statistic over many seeded chases (CI's Release stage runs it; the ASan stage checks
// the same chase code through the predator tests that compare bits).
TEST_CASE("prey that flee keep predators at a distance in a free chase",
          "[outcome][predator][slow]") {
  for (int dims : {2, 3}) {
    for (ChaseMode mode : {ChaseMode::centroid, ChaseMode::nearest}) {
      for (const Flavour& fl : both_engines(false)) {
        // The naive engine is O(n^2): fewer seeds there.
        const int seeds = fl.engine == EngineKind::grid ? 6 : 3;
        double on = 0, off = 0, locked = 0, longest = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
          const ChaseStats a = chase(dims, fl, mode, true, std::uint64_t(seed));
          const ChaseStats b = chase(dims, fl, mode, false, std::uint64_t(seed));
          on += a.mean_gap / seeds;
          off += b.mean_gap / seeds;
          locked = std::max(locked, a.locked);
          longest = std::max(longest, a.longest_run);
        }
        INFO(dims << "D " << (mode == ChaseMode::centroid ? "centroid" : "nearest") << " "
                  << fl.name() << ": mean gap flee on " << on << ", off " << off << "; locked "
                  << locked << ", longest lock " << longest << " steps");
        CHECK(on >= 1.5 * off);
        CHECK(locked < 0.05);  // never sitting on a prey for long
        CHECK(longest < 20);
      }
    }
  }
}
