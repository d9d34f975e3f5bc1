// The hard obstacle push-out, resolved together with the world boundary (docs/behaviours.md,
// "Obstacles"): no agent ever ends a step inside an obstacle. Part of core/behaviours.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/behaviour_math.hpp"
#include "core/model.hpp"

namespace boids {
namespace beh {

// Whether p is certainly farther than `reach` (>= 0) from the surface of sphere o, outside
// it: the squared distance to the centre (the offset sphere_distance() computes) against
// (r + reach)^2 with a relative margin far above rounding, so sphere_distance(p) > reach
// whenever this is true. Lets the look-ups skip the square root of the many far spheres.
template <class Real, int D>
BOIDS_BEH_INLINE bool sphere_beyond(const ModelParams<Real>& m, const SphereP<Real>& o,
                                    const Real* p, Real reach) {
  Real d[3] = {0, 0, 0};
  offset<Real, D>(m, o.c, p, d);
  const Real lim = (o.r + reach) * Real(1.001);
  return dot<Real, D>(d, d) > lim * lim;
}

// The smallest signed distance from the point to an obstacle surface (negative inside; +inf
// without obstacles); `n` receives that obstacle's outward normal.
template <class Real, int D>
inline Real deepest_inside(const ModelParams<Real>& m, const Real* p, Real* n) {
  // Only the obstacles of p's grid cell (core/obstacle_grid.hpp): every obstacle within the
  // grid's reach of p, so the result is exact whenever it is below that reach (all callers
  // compare it with 0 or the skin). Spheres farther than the skin are skipped for the same
  // reason: they cannot bring the result below the skin.
  Real best = std::numeric_limits<Real>::infinity();
  const Real skin = Real(16) * std::numeric_limits<Real>::epsilon() * m.size;  // obstacle_skin
  auto take = [&](Real dist, const Real* nn) {
    if (dist < best) {
      best = dist;
      for (int c = 0; c < 3; ++c) n[c] = nn[c];
    }
  };
  m.beh.obstacle_grid.visit(
      p,
      [&](std::uint32_t k) {
        if (sphere_beyond<Real, D>(m, m.beh.spheres[k], p, skin)) return;
        Real nn[3] = {0, 0, 0};
        take(sphere_distance<Real, D>(m, m.beh.spheres[k], p, nn), nn);
      },
      [&](std::uint32_t k) {
        Real nn[3] = {0, 0, 0};
        take(box_distance<Real, D>(m, m.beh.boxes[k], p, nn), nn);
      });
  return best;
}

template <class Real>
inline bool in_world(const ModelParams<Real>& m, Real x) {
  return m.boundary != Boundary::reflect || (x >= Real(0) && x < m.size);
}

template <class Real>
inline Real wrap_coordinate(const ModelParams<Real>& m, Real x) {
  if (m.boundary != Boundary::wrap) return x;
  x -= m.size * std::floor(x * m.inv_size);
  if (x >= m.size) x -= m.size;
  if (x < Real(0)) x = Real(0);
  return x;
}

// The way out of one sphere for a point inside it: along the outward normal to the surface
// plus `extra`. In a reflecting world an exit past a wall is not a way out (the wall would
// put the point back): that axis is held and the point leaves along the other axes instead
// (the normal with that component removed: the exit on the sphere's cut by the wall's plane).
template <class Real, int D>
inline void sphere_exit(const ModelParams<Real>& m, const SphereP<Real>& o, const Real* p,
                        Real extra, Real* q, Real* u) {
  bool held[3] = {false, false, false};
  Real rel[3] = {0, 0, 0};
  offset<Real, D>(m, o.c, p, rel);  // p - c
  for (int round = 0; round <= D; ++round) {
    for (int c = 0; c < D; ++c) u[c] = held[c] ? Real(0) : rel[c];
    if (!(normalize<Real, D>(u) > Real(0))) {
      for (int c = 0; c < D; ++c) u[c] = Real(0);
      int free_axis = 0;
      while (free_axis < D - 1 && held[free_axis]) ++free_axis;
      u[free_axis] = p[free_axis] < Real(0.5) * m.size ? Real(1) : Real(-1);
    }
    // |rel + t u| = r + extra: t = -(rel.u) + sqrt((rel.u)^2 - |rel|^2 + (r + extra)^2).
    const Real ru = dot<Real, D>(rel, u), rr = dot<Real, D>(rel, rel);
    const Real re = o.r + extra;
    const Real t = -ru + std::sqrt(std::max(ru * ru - rr + re * re, Real(0)));
    bool ok = true;
    for (int c = 0; c < D; ++c) {
      q[c] = wrap_coordinate(m, p[c] + t * u[c]);
      if (!in_world(m, q[c])) {
        held[c] = true;
        ok = false;
      }
    }
    if (ok) return;
  }
}

// The way out of one box: through the nearest face whose far side lies inside the world.
template <class Real, int D>
inline void box_exit(const ModelParams<Real>& m, const BoxP<Real>& o, const Real* p, Real extra,
                     Real* q, Real* u) {
  Real ctr[3], rel[3];
  for (int c = 0; c < D; ++c) ctr[c] = Real(0.5) * (o.lo[c] + o.hi[c]);
  offset<Real, D>(m, ctr, p, rel);  // p - centre
  Real best = std::numeric_limits<Real>::infinity(), best_any = best;
  int axis = 0, axis_any = 0;
  Real move_by = 0, move_any = 0;
  for (int c = 0; c < D; ++c) {
    const Real half = Real(0.5) * (o.hi[c] - o.lo[c]);
    for (int side = 0; side < 2; ++side) {
      const Real delta = side == 0 ? half - rel[c] + extra : -(half + rel[c]) - extra;
      const Real cost = std::abs(delta);
      if (cost < best_any) {
        best_any = cost;
        axis_any = c;
        move_any = delta;
      }
      if (cost < best && in_world(m, p[c] + delta)) {
        best = cost;
        axis = c;
        move_by = delta;
      }
    }
  }
  if (!(best < std::numeric_limits<Real>::infinity())) {  // no face leads into the world
    axis = axis_any;
    move_by = move_any;
  }
  for (int c = 0; c < D; ++c) {
    q[c] = p[c];
    u[c] = Real(0);
  }
  q[axis] = wrap_coordinate(m, p[axis] + move_by);
  u[axis] = move_by > Real(0) ? Real(1) : Real(-1);
}

// A point nearer to an obstacle's surface than this counts as inside: distances are
// computed in the state type, and a point left exactly on a surface could round to either
// side. Every way out goes `extra` (> skin) beyond the surface.
template <class Real>
inline Real obstacle_skin(const ModelParams<Real>& m) {
  return Real(16) * std::numeric_limits<Real>::epsilon() * m.size;
}

template <class Real, int D>
inline bool clear_of_obstacles(const ModelParams<Real>& m, const Real* p) {
  Real n[3] = {0, 0, 0};
  if (!(deepest_inside<Real, D>(m, p, n) < obstacle_skin(m))) {
    for (int c = 0; c < D; ++c)
      if (!in_world(m, p[c])) return false;
    return true;
  }
  return false;
}

// Whether q, where a boid moved from p, is certainly clear (push_out would leave it as it
// is), knowing that no obstacle surface is nearer to p than `near` (the avoidance look-up's
// smallest distance: every obstacle of p's grid cell measured, every other one beyond the
// grid's reach, which is more than avoid_distance >= near). Every obstacle is then at least
// near - |q - p| from q, so with margins far above the rounding of the distances (about
// L eps, the skin is 16 L eps) none is within the skin of q. False when unsure: push_out()
// then looks itself. Saves the push-out's look-up for nearly every boid.
template <class Real, int D>
inline bool clear_after_step(const ModelParams<Real>& m, const Real* p, const Real* q, Real near) {
  if (!(near > Real(0))) return false;
  // |q - p| < near less the margins, compared squared (no square root per boid).
  const Real lim = near * Real(0.999) - Real(4) * obstacle_skin(m);
  if (!(lim > Real(0))) return false;
  Real d[3] = {0, 0, 0};
  offset<Real, D>(m, p, q, d);
  if (!(dot<Real, D>(d, d) * Real(1.003) < lim * lim)) return false;
  for (int c = 0; c < D; ++c)
    if (!in_world(m, q[c])) return false;
  return true;
}

// Every way out of the obstacles holding `x`: the sphere exits and every box face leading into
// the world, each `extra` beyond the surface. Appends to `out` (at most `cap` points).
template <class Real, int D>
inline void exits_from(const ModelParams<Real>& m, const Real* x, Real (*out)[3], int& count,
                       int cap) {
  const Real skin = obstacle_skin(m);
  auto extra_for = [&](Real dist) {
    return std::max(Real(1e-4), std::abs(dist) * Real(1e-5)) + Real(2) * skin;
  };
  auto sphere = [&](std::uint32_t k) {
    const SphereP<Real>& o = m.beh.spheres[k];
    Real n[3];
    const Real dist = sphere_distance<Real, D>(m, o, x, n);
    if (!(dist < skin) || count >= cap) return;
    Real u[3] = {0, 0, 0};
    sphere_exit<Real, D>(m, o, x, extra_for(dist), out[count], u);
    ++count;
  };
  auto box = [&](std::uint32_t bi) {
    const BoxP<Real>& o = m.beh.boxes[bi];
    Real n[3];
    const Real dist = box_distance<Real, D>(m, o, x, n);
    if (!(dist < skin)) return;
    const Real extra = extra_for(dist);
    Real ctr[3], rel[3];
    for (int c = 0; c < D; ++c) ctr[c] = Real(0.5) * (o.lo[c] + o.hi[c]);
    offset<Real, D>(m, ctr, x, rel);
    int added = 0;
    for (int c = 0; c < D; ++c) {
      const Real half = Real(0.5) * (o.hi[c] - o.lo[c]);
      for (int side = 0; side < 2 && count < cap; ++side) {
        const Real delta = side == 0 ? half - rel[c] + extra : -(half + rel[c]) - extra;
        if (!in_world(m, x[c] + delta)) continue;
        for (int k = 0; k < D; ++k) out[count][k] = x[k];
        out[count][c] = wrap_coordinate(m, x[c] + delta);
        ++count;
        ++added;
      }
    }
    if (added == 0 && count < cap) {  // no face leads into the world: the nearest one
      Real u[3] = {0, 0, 0};
      box_exit<Real, D>(m, o, x, extra, out[count], u);
      ++count;
    }
  };
  // The obstacles of x's grid cell: every one within the skin of x among them, in order.
  m.beh.obstacle_grid.visit(x, sphere, box);
}

// Resolves the obstacles and the boundary together for a boid the vehicle moved from `p0` to
// `p`. A position inside obstacles goes to the nearest point outside all of them and inside
// the world, searched among the ways out of each obstacle holding it (sphere_exit, every box
// face into the world), and out of the obstacles holding those, up to three levels deep (for
// overlapping obstacles); a position with no way out found goes back to the step's start p0
// (outside every obstacle, by induction), or, when that is inside too (an initial state), to
// the nearest clear point of a probe pattern around it. The inward velocity component along the
// move is removed, except for the turn-rate vehicle (`keep_velocity`), whose heading may only
// change by its turn limit: it keeps its velocity and its steering turns it away (drive()).
template <class Real, int D>
inline void push_out(const ModelParams<Real>& m, const Real* p0, Real* p, Real* v,
                     bool keep_velocity) {
  if (clear_of_obstacles<Real, D>(m, p)) return;
  constexpr int kCap = 48;
  Real level[kCap][3], next[kCap][3];
  int n_level = 1, n_next = 0;
  for (int c = 0; c < 3; ++c) level[0][c] = p[c];
  Real best[3] = {0, 0, 0}, best_d2 = std::numeric_limits<Real>::infinity();
  for (int depth = 0; depth < 3 && n_level > 0; ++depth) {
    n_next = 0;
    for (int i = 0; i < n_level; ++i) {
      Real cand[kCap][3];
      int n_cand = 0;
      exits_from<Real, D>(m, level[i], cand, n_cand, kCap);
      for (int k = 0; k < n_cand; ++k) {
        if (clear_of_obstacles<Real, D>(m, cand[k])) {
          Real dd[3] = {0, 0, 0};
          offset<Real, D>(m, p, cand[k], dd);
          const Real d2 = dot<Real, D>(dd, dd);
          if (d2 < best_d2) {
            best_d2 = d2;
            for (int c = 0; c < D; ++c) best[c] = cand[k][c];
          }
        } else if (n_next < kCap) {
          for (int c = 0; c < 3; ++c) next[n_next][c] = cand[k][c];
          ++n_next;
        }
      }
    }
    if (best_d2 < std::numeric_limits<Real>::infinity()) break;
    for (int i = 0; i < n_next; ++i)
      for (int c = 0; c < 3; ++c) level[i][c] = next[i][c];
    n_level = n_next;
  }
  if (best_d2 < std::numeric_limits<Real>::infinity()) {
    Real u[3] = {0, 0, 0};
    offset<Real, D>(m, p, best, u);
    for (int c = 0; c < D; ++c) p[c] = best[c];
    if (!keep_velocity && normalize<Real, D>(u) > Real(0)) {
      const Real vn = dot<Real, D>(v, u);
      if (vn < Real(0)) {
        for (int c = 0; c < D; ++c) v[c] -= vn * u[c];
      }
    }
    return;
  }
  if (clear_of_obstacles<Real, D>(m, p0)) {
    // Caught between obstacles: the step's move is cancelled (and its velocity, except for
    // the turn-rate vehicle), never ending inside.
    for (int c = 0; c < D; ++c) {
      p[c] = p0[c];
      if (!keep_velocity) v[c] = Real(0);
    }
    return;
  }
  // Started inside too (an initial state): the nearest clear point of a probe pattern, 16
  // directions in 2D and 26 in 3D at distances 1/4, 1/2, 1, ... u.
  for (Real r = Real(0.25); r < Real(2) * m.size; r *= Real(2)) {
    for (int k = 0; k < (D == 2 ? 16 : 27); ++k) {
      Real dir[3] = {0, 0, 0};
      if (D == 2) {
        const double a = 2.0 * 3.14159265358979323846 * k / 16.0;
        dir[0] = Real(std::cos(a));
        dir[1] = Real(std::sin(a));
      } else {
        if (k == 13) continue;  // (0, 0, 0)
        dir[0] = Real(k % 3 - 1);
        dir[1] = Real(k / 3 % 3 - 1);
        dir[2] = Real(k / 9 - 1);
        normalize<Real, 3>(dir);
      }
      Real q[3] = {p[0], p[1], p[2]};
      for (int c = 0; c < D; ++c) q[c] = wrap_coordinate(m, p[c] + r * dir[c]);
      if (clear_of_obstacles<Real, D>(m, q)) {
        for (int c = 0; c < D; ++c) {
          p[c] = q[c];
          if (!keep_velocity) v[c] = Real(0);
        }
        return;
      }
    }
  }
}

}  // namespace beh
}  // namespace boids
