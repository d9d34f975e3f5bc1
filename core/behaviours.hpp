// The steering behaviours, vehicles and profiles (docs/behaviours.md), as scalar templates
// shared by both engines through prepare_step() and finish_boid() of core/model.hpp, and by
// explain_forces() (core/explain.cpp) through the ForceRecorder hook.
//
// Included at the end of core/model.hpp; do not include it directly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/behaviour_math.hpp"
#include "core/model.hpp"
#include "core/obstacles.hpp"
#include "core/profile_vicsek.hpp"
#include "core/rng.hpp"
#include "core/vehicles.hpp"

namespace boids {

/// Per-step data of the behaviours: target state, global centres, the predators and leaders
/// sorted by id, and each predator's view of the prey. Serial, O(n) plus O(n * predators)
/// when predators chase; independent of the store's slot order except for the rounding of
/// double sums.
template <class Real>
void prepare_behaviours(const ModelParams<Real>& m, const BoidStore<Real>& s,
                        StepContext<Real>& ctx) {
  BehaviourContext<Real>& b = ctx.beh;
  const WorldBehaviour<Real>& w = m.beh;
  const int D = m.dims;
  // Specials: one pass over the kind bytes; nothing else when there are none.
  for (std::size_t i = 0; i < s.n; ++i) {
    const std::uint8_t k = s.kind[i];
    if (k == 0) continue;
    SpecialAgent<Real> a;
    a.id = s.id[i];
    for (int c = 0; c < D; ++c) {
      a.p[c] = s.p[c][i];
      a.v[c] = s.v[c][i];
    }
    (k == 1 ? b.predators : b.leaders).push_back(a);
  }
  b.active = w.any_kind_active || w.obstacles || !b.predators.empty() || !b.leaders.empty();
  if (!b.active) return;
  auto by_id = [](const SpecialAgent<Real>& x, const SpecialAgent<Real>& y) { return x.id < y.id; };
  std::sort(b.predators.begin(), b.predators.end(), by_id);
  std::sort(b.leaders.begin(), b.leaders.end(), by_id);

  // Target script at the time of this step.
  {
    double p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    beh::target_at(w.target_p0, w.target_v, w.target_hold, w.target_move,
                   double(ctx.step) * double(m.dt), D, p, v);
    double speed2 = 0;
    for (int c = 0; c < D; ++c) {
      if (m.boundary == Boundary::wrap) p[c] -= double(m.size) * std::floor(p[c] / double(m.size));
      b.target_p[c] = Real(p[c]);
      b.target_v[c] = Real(v[c]);
      speed2 += v[c] * v[c];
    }
    b.target_moving = std::sqrt(speed2) > double(w.attack_speed);
  }

  // Global centre of each kind: arithmetic mean, or the circular mean per axis when wrapping.
  if (w.need_centre) {
    double sum[kKindCount][3][2] = {};
    std::size_t cnt[kKindCount] = {};
    const double L = double(m.size), tau = 2.0 * 3.14159265358979323846;
    for (std::size_t i = 0; i < s.n; ++i) {
      const int k = s.kind[i];
      ++cnt[k];
      for (int c = 0; c < D; ++c) {
        const double x = double(s.p[c][i]);
        if (m.boundary == Boundary::wrap) {
          sum[k][c][0] += std::cos(tau * x / L);
          sum[k][c][1] += std::sin(tau * x / L);
        } else {
          sum[k][c][0] += x;
        }
      }
    }
    for (int k = 0; k < kKindCount; ++k) {
      if (cnt[k] == 0) continue;
      Real dir[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) {
        double x;
        if (m.boundary == Boundary::wrap) {
          x = L * std::atan2(sum[k][c][1], sum[k][c][0]) / tau;
          if (x < 0) x += L;
          if (x >= L) x = 0;
        } else {
          x = sum[k][c][0] / double(cnt[k]);
        }
        b.centre[k][c] = Real(x);
      }
      if (D == 2)
        beh::offset<Real, 2>(m, b.centre[k], w.goal, dir);
      else
        beh::offset<Real, 3>(m, b.centre[k], w.goal, dir);
      Real n2 = 0;
      for (int c = 0; c < D; ++c) n2 += dir[c] * dir[c];
      if (n2 > Real(0)) {
        const Real inv = Real(1) / std::sqrt(n2);
        for (int c = 0; c < D; ++c) b.dest_dir[k][c] = dir[c] * inv;
      }
    }
  }

  // The predators in cells for the prey's look-ups (flee/evade predators).
  const BehaviourParams<Real>& b0 = m.kind[0].beh;
  if (!b.predators.empty() && (b0.flee_predators != Real(0) || b0.evade_predators != Real(0))) {
    const auto& pr = b.predators;
    b.predator_grid.build(D, m.boundary == Boundary::wrap, double(m.size), double(m.kind[0].radius),
                          pr.size(), [&](std::size_t k, int c) { return pr[k].p[c]; });
  }

  // Each predator's view of the prey: the prey near it from a cell grid of kind 0 (cells at
  // least the predator's radius wide), visited in slot order as a scan over every slot would.
  const KindParams<Real>& pk = m.kind[1];
  if (pk.beh.chase != Real(0) && !b.predators.empty()) {
    std::vector<std::uint32_t> prey_slot;
    prey_slot.reserve(s.n);
    for (std::size_t i = 0; i < s.n; ++i) {
      if (s.kind[i] == 0) prey_slot.push_back(std::uint32_t(i));
    }
    KindGrid<Real> prey;
    prey.build(D, m.boundary == Boundary::wrap, double(m.size), double(pk.radius), prey_slot.size(),
               [&](std::size_t k, int c) { return s.p[c][prey_slot[k]]; });
    for (SpecialAgent<Real>& a : b.predators) {
      double sum[3] = {0, 0, 0};
      Real best2 = std::numeric_limits<Real>::infinity();
      std::uint32_t best_id = 0;
      Real v_len = 0;
      for (int c = 0; c < D; ++c) v_len += a.v[c] * a.v[c];
      v_len = std::sqrt(v_len);
      prey.for_near(a.p, [&](std::uint32_t k) {
        const std::size_t i = prey_slot[k];
        Real d[3] = {0, 0, 0}, q[3] = {0, 0, 0}, dist2 = 0;
        for (int c = 0; c < D; ++c) {
          q[c] = s.p[c][i];
          d[c] = q[c] - a.p[c];
          if (m.boundary == Boundary::wrap) d[c] = min_image(d[c], m.size, m.inv_size);
          dist2 += d[c] * d[c];
        }
        const bool seen = D == 2 ? beh::sees<Real, 2>(pk, d, dist2, a.v, v_len)
                                 : beh::sees<Real, 3>(pk, d, dist2, a.v, v_len);
        if (!seen) return;
        ++a.prey;
        for (int c = 0; c < D; ++c) sum[c] += double(d[c]);
        if (dist2 < best2 || (dist2 == best2 && s.id[i] < best_id)) {
          best2 = dist2;
          best_id = s.id[i];
          for (int c = 0; c < D; ++c) {
            a.nearest_d[c] = d[c];
            a.nearest_v[c] = s.v[c][i];
          }
        }
      });
      if (a.prey > 0) {
        for (int c = 0; c < D; ++c) a.prey_offset[c] = Real(sum[c] / double(a.prey));
      }
    }
  }
}

namespace beh {

// The follower's own place in the loose group around a leader, relative to the leader: slot
// `id` of an even spiral (Vogel's sunflower in 2D, its layered analogue in 3D) whose slots
// are about one separation radius apart, starting follow_distance from the leader. Returns
// the slot's distance from the leader.
template <class Real, int D>
inline Real follow_slot(std::uint32_t id, Real follow_distance, Real sep_radius2, Real* out) {
  const double k = double(id) + 0.5;
  const double spacing = std::max(std::sqrt(double(sep_radius2)), 1.0);
  const double tau = 2.0 * 3.14159265358979323846;
  double u[3] = {0, 0, 0}, r = 0;
  if (D == 2) {
    r = spacing / std::sqrt(3.14159265358979323846) * std::sqrt(k);
    const double a = k * 2.39996322972865332;  // the golden angle
    u[0] = std::cos(a);
    u[1] = std::sin(a);
  } else {
    r = spacing / std::cbrt(4.0 / 3.0 * 3.14159265358979323846) * std::cbrt(k);
    const double z = 1.0 - 2.0 * (k * 0.7548776662466927 - std::floor(k * 0.7548776662466927));
    const double a = tau * (k * 0.5698402909980532 - std::floor(k * 0.5698402909980532));
    const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
    u[0] = rxy * std::cos(a);
    u[1] = rxy * std::sin(a);
    u[2] = z;
  }
  r += double(follow_distance);
  for (int c = 0; c < D; ++c) out[c] = Real(r * u[c]);
  return Real(r);
}

}  // namespace beh

/// The behaviour path of finish_boid(): every active term of the boid's kind, the vehicle,
/// then the obstacle push-out. `rec` (explain_forces) receives each named term.
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
  // rules.noise and the vicsek profile (core/profile_vicsek.hpp).
  if (kind == 0 && (w.profile == Profile::vicsek || kp.noise > 0)) {
    noise::noisy_finish<Real, D>(m, ctx, kp, id, sums, p, v, p_out, v_out);
    return;
  }

