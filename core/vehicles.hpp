// The vehicle models (docs/behaviours.md, "Vehicles"): point mass with a mass, the force
// ellipse, the turn-rate vehicle with its hard turn limit, and the abm profile's velocity
// rule. They turn a boid's total steering force into its new velocity and position. Part of
// core/behaviours.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/behaviour_math.hpp"
#include "core/model.hpp"
#include "core/obstacles.hpp"

namespace boids {

namespace beh {

// Per-boid limits and hints the terms hand to the vehicle: this step's speed limits (the
// escape boost raises max_speed, arrival lowers min_speed) and the arrival point, which the
// turn-rate vehicle uses to slow down.
template <class Real>
struct DriveHint {
  Real max_speed = 0, min_speed = 0;
  bool arriving = false;
  Real arrive_speed = 0;          // desired arrival speed at p
  Real arrive_to[3] = {0, 0, 0};  // offset from p to the arrival point
};

// What drive() does to the new velocity after the vehicle and the speed limits, before the
// position step: nothing (NoTurn), or rules.noise's random turn (noise::NoiseTurn,
// core/profile_vicsek.hpp). With NoTurn every path is the one it was without the hook.
struct NoTurn {
  static constexpr bool none = true;
  template <class Real>
  void operator()(Real*) const {}
};

// move_limited() with the speed limits, then `turn`, then the position step.
template <class Real, int D, class Turn>
inline void move_turned(const ModelParams<Real>& m, Real max_speed, Real min_speed, const Real* p,
                        Real* nv, const Turn& turn, Real* p_out, Real* v_out) {
  if constexpr (Turn::none) {
    move_limited<Real, D>(m, max_speed, min_speed, p, nv, true, p_out, v_out);
  } else {
    clamp_speed<Real, D>(max_speed, min_speed, nv);
    turn(nv);
    move_limited<Real, D>(m, max_speed, min_speed, p, nv, false, p_out, v_out);
  }
}

// A unit vector perpendicular to unit h (deterministic), in double.
template <int D>
inline void perpendicular_d(const double* h, double* out) {
  if (D == 2) {
    out[0] = -h[1];
    out[1] = h[0];
    out[2] = 0;
    return;
  }
  int a = 0;
  for (int c = 1; c < 3; ++c) {
    if (std::abs(h[c]) < std::abs(h[a])) a = c;
  }
  double e[3] = {0, 0, 0};
  e[a] = 1;
  out[0] = h[1] * e[2] - h[2] * e[1];
  out[1] = h[2] * e[0] - h[0] * e[2];
  out[2] = h[0] * e[1] - h[1] * e[0];
  const double n = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  for (int c = 0; c < 3; ++c) out[c] /= n;
}

// A unit vector perpendicular to unit h (deterministic).
template <class Real, int D>
inline void perpendicular(const Real* h, Real* out) {
  double hd[3] = {double(h[0]), double(h[1]), D == 3 ? double(h[2]) : 0.0}, o[3];
  perpendicular_d<D>(hd, o);
  for (int c = 0; c < D; ++c) out[c] = Real(o[c]);
}

// The turn-rate vehicle. Its heading h turns toward the desired direction d (that of
// v + F * 1 s) by at most the limit, computed in double and aimed a few ulps of Real short
// of it, so the stored (rounded) velocities never turn by more than turn_rate * dt. A
// reflecting wall or an obstacle just ahead bends d into h mirrored at the wall or the
// surface; the wall then stops the boid (the position is clamped inside, the velocity is not
// flipped) and an obstacle's push-out moves only the position: neither turns the heading.
template <class Real, int D, class Turn = NoTurn>
inline void drive_turn_rate(const ModelParams<Real>& m, const KindParams<Real>& kp,
                            const DriveHint<Real>& hint, const Real* p, const Real* v,
                            const Real* force, Real* p_out, Real* v_out, const Turn& turn = {}) {
  const BehaviourParams<Real>& b = kp.beh;
  double h[3] = {0, 0, 0}, d[3] = {0, 0, 0};
  double speed = 0, dn = 0;
  for (int c = 0; c < D; ++c) {
    h[c] = double(v[c]);
    d[c] = double(v[c]) + double(force[c]);
    speed += h[c] * h[c];
    dn += d[c] * d[c];
  }
  speed = std::sqrt(speed);
  dn = std::sqrt(dn);
  for (int c = 0; c < D; ++c) {
    if (speed > 0) h[c] /= speed;
    if (dn > 0) d[c] /= dn;
  }
  double nh[3] = {h[0], h[1], h[2]};
  const double ms = double(hint.max_speed);
  if (!(speed > 0)) {
    // At rest a boid has no heading: it starts in the desired direction.
    if (dn > 0) {
      for (int c = 0; c < D; ++c) nh[c] = d[c];
    } else {
      nh[0] = 1;
    }
  } else {
    // Contact ahead: mirror the heading at the wall / the surface it would cross.
    Real ahead[3] = {0, 0, 0};
    bool mirrored = false;
    for (int c = 0; c < D; ++c) ahead[c] = Real(double(p[c]) + h[c] * ms * double(m.dt));
    if (m.boundary == Boundary::reflect) {
      for (int c = 0; c < D; ++c) {
        if ((ahead[c] < Real(0) && h[c] < 0) || (ahead[c] >= m.size && h[c] > 0)) {
          if (!mirrored) {
            for (int k = 0; k < D; ++k) d[k] = h[k];
          }
          d[c] = -h[c];
          mirrored = true;
        }
      }
    }
    if (!mirrored && m.beh.obstacles) {
      for (int c = 0; c < D; ++c) ahead[c] = wrap_coordinate(m, ahead[c]);
      Real n[3] = {0, 0, 0};
      if (deepest_inside<Real, D>(m, ahead, n) < Real(0)) {
        double hn = 0;
        for (int c = 0; c < D; ++c) hn += h[c] * double(n[c]);
        if (hn < 0) {
          for (int c = 0; c < D; ++c) d[c] = h[c] - 2 * hn * double(n[c]);
        }
      }
    }
    double cosang = 0;
    for (int c = 0; c < D; ++c) cosang += h[c] * d[c];
    double perp[3] = {0, 0, 0}, pn = 0;
    for (int c = 0; c < D; ++c) {
      perp[c] = d[c] - cosang * h[c];
      pn += perp[c] * perp[c];
    }
    pn = std::sqrt(pn);
    const double ang = std::atan2(pn, cosang);
    const double limit = b.turn_per_step - 8.0 * double(std::numeric_limits<Real>::epsilon());
    if (dn > 0 && ang > limit) {
      if (pn > 1e-12) {
        for (int c = 0; c < D; ++c) perp[c] /= pn;
        // Re-orthogonalise: for near-opposite d, perp carries the rounding of cosang * h.
        double ph = 0, n2 = 0;
        for (int c = 0; c < D; ++c) ph += perp[c] * h[c];
        for (int c = 0; c < D; ++c) {
          perp[c] -= ph * h[c];
          n2 += perp[c] * perp[c];
        }
        for (int c = 0; c < D; ++c) perp[c] /= std::sqrt(n2);
      } else {
        perpendicular_d<D>(h, perp);
      }
      const double a = std::max(limit, 0.0);
      const double ca = std::cos(a), sa = std::sin(a);
      for (int c = 0; c < D; ++c) nh[c] = ca * h[c] + sa * perp[c];
    } else if (dn > 0) {
      for (int c = 0; c < D; ++c) nh[c] = d[c];
    }
  }
  // Speed: max_speed, or while arriving the arrival speed, reduced while the arrival point is
  // not ahead (down to 5 % when it is abeam or behind) so the boid turns in instead of
  // circling it.
  double sp = ms;
  if (hint.arriving) {
    double to[3] = {0, 0, 0}, tn = 0, cosg = 0;
    for (int c = 0; c < D; ++c) {
      to[c] = double(hint.arrive_to[c]);
      tn += to[c] * to[c];
    }
    tn = std::sqrt(tn);
    for (int c = 0; c < D; ++c) cosg += tn > 0 ? nh[c] * to[c] / tn : 0;
    sp = std::min(ms, double(hint.arrive_speed)) * std::max(cosg, 0.05);
  }
  Real nv[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) nv[c] = Real(nh[c] * sp);
  turn(nv);
  for (int c = 0; c < D; ++c) {
    Real x = p[c] + nv[c] * m.dt;
    if (m.boundary == Boundary::wrap) {
      x = wrap_coordinate(m, x);
    } else if (m.boundary == Boundary::reflect) {
      if (x < Real(0)) x = Real(0);
      if (x >= m.size) x = m.below_size;
    }
    p_out[c] = x;
    v_out[c] = nv[c];
  }
}

// The vehicle models: total steering force -> new velocity and position. `turn` acts on the
// new velocity after the speed limits, before the position step (NoTurn: nothing).
template <class Real, int D, class Turn = NoTurn>
inline void drive(const ModelParams<Real>& m, const KindParams<Real>& kp,
                  const DriveHint<Real>& hint, const Real* p, const Real* v, Real* force,
                  Real* p_out, Real* v_out, const Turn& turn = {}) {
  const BehaviourParams<Real>& b = kp.beh;
  Real nv[3] = {0, 0, 0};
  if (b.vehicle == Vehicle::turn_rate) {
    drive_turn_rate<Real, D>(m, kp, hint, p, v, force, p_out, v_out, turn);
    return;
  }
  if (b.vehicle == Vehicle::point_mass) {
    const bool plain = hint.max_speed == kp.max_speed && hint.min_speed == kp.min_speed;
    if (b.inv_mass == Real(1) && plain) {
      if constexpr (Turn::none) {
        integrate<Real, D>(m, kp, p, v, force, p_out, v_out);
      } else {
        // integrate()'s clamp and velocity, the same operations.
        Real f2 = 0;
        for (int c = 0; c < D; ++c) f2 += force[c] * force[c];
        if (f2 > kp.max_force * kp.max_force) {
          const Real scale = kp.max_force / std::sqrt(f2);
          for (int c = 0; c < D; ++c) force[c] *= scale;
        }
        for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * m.dt;
        move_turned<Real, D>(m, kp.max_speed, kp.min_speed, p, nv, turn, p_out, v_out);
      }
      return;
    }
    const Real f = norm<Real, D>(force);
    const Real scale = f > kp.max_force ? kp.max_force / f : Real(1);
    for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * scale * b.inv_mass * m.dt;
    move_turned<Real, D>(m, hint.max_speed, hint.min_speed, p, nv, turn, p_out, v_out);
    return;
  }
  Real h[3] = {v[0], v[1], D == 3 ? v[2] : Real(0)};
  const Real speed = normalize<Real, D>(h);
  if (!(speed > Real(0))) {
    for (int c = 0; c < D; ++c) h[c] = force[c];
    if (!(normalize<Real, D>(h) > Real(0))) h[0] = Real(1);
  }
  const Real fl = dot<Real, D>(force, h);
  Real ft[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) ft[c] = force[c] - fl * h[c];
  const Real ft2 = dot<Real, D>(ft, ft);
  // Polar (centre) form of the ellipse: scale F back onto it when it lies outside.
  const Real along = fl >= Real(0) ? b.accel : b.brake;  // both > 0 (check_def)
  const Real lat =
      b.lateral * std::max(Real(1) - b.lateral_falloff * speed / kp.max_speed, Real(1e-3));
  const Real e = (fl / along) * (fl / along) + ft2 / (lat * lat);
  const Real scale = e > Real(1) ? Real(1) / std::sqrt(e) : Real(1);
  for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * scale * b.inv_mass * m.dt;
  move_turned<Real, D>(m, hint.max_speed, hint.min_speed, p, nv, turn, p_out, v_out);
}

// The abm profile's velocity rule (Agents.jl flocking / ABM framework comparison):
// v' = normalize((v^ + coh + sep + match) / 2) * speed, with v^ = v / speed,
// coh = w_coh * sum(d) / N, sep = w_sep * sum(-d, |d| < r_s) / N, match = w_ali * sum(v^_j) / N.
template <class Real, int D>
inline void abm_update(const ModelParams<Real>& m, const KindParams<Real>& kp,
                       const FlockSums<Real>& s, const Real* p, const Real* v, Real* p_out,
                       Real* v_out, ForceRecorder* rec) {
  const Real speed = kp.max_speed;
  const Real inv_speed = Real(1) / speed;
  const Real inv_n = Real(1) / Real(std::max<std::int32_t>(s.k, 1));
  Real coh[3] = {0, 0, 0}, sep[3] = {0, 0, 0}, mat[3] = {0, 0, 0}, nv[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) {
    coh[c] = s.d[c] * inv_n * kp.w_coh;
    sep[c] = s.sep[c] * inv_n * kp.w_sep;
    mat[c] = s.v[c] * inv_speed * inv_n * kp.w_ali;
    nv[c] = (v[c] * inv_speed + coh[c] + sep[c] + mat[c]) / Real(2);
  }
  if (rec) {
    rec->add("cohesion", coh, D);
    rec->add("separation", sep, D);
    rec->add("alignment", mat, D);
  }
  if (!(normalize<Real, D>(nv) > Real(0))) {
    for (int c = 0; c < D; ++c) nv[c] = v[c] * inv_speed;
  }
  for (int c = 0; c < D; ++c) nv[c] *= speed;
  move<Real, D>(m, kp, p, nv, false, p_out, v_out);
}

}  // namespace beh
}  // namespace boids
