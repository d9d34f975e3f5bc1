// Outcome: leaders and formations look right. Followers of a leader at rest hold a loose,
// evenly spaced group around it; after a formation re-forms, the swarm is spread evenly over
// the sphere (circle) (docs/behaviours.md, "Leaders", "Formation"). Both engines, 2D and 3D.
#include <catch2/catch.hpp>

#include "outcome_support.hpp"
#include "test_support.hpp"

using namespace boids;
using namespace boids::test;

TEST_CASE("a formation re-forms evenly spread around the target after an attack",
          "[outcome][formation]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines(false)) {
      WorldDef d = tiny_def(dims, 60.0, Boundary::reflect, 24);
      d.engine = fl.engine;
      d.precision = fl.precision;
      d.kinds[0].rules.separation = 0.3;
      d.kinds[0].rules.alignment = 0;
      d.kinds[0].rules.cohesion = 0;
      d.kinds[0].behaviour.formation = 2;
      d.formation.radius = 8;
      d.formation.settle_time = 2;
      d.formation.glide_speed = 1.5;
      // Rests 30 s at x = 22, moves 8 s at 2 u/s (+x), rests again at x = 38.
      d.target.position = dims == 2 ? std::vector<double>{22, 30} : std::vector<double>{22, 30, 30};
      d.target.velocity = dims == 2 ? std::vector<double>{2, 0} : std::vector<double>{2, 0, 0};
      d.target.hold = 30;
      d.target.move = 8;
      World w = World::create(d);
      w.step(300 + 80 + 290);  // form, attack, re-form
      const State s = w.state();
      const double t[3] = {38, 30, dims == 3 ? 30.0 : 0.0};
      double c[3] = {0, 0, 0}, worst = 0;
      const double n = double(s.id.size());
      for (std::size_t i = 0; i < s.id.size(); ++i) {
        const Row b = row(s, i);
        double off[3];
        offset3(t, b.p, d.size, false, off);
        worst = std::max(worst, std::abs(norm3(off) - 8));
        for (int k = 0; k < 3; ++k) c[k] += off[k] / n;
      }
      INFO(dims << "D " << fl.name() << ": centre off the target by " << norm3(c)
                << ", max |r - R| " << worst);
      CHECK(norm3(c) < 0.1 * 8);
      CHECK(worst < 0.1 * 8);  // on the sphere (circle)
    }
  }
}

TEST_CASE("followers of a resting leader hold a loose, evenly spaced group around it",
          "[outcome][leader]") {
  for (int dims : {2, 3}) {
    for (const Flavour& fl : both_engines(false)) {
      WorldDef d = tiny_def(dims, 80.0, Boundary::reflect, 21);
      d.engine = fl.engine;
      d.precision = fl.precision;
      d.leaders = 1;
      d.goal = dims == 2 ? std::vector<double>{40, 40} : std::vector<double>{40, 40, 40};
      d.kinds[0].behaviour.follow_leader = 1;
      d.kinds[0].motion.max_speed = 5;  // followers can catch up with a leader at 4
      World w = World::create(d);
      w.step(600);  // the leader arrives at the goal and rests; the followers gather
      const State s = w.state();
      const std::size_t nf = 20;
      const Row leader = row(s, nf);
      double lv = norm3(leader.v);
      double c[3] = {0, 0, 0}, nearest_leader = 1e9, min_nn = 1e9, sum_nn = 0, sum2_nn = 0, far = 0,
             speed = 0;
      for (std::size_t i = 0; i < nf; ++i) {
        const Row a = row(s, i);
        double off[3];
        offset3(leader.p, a.p, d.size, false, off);
        nearest_leader = std::min(nearest_leader, norm3(off));
        far = std::max(far, norm3(off));
        speed = std::max(speed, norm3(a.v));
        for (int k = 0; k < 3; ++k) c[k] += off[k] / double(nf);
        double nn = 1e9;
        for (std::size_t j = 0; j < nf; ++j) {
          if (j == i) continue;
          const Row b = row(s, j);
          double o2[3];
          offset3(a.p, b.p, d.size, false, o2);
          nn = std::min(nn, norm3(o2));
        }
        min_nn = std::min(min_nn, nn);
        sum_nn += nn;
        sum2_nn += nn * nn;
      }
      const double mean_nn = sum_nn / double(nf);
      const double cv =
          std::sqrt(std::max(0.0, sum2_nn / double(nf) - mean_nn * mean_nn)) / mean_nn;
      INFO(dims << "D " << fl.name() << ": leader speed " << lv << ", nearest to leader "
                << nearest_leader << ", farthest " << far << ", nn min " << min_nn << " mean "
                << mean_nn << " cv " << cv << ", centre offset " << norm3(c)
                << ", fastest follower " << speed);
      CHECK(lv < 0.05);             // the leader rests on the goal
      CHECK(nearest_leader > 1.5);  // nobody sits on the leader
      CHECK(min_nn > 1.5);          // no crowding: half the separation radius at least
      CHECK(cv < 0.35);             // evenly spaced
      CHECK(far < 15);              // still a group around the leader
      CHECK(norm3(c) < 0.3 * far);  // around it, not off to one side
      CHECK(speed < 0.1);           // and holding still
    }
  }
}
