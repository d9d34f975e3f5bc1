// The obstacle avoidance term of behaviour_finish() (docs/behaviours.md, "Obstacles"), shared
// with the grid engine's behaviour lanes (core/behaviour_lanes_impl.hpp), which call it per
// lane: push away within avoid_distance of a surface, and steer sideways when the point
// avoid_distance ahead would be inside or near an obstacle.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/behaviour_math.hpp"
#include "core/model.hpp"
#include "core/obstacles.hpp"
#include "core/vehicles.hpp"

namespace boids::beh {

// Writes the term for a boid at p moving with v (max_speed ms) and returns the smallest
// distance from p to an obstacle surface the look-up found, at most avoid_distance (every
// obstacle not looked at is farther): lets the push-out skip its own look-up when the step
// cannot reach any obstacle (clear_after_step).
template <class Real, int D>
inline Real avoid_term(const ModelParams<Real>& m, const BehaviourParams<Real>& b, const Real* p,
                       const Real* v, Real ms, Real* term) {
  const WorldBehaviour<Real>& w = m.beh;
  Real near_min = b.avoid_distance;
  for (int c = 0; c < D; ++c) term[c] = Real(0);
  // No obstacle near p's cell (most boids): the look-up below would visit nothing.
  if (w.obstacle_grid.none_near(p)) return near_min;
  Real h[3] = {v[0], v[1], D == 3 ? v[2] : Real(0)};
  const bool moving = normalize<Real, D>(h) > Real(0);
  Real probe[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) probe[c] = p[c] + h[c] * b.avoid_distance;
  auto one = [&](Real dist, const Real* n, Real pdist, const Real* pn) {
    if (dist < b.avoid_distance) {
      const Real k = b.avoid * ms * (Real(1) - std::max(dist, Real(0)) / b.avoid_distance);
      for (int c = 0; c < D; ++c) term[c] += k * n[c];
    }
    if (moving && pdist < Real(0.5) * b.avoid_distance && dot<Real, D>(n, h) < Real(0)) {
      Real lat[3] = {0, 0, 0};
      const Real along = dot<Real, D>(pn, h);
      for (int c = 0; c < D; ++c) lat[c] = pn[c] - along * h[c];
      if (!(normalize<Real, D>(lat) > Real(1e-6))) perpendicular<Real, D>(h, lat);
      for (int c = 0; c < D; ++c) term[c] += b.avoid * ms * lat[c];
    }
  };
  // The obstacles of p's grid cell: all within 1.5 avoid_distance of p, so every one that
  // contributes (p within avoid_distance, the probe within half of it), in order.
  w.obstacle_grid.visit(
      p,
      [&](std::uint32_t k) {
        // Neither p within avoid_distance nor the probe within half of it: no contribution.
        if (sphere_beyond<Real, D>(m, w.spheres[k], p, b.avoid_distance) &&
            sphere_beyond<Real, D>(m, w.spheres[k], probe, Real(0.5) * b.avoid_distance))
          return;
        Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
        const Real dist = sphere_distance<Real, D>(m, w.spheres[k], p, n);
        const Real pdist = sphere_distance<Real, D>(m, w.spheres[k], probe, pn);
        near_min = std::min(near_min, dist);
        one(dist, n, pdist, pn);
      },
      [&](std::uint32_t k) {
        Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
        const Real dist = box_distance<Real, D>(m, w.boxes[k], p, n);
        const Real pdist = box_distance<Real, D>(m, w.boxes[k], probe, pn);
        near_min = std::min(near_min, dist);
        one(dist, n, pdist, pn);
      });
  return near_min;
}

}  // namespace boids::beh