  Real force[3] = {0, 0, 0};
  Real term[3] = {0, 0, 0};
  auto add = [&](const char* name) {
    for (int c = 0; c < D; ++c) force[c] += term[c];
    if (rec) rec->add(name, term, D);
  };
  const Real ms = kp.max_speed;
  Real v_len = norm<Real, D>(v);
  DriveHint<Real> hint;
  hint.max_speed = kp.max_speed;
  hint.min_speed = kp.min_speed;
  // Arrival lowers the speed floor: min_speed applies except within the braking distance of
  // the arrival point or while moving away from it, so it never stops a boid from arriving.
  auto arriving = [&](Real speed, const Real* to) {
    if (hint.arriving) return;
    hint.arriving = true;
    hint.arrive_speed = speed;
    for (int c = 0; c < D; ++c) hint.arrive_to[c] = to[c];
    // The floor is min(min_speed, speed * cos+ of the angle between v and the point), so a
    // boid moving away from the point (or abeam of it) can brake and turn back.
    const Real tn = norm<Real, D>(to);
    const Real cosv = tn > Real(0) && v_len > Real(0) ? dot<Real, D>(v, to) / (tn * v_len) : 0;
    hint.min_speed = std::min(hint.min_speed, speed * std::max(cosv, Real(0)));
  };

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
    wander_key<Real, D>(ctx.seed, id, key, u0);
    wander_key<Real, D>(ctx.seed, id, key + 1, u1);
    for (int c = 0; c < D; ++c) u[c] = u0[c] + (u1[c] - u0[c]) * sm;
    if (!(normalize<Real, D>(u) > Real(0))) {
      for (int c = 0; c < D; ++c) u[c] = u0[c];
    }
    Real tgt[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) tgt[c] = h[c] * b.wander_distance + u[c] * b.wander_radius;
    seek_dir<Real, D>(b.wander, tgt, ms, v, term);
    add("wander");
  }
  // Leader following: arrive at the boid's own slot of a loose group around the nearest
  // leader, shifted behind it while it moves (follow_slot).
  if (b.follow_leader != Real(0) && kind != 2 && !bc.leaders.empty()) {
    const SpecialAgent<Real>* best = nullptr;
    Real best2 = std::numeric_limits<Real>::infinity();
    Real best_to[3] = {0, 0, 0};
    for (const SpecialAgent<Real>& l : bc.leaders) {
      if (l.id == id) continue;
      Real to[3] = {0, 0, 0};
      offset<Real, D>(m, p, l.p, to);
      const Real d2 = dot<Real, D>(to, to);
      if (d2 < best2) {
        best2 = d2;
        best = &l;
        for (int c = 0; c < D; ++c) best_to[c] = to[c];
      }
    }
    if (best) {
      Real lh[3] = {best->v[0], best->v[1], D == 3 ? best->v[2] : Real(0)};
      normalize<Real, D>(lh);
      Real slot[3] = {0, 0, 0};
      const Real r = follow_slot<Real, D>(id, b.follow_distance, kp.sep_radius2, slot);
      for (int c = 0; c < D; ++c) best_to[c] += slot[c] - lh[c] * (b.follow_distance + r);
      arriving(
          arrive_to<Real, D>(b.follow_leader, b.mass, best_to, ms, brake_acc, m.dt, v_arr, term),
          best_to);
      add("follow_leader");
    }
  }
  // Prey: escape every predator in view, away from it and out of its path, at up to
  // flee_boost * max_speed (docs/behaviours.md, "Predators and prey").
  if (kind == 0 && b.flee_predators != Real(0) && !bc.predators.empty()) {
    Real esc[3] = {0, 0, 0};
    bool seen = false;
    bc.predator_grid.for_near(p, [&](std::uint32_t k) {
      const SpecialAgent<Real>& a = bc.predators[k];
      Real d[3] = {0, 0, 0};
      offset<Real, D>(m, p, a.p, d);
      const Real d2 = dot<Real, D>(d, d);
      if (!(d2 > Real(0)) || !sees<Real, D>(kp, d, d2, v, v_len)) return;
      seen = true;
      const Real dist = std::sqrt(d2);
      Real away[3] = {0, 0, 0}, hp[3] = {a.v[0], a.v[1], D == 3 ? a.v[2] : Real(0)};
      for (int c = 0; c < D; ++c) away[c] = -d[c] / dist;
      normalize<Real, D>(hp);
      const Real along = dot<Real, D>(away, hp);
      // away + its part across the predator's heading: straight ahead of it the prey runs
      // along its path, beside it the prey breaks sideways out of it (the fountain).
      Real e[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) e[c] = Real(2) * away[c] - along * hp[c];
      normalize<Real, D>(e);
      const Real urgency = Real(1) - dist / kp.radius;  // nearer predators count more
      for (int c = 0; c < D; ++c) esc[c] += urgency * e[c];
    });
    for (int c = 0; c < D; ++c) term[c] = Real(0);
    if (seen) {
      const Real boost = b.flee_boost * ms;
      hint.max_speed = boost;
      if (normalize<Real, D>(esc) > Real(0)) {
        for (int c = 0; c < D; ++c) esc[c] *= boost;
        steer_to<Real, D>(b.flee_predators, esc, v, term);
      }
    }
    add("flee_predators");
  }
  // Prey: evade the nearest predator in view, aiming away from its predicted position
  // (T = distance / the prey's max_speed, as for pursuit).
  if (kind == 0 && b.evade_predators != Real(0) && !bc.predators.empty()) {
    const SpecialAgent<Real>* near = nullptr;
    Real near2 = std::numeric_limits<Real>::infinity();
    Real near_d[3] = {0, 0, 0};
    bc.predator_grid.for_near(p, [&](std::uint32_t k) {
      const SpecialAgent<Real>& a = bc.predators[k];
      Real d[3] = {0, 0, 0};
      offset<Real, D>(m, p, a.p, d);
      const Real d2 = dot<Real, D>(d, d);
      if (d2 < near2 && sees<Real, D>(kp, d, d2, v, v_len)) {
        near2 = d2;
        near = &a;
        for (int c = 0; c < D; ++c) near_d[c] = d[c];
      }
    });
    if (near) {
      const Real t = std::sqrt(near2) / ms;
      Real away[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) away[c] = -(near_d[c] + near->v[c] * t);
      seek_dir<Real, D>(b.evade_predators, away, ms, v, term);
      add("evade_predators");
    }
  }
  // Predators: chase what prepare_step found.
  if (kind == 1 && b.chase != Real(0)) {
    auto it =
        std::lower_bound(bc.predators.begin(), bc.predators.end(), id,
                         [](const SpecialAgent<Real>& a, std::uint32_t x) { return a.id < x; });
    if (it != bc.predators.end() && it->id == id && it->prey > 0) {
      if (b.chase_mode == ChaseMode::centroid) {
        seek_dir<Real, D>(b.chase, it->prey_offset, ms, v, term);
      } else {
        const Real t = norm<Real, D>(it->nearest_d) / ms;
        Real pred[3] = {0, 0, 0};
        for (int c = 0; c < D; ++c) pred[c] = it->nearest_d[c] + it->nearest_v[c] * t;
        seek_dir<Real, D>(b.chase, pred, ms, v, term);
      }
      add("chase");
    }
  }
  // Obstacle avoidance: push away within avoid_distance of a surface, and steer sideways
  // when the point avoid_distance ahead would be inside or near an obstacle.
  if (b.avoid != Real(0) && w.obstacles) {
    for (int c = 0; c < D; ++c) term[c] = Real(0);
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
          Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
          const Real dist = sphere_distance<Real, D>(m, w.spheres[k], p, n);
          const Real pdist = sphere_distance<Real, D>(m, w.spheres[k], probe, pn);
          one(dist, n, pdist, pn);
        },
        [&](std::uint32_t k) {
          Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
          const Real dist = box_distance<Real, D>(m, w.boxes[k], p, n);
          const Real pdist = box_distance<Real, D>(m, w.boxes[k], probe, pn);
          one(dist, n, pdist, pn);
        });
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
  drive<Real, D>(m, kp, hint, p, v, force, p_out, v_out);
  if (w.obstacles) push_out<Real, D>(m, p, p_out, v_out, b.vehicle == Vehicle::turn_rate);
}

}  // namespace boids
