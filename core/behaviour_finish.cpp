// behaviour_finish() (declared in core/model.hpp): the behaviour path of finish_boid(), every
// active term of the boid's kind in a fixed order, the vehicle, then the obstacle push-out.
// `rec` (explain_forces) receives each named term. The terms that look at other kinds are in
// core/behaviour_kinds.hpp. Compiled once here for float and double, 2D and 3D.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/behaviour_avoid.hpp"
#include "core/behaviour_kinds.hpp"
#include "core/behaviour_math.hpp"
#include "core/behaviour_steer.hpp"
#include "core/model.hpp"
#include "core/obstacles.hpp"
#include "core/profile_vicsek.hpp"
#include "core/vehicles.hpp"

namespace boids {

template <class Real, int D>
void behaviour_finish(const ModelParams<Real>& m, const StepContext<Real>& ctx, std::uint8_t kind,
                      std::uint32_t id, const FlockSums<Real>& sums, const Real* p, const Real* v,
                      Real* p_out, Real* v_out, ForceRecorder* rec) {
  using namespace beh;
  const KindParams<Real>& kp = m.kind[kind];
  const BehaviourParams<Real>& b = kp.beh;
  const BehaviourContext<Real>& bc = ctx.beh;
  const WorldBehaviour<Real>& w = m.beh;

  if (kind == 0 && w.profile == Profile::abm) {
    abm_update<Real, D>(m, kp, sums, p, v, p_out, v_out, rec);
    if (w.obstacles) push_out<Real, D>(m, p, p_out, v_out, false);
    return;
  }
  // The vicsek profile, and rules.noise in the plain standard model (core/profile_vicsek.hpp).
  // With steering behaviours, obstacles, predators or leaders the noise turns the velocity
  // the vehicle made (drive() below).
  const bool noise = kind == 0 && kp.noise > 0;
  if (kind == 0 && (w.profile == Profile::vicsek || (noise && !b.active && !w.obstacles &&
                                                     bc.predators.empty() && bc.leaders.empty()))) {
    noise::noisy_finish<Real, D>(m, ctx, kp, id, sums, p, v, p_out, v_out);
    return;
  }

  Steer<Real, D> st(kp, p, v, rec);
  Real* force = st.force;
  Real* term = st.term;
  auto add = [&](const char* name) { st.add(name); };
  auto arriving = [&](Real speed, const Real* to) { st.arriving(speed, to); };
  const Real ms = st.ms;
  // The three rules, with the threshold variant of cohesion.
  if (sums.k > 0) {
    const Real inv_k = Real(1) / Real(sums.k);
    for (int c = 0; c < D; ++c) term[c] = kp.w_sep * sums.sep[c];
    add("separation");
    for (int c = 0; c < D; ++c) term[c] = kp.w_ali * (sums.v[c] * inv_k - v[c]);
    add("alignment");
    Real coh[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) coh[c] = sums.d[c] * inv_k;
    const bool far = !(b.cohesion_max2 > Real(0)) || dot<Real, D>(coh, coh) > b.cohesion_max2;
    for (int c = 0; c < D; ++c) term[c] = far ? kp.w_coh * coh[c] : Real(0);
    add("cohesion");
  }
  // Threshold separation from the single closest neighbour.
  if (b.closest_separation != Real(0) && sums.near_d2 < b.closest_min2 && sums.near_d2 > Real(0)) {
    Real away[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) away[c] = -sums.near_d[c];
    seek_dir<Real, D>(b.closest_separation, away, ms, v, term);
    add("closest_separation");
  }
  // Simplified rules: global centre and destination direction.
  if (b.global_cohesion != Real(0)) {
    Real to[3] = {0, 0, 0};
    offset<Real, D>(m, p, bc.centre[kind], to);
    const bool far = !(b.cohesion_max2 > Real(0)) || dot<Real, D>(to, to) > b.cohesion_max2;
    for (int c = 0; c < D; ++c) term[c] = far ? b.global_cohesion * to[c] : Real(0);
    add("global_cohesion");
  }
  if (b.destination_alignment != Real(0)) {
    seek_dir<Real, D>(b.destination_alignment, bc.dest_dir[kind], ms, v, term);
    add("destination_alignment");
  }
  // Goal seeking and arrival. The turn-rate vehicle sets its arrival speed itself (drive):
  // its arrival term only steers the heading toward the point, without the -v of braking.
  const Real zero_v[3] = {0, 0, 0};
  const Real* v_arr = b.vehicle == Vehicle::turn_rate ? zero_v : v;
  const Real brake_acc = (b.vehicle == Vehicle::ellipse ? b.accel : kp.max_force) * b.inv_mass;
  if (b.seek != Real(0) || b.arrive != Real(0)) {
    Real to[3] = {0, 0, 0};
    offset<Real, D>(m, p, w.goal, to);
    if (b.seek != Real(0)) {
      seek_dir<Real, D>(b.seek, to, ms, v, term);
      add("seek");
    }
    if (b.arrive != Real(0)) {
      arriving(arrive_to<Real, D>(b.arrive, b.mass, to, ms, brake_acc, m.dt, v_arr, term), to);
      add("arrive");
    }
  }
  // Flee / pursue / evade the target.
  if (b.flee != Real(0) || b.pursue != Real(0) || b.evade != Real(0)) {
    Real to[3] = {0, 0, 0};
    offset<Real, D>(m, p, bc.target_p, to);
    if (b.flee != Real(0)) {
      if (!(b.flee_radius2 > Real(0)) || dot<Real, D>(to, to) < b.flee_radius2) {
        Real away[3] = {-to[0], -to[1], D == 3 ? -to[2] : Real(0)};
        seek_dir<Real, D>(b.flee, away, ms, v, term);
      } else {
        for (int c = 0; c < D; ++c) term[c] = Real(0);
      }
      add("flee");
    }
    if (b.pursue != Real(0) || b.evade != Real(0)) {
      const Real t = norm<Real, D>(to) / ms;
      Real pred[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) pred[c] = to[c] + bc.target_v[c] * t;
      if (b.pursue != Real(0)) {
        seek_dir<Real, D>(b.pursue, pred, ms, v, term);
        add("pursue");
      }
      if (b.evade != Real(0)) {
        Real away[3] = {-pred[0], -pred[1], D == 3 ? -pred[2] : Real(0)};
        seek_dir<Real, D>(b.evade, away, ms, v, term);
        add("evade");
      }
    }
  }
  // Wander: a point on a circle/sphere of radius R at distance L ahead, its direction a smooth
  // (smoothstep) blend of random unit vectors drawn every wander_period seconds.
  if (b.wander != Real(0)) {
    Real h[3] = {v[0], v[1], D == 3 ? v[2] : Real(0)};
    if (!(normalize<Real, D>(h) > Real(0))) h[0] = Real(1);
    const double tt = double(ctx.step) * double(m.dt) / b.wander_period;
    const double kf = std::floor(tt);
    const Real f = Real(tt - kf);
    const Real sm = f * f * (Real(3) - Real(2) * f);
    const std::uint64_t key = std::uint64_t(kf);
    Real u0[3] = {0, 0, 0}, u1[3] = {0, 0, 0}, u[3] = {0, 0, 0};
    const std::uint64_t stream = random_stream(ctx.seed, id, kStreamWander);
    wander_key<Real, D>(stream, key, u0);
    wander_key<Real, D>(stream, key + 1, u1);
    for (int c = 0; c < D; ++c) u[c] = u0[c] + (u1[c] - u0[c]) * sm;
    if (!(normalize<Real, D>(u) > Real(0))) {
      for (int c = 0; c < D; ++c) u[c] = u0[c];
    }
    Real tgt[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) tgt[c] = h[c] * b.wander_distance + u[c] * b.wander_radius;
    seek_dir<Real, D>(b.wander, tgt, ms, v, term);
    add("wander");
  }
  if (b.follow_leader != Real(0) && kind != 2 && !bc.leaders.empty())
    follow_leader_term<Real, D>(m, kp, bc, id, v_arr, brake_acc, st);
  if (kind == 0 && b.flee_predators != Real(0) && !bc.predators.empty())
    flee_predators_term<Real, D>(m, kp, bc, st);
  if (kind == 0 && b.evade_predators != Real(0) && !bc.predators.empty())
    evade_predators_term<Real, D>(m, kp, bc, st);
  if (kind == 1 && b.chase != Real(0)) chase_term<Real, D>(kp, bc, id, st);
  // Obstacle avoidance: push away within avoid_distance of a surface, and steer sideways
  // when the point avoid_distance ahead would be inside or near an obstacle.
  // The smallest distance from p to an obstacle surface the look-up found, at most
  // avoid_distance (every obstacle not looked at is farther): lets the push-out below skip
  // its own look-up when the step cannot reach any obstacle (clear_after_step).
  Real near_min = -std::numeric_limits<Real>::infinity();
  if (b.avoid != Real(0) && w.obstacles) {
    near_min = avoid_term<Real, D>(m, b, p, v, ms, term);
    add("avoid");
  }
  // Containment: steer back within containment_margin of a wall (not in wrapping worlds).
  if (b.containment != Real(0) && m.boundary != Boundary::wrap) {
    const Real mg = b.containment_margin;
    for (int c = 0; c < D; ++c) {
      term[c] = Real(0);
      if (p[c] < mg) term[c] = b.containment * ms * (mg - p[c]) / mg;
      if (p[c] > m.size - mg) term[c] = -b.containment * ms * (p[c] - (m.size - mg)) / mg;
    }
    add("containment");
  }
  // Sphere formation around the target, or attack while the target moves.
  if (b.formation != Real(0)) {
    Real to[3] = {0, 0, 0};
    offset<Real, D>(m, p, bc.target_p, to);
    if (bc.target_moving) {
      seek_dir<Real, D>(b.formation, to, ms, v, term);
      add("attack");
    } else {
      Real r[3] = {-to[0], -to[1], D == 3 ? -to[2] : Real(0)};
      const Real dist = normalize<Real, D>(r);
      if (!(dist > Real(0))) {
        for (int c = 0; c < D; ++c) r[c] = Real(c == 0);
      }
      const Real radial = std::clamp((w.formation_radius - dist) / w.formation_settle, -ms, ms);
      const Real vr = dot<Real, D>(v, r);
      Real tg[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) tg[c] = v[c] - vr * r[c];
      const Real tn = normalize<Real, D>(tg);
      // Spreading: every boid moves along the surface away from the side where the kind's
      // centre lies, at 2 (centre offset) / settle_time, so the swarm covers the sphere evenly
      // (the centre returns to the target) instead of staying bunched after an attack.
      Real sc[3] = {0, 0, 0};
      offset<Real, D>(m, bc.target_p, bc.centre[kind], sc);  // centre - target
      const Real scr = dot<Real, D>(sc, r);
      Real des[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c)
        des[c] = r[c] * radial + (tn > Real(0) ? tg[c] * w.formation_glide : Real(0)) -
                 Real(2) * (sc[c] - scr * r[c]) / w.formation_settle;
      steer_to<Real, D>(b.formation, des, v, term);
      add("formation");
    }
  }

  if (rec) {
    for (int c = 0; c < D; ++c) rec->total[c] = double(force[c]);
  }
  if (noise) {
    drive<Real, D>(m, kp, st.hint, p, v, force, p_out, v_out,
                   noise::NoiseTurn<Real, D>{kp.noise, ctx.seed, id, ctx.step});
  } else {
    drive<Real, D>(m, kp, st.hint, p, v, force, p_out, v_out);
  }
  if (w.obstacles && !clear_after_step<Real, D>(m, p, p_out, near_min))
    push_out<Real, D>(m, p, p_out, v_out, b.vehicle == Vehicle::turn_rate);
}

#define BOIDS_BEHAVIOUR_FINISH(Real, D)                                                        \
  template void behaviour_finish<Real, D>(const ModelParams<Real>&, const StepContext<Real>&,  \
                                          std::uint8_t, std::uint32_t, const FlockSums<Real>&, \
                                          const Real*, const Real*, Real*, Real*, ForceRecorder*);
BOIDS_BEHAVIOUR_FINISH(float, 2)
BOIDS_BEHAVIOUR_FINISH(float, 3)
BOIDS_BEHAVIOUR_FINISH(double, 2)
BOIDS_BEHAVIOUR_FINISH(double, 3)
#undef BOIDS_BEHAVIOUR_FINISH

}  // namespace boids
