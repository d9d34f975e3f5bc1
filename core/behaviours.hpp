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

#include "core/model.hpp"
#include "core/profile_vicsek.hpp"
#include "core/rng.hpp"

namespace boids {

/// Receives every named steering term of one boid (explain_forces); nullptr in the engines.
struct ForceRecorder {
  struct Term {
    std::string name;
    double f[3];
  };
  std::vector<Term> terms;
  double total[3] = {0, 0, 0};    // sum of the terms, before the vehicle's limits
  double applied[3] = {0, 0, 0};  // (v_out - v) / dt: what the vehicle made of it
  template <class Real>
  void add(const char* name, const Real* f, int dims) {
    Term t{name, {0, 0, 0}};
    for (int c = 0; c < dims; ++c) t.f[c] = double(f[c]);
    terms.push_back(t);
  }
};

namespace beh {

template <class Real, int D>
inline Real dot(const Real* a, const Real* b) {
  Real s = 0;
  for (int c = 0; c < D; ++c) s += a[c] * b[c];
  return s;
}

template <class Real, int D>
inline Real norm(const Real* a) {
  return std::sqrt(dot<Real, D>(a, a));
}

// a <- a / |a| when |a| > 0; returns |a|.
template <class Real, int D>
inline Real normalize(Real* a) {
  const Real n = norm<Real, D>(a);
  if (n > Real(0)) {
    const Real inv = Real(1) / n;
    for (int c = 0; c < D; ++c) a[c] *= inv;
  }
  return n;
}

// Offset b - a with the minimum image in a wrapping world.
template <class Real, int D>
inline void offset(const ModelParams<Real>& m, const Real* a, const Real* b, Real* out) {
  for (int c = 0; c < D; ++c) {
    out[c] = b[c] - a[c];
    if (m.boundary == Boundary::wrap) out[c] = min_image(out[c], m.size, m.inv_size);
  }
}

// Reynolds' steering toward a desired velocity: w * (desired - v), added to `force`.
template <class Real, int D>
inline void steer_to(Real w, const Real* desired, const Real* v, Real* term) {
  for (int c = 0; c < D; ++c) term[c] = w * (desired[c] - v[c]);
}

// Seek along `dir` (any length) at speed `speed`; zero desired velocity when dir is zero.
template <class Real, int D>
inline void seek_dir(Real w, const Real* dir, Real speed, const Real* v, Real* term) {
  Real des[3] = {dir[0], dir[1], D == 3 ? dir[2] : Real(0)};
  if (normalize<Real, D>(des) > Real(0)) {
    for (int c = 0; c < D; ++c) des[c] *= speed;
  }
  steer_to<Real, D>(w, des, v, term);
}

// Arrival: the desired speed toward `to` is the largest speed from which braking at a (the
// braking acceleration) in steps of dt stops within the remaining distance |s|: with u = a dt
// and n = floor((sqrt(1 + 8 |s| / (dt u)) - 1) / 2) whole decrements, speed = n u + r with
// r = (|s| / dt - u n (n + 1) / 2) / (n + 1) in [0, u]; also <= max_speed and <= |s| / dt. It
// is the seed's sqrt(2 |s| F / m) made exact for discrete steps (the two agree as dt -> 0),
// so the boid never passes the point. Unlike the other terms, arrival asks for the whole
// velocity change in one step, w * (desired - v) / dt, so within the force limit the boid
// follows this braking profile instead of lagging behind it.
template <class Real, int D>
inline void arrive_to(Real w, const Real* to, Real max_speed, Real brake_acc, Real dt,
                      const Real* v, Real* term) {
  Real des[3] = {to[0], to[1], D == 3 ? to[2] : Real(0)};
  const Real dist = normalize<Real, D>(des);
  const double u = double(brake_acc) * double(dt), sd = double(dist) / double(dt);
  double brake = sd;
  if (u > 0) {
    const double n = std::floor((std::sqrt(1.0 + 8.0 * sd / u) - 1.0) / 2.0);
    const double r = std::clamp((sd - u * n * (n + 1.0) / 2.0) / (n + 1.0), 0.0, u);
    brake = std::min(n * u + r, sd);
  }
  const Real speed = std::min(max_speed, Real(brake));
  for (int c = 0; c < D; ++c) des[c] *= speed;
  steer_to<Real, D>(w / dt, des, v, term);
}

// A uniformly random unit vector for (seed, id, key): the wander keyframes.
template <class Real, int D>
inline void wander_key(std::uint64_t seed, std::uint32_t id, std::uint64_t key, Real* u) {
  const double a = 2.0 * 3.14159265358979323846 * random_unit(seed, id, kStreamWander, key * 4);
  if (D == 2) {
    u[0] = Real(std::cos(a));
    u[1] = Real(std::sin(a));
  } else {
    const double z = 2.0 * random_unit(seed, id, kStreamWander, key * 4 + 1) - 1.0;
    const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
    u[0] = Real(rxy * std::cos(a));
    u[1] = Real(rxy * std::sin(a));
    u[2] = Real(z);
  }
}

// Outward unit normal and signed distance of point `p` to a sphere/box obstacle (negative
// inside), with the minimum image in a wrapping world.
template <class Real, int D>
inline Real sphere_distance(const ModelParams<Real>& m, const SphereP<Real>& o, const Real* p,
                            Real* n) {
  offset<Real, D>(m, o.c, p, n);  // p - c
  Real len = normalize<Real, D>(n);
  if (!(len > Real(0))) {
    for (int c = 0; c < D; ++c) n[c] = Real(c == 0);
  }
  return len - o.r;
}

template <class Real, int D>
inline Real box_distance(const ModelParams<Real>& m, const BoxP<Real>& o, const Real* p, Real* n) {
  Real ctr[3], half[3], q[3];
  for (int c = 0; c < D; ++c) {
    ctr[c] = Real(0.5) * (o.lo[c] + o.hi[c]);
    half[c] = Real(0.5) * (o.hi[c] - o.lo[c]);
  }
  offset<Real, D>(m, ctr, p, q);  // p - centre
  Real out[3] = {0, 0, 0};
  bool inside = true;
  for (int c = 0; c < D; ++c) {
    const Real e = std::abs(q[c]) - half[c];
    if (e > Real(0)) {
      inside = false;
      out[c] = q[c] > Real(0) ? e : -e;
    }
  }
  if (!inside) {
    for (int c = 0; c < D; ++c) n[c] = out[c];
    return normalize<Real, D>(n);
  }
  // Inside: the nearest face.
  int best = 0;
  Real best_e = -std::numeric_limits<Real>::infinity();
  for (int c = 0; c < D; ++c) {
    const Real e = std::abs(q[c]) - half[c];  // <= 0
    if (e > best_e) {
      best_e = e;
      best = c;
    }
  }
  for (int c = 0; c < D; ++c) n[c] = Real(0);
  n[best] = q[best] >= Real(0) ? Real(1) : Real(-1);
  return best_e;
}

// Visible: inside the radius and the view cone of a boid moving with v (|v| = v_len).
template <class Real, int D>
inline bool sees(const KindParams<Real>& kp, const Real* d, Real dist2, const Real* v, Real v_len) {
  if (!(dist2 < kp.radius2)) return false;
  if (!kp.full_view && v_len > Real(0)) {
    if (!(dot<Real, D>(d, v) >= std::sqrt(dist2) * v_len * kp.cos_half_view)) return false;
  }
  return true;
}

// The state after one step of the target script at time t (s).
inline void target_at(const double* p0, const double* vel, double hold, double move, double t,
                      int dims, double* p, double* v) {
  double disp = 0, sign = 0;
  const double cycle = hold + move;
  if (move > 0 && cycle > 0) {
    const double n = std::floor(t / cycle);
    const double phase = t - n * cycle;
    const bool odd = std::fmod(n, 2.0) != 0.0;
    const double moving = std::max(0.0, phase - hold);
    // Even half cycles go out from p0, odd ones come back.
    disp = odd ? move - moving : moving;
    sign = phase >= hold ? (odd ? -1.0 : 1.0) : 0.0;
  }
  for (int c = 0; c < dims; ++c) {
    p[c] = p0[c] + vel[c] * disp;
    v[c] = vel[c] * sign;
  }
}

}  // namespace beh

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

  // Each predator's view of the prey: O(n) per predator.
  const KindParams<Real>& pk = m.kind[1];
  if (pk.beh.chase != Real(0)) {
    for (SpecialAgent<Real>& a : b.predators) {
      double sum[3] = {0, 0, 0};
      Real best2 = std::numeric_limits<Real>::infinity();
      std::uint32_t best_id = 0;
      Real v_len = 0;
      for (int c = 0; c < D; ++c) v_len += a.v[c] * a.v[c];
      v_len = std::sqrt(v_len);
      for (std::size_t i = 0; i < s.n; ++i) {
        if (s.kind[i] != 0) continue;
        Real d[3] = {0, 0, 0}, q[3] = {0, 0, 0}, dist2 = 0;
        for (int c = 0; c < D; ++c) {
          q[c] = s.p[c][i];
          d[c] = q[c] - a.p[c];
          if (m.boundary == Boundary::wrap) d[c] = min_image(d[c], m.size, m.inv_size);
          dist2 += d[c] * d[c];
        }
        const bool seen = D == 2 ? beh::sees<Real, 2>(pk, d, dist2, a.v, v_len)
                                 : beh::sees<Real, 3>(pk, d, dist2, a.v, v_len);
        if (!seen) continue;
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
      }
      if (a.prey > 0) {
        for (int c = 0; c < D; ++c) a.prey_offset[c] = Real(sum[c] / double(a.prey));
      }
    }
  }
}

namespace beh {

// Pushes a position that ended inside an obstacle back onto its surface and removes the
// inward velocity component. A few passes settle boids caught between touching obstacles.
template <class Real, int D>
inline void push_out(const ModelParams<Real>& m, Real* p, Real* v) {
  for (int pass = 0; pass < 4; ++pass) {
    bool moved = false;
    auto fix = [&](Real dist, const Real* n) {
      if (!(dist < Real(0))) return;
      // Step slightly beyond the surface so rounding cannot leave the point inside.
      const Real extra = -dist + std::max(Real(1e-4), std::abs(dist) * Real(1e-5)) +
                         Real(4) * std::numeric_limits<Real>::epsilon() * m.size;
      for (int c = 0; c < D; ++c) p[c] += n[c] * extra;
      const Real vn = dot<Real, D>(v, n);
      if (vn < Real(0)) {
        for (int c = 0; c < D; ++c) v[c] -= vn * n[c];
      }
      if (m.boundary == Boundary::wrap) {
        for (int c = 0; c < D; ++c) {
          p[c] -= m.size * std::floor(p[c] * m.inv_size);
          if (p[c] >= m.size) p[c] -= m.size;
          if (p[c] < Real(0)) p[c] = Real(0);
        }
      }
      moved = true;
    };
    for (const SphereP<Real>& o : m.beh.spheres) {
      Real n[3] = {0, 0, 0};
      const Real dist = sphere_distance<Real, D>(m, o, p, n);
      fix(dist, n);
    }
    for (const BoxP<Real>& o : m.beh.boxes) {
      Real n[3] = {0, 0, 0};
      const Real dist = box_distance<Real, D>(m, o, p, n);
      fix(dist, n);
    }
    if (!moved) break;
  }
  // An obstacle touching a reflecting wall must not push a boid out of the box.
  if (m.boundary == Boundary::reflect) {
    for (int c = 0; c < D; ++c) {
      if (p[c] < Real(0)) p[c] = Real(0);
      if (p[c] >= m.size) p[c] = std::nextafter(m.size, Real(0));
    }
  }
}

// A unit vector perpendicular to unit h (deterministic).
template <class Real, int D>
inline void perpendicular(const Real* h, Real* out) {
  if (D == 2) {
    out[0] = -h[1];
    out[1] = h[0];
    return;
  }
  // Cross h with the axis of its smallest component.
  int a = 0;
  for (int c = 1; c < 3; ++c) {
    if (std::abs(h[c]) < std::abs(h[a])) a = c;
  }
  Real e[3] = {0, 0, 0};
  e[a] = 1;
  out[0] = h[1] * e[2] - h[2] * e[1];
  out[1] = h[2] * e[0] - h[0] * e[2];
  out[2] = h[0] * e[1] - h[1] * e[0];
  normalize<Real, 3>(out);
}

// The vehicle models: total steering force -> new velocity and position.
template <class Real, int D>
inline void drive(const ModelParams<Real>& m, const KindParams<Real>& kp, const Real* p,
                  const Real* v, Real* force, Real* p_out, Real* v_out) {
  const BehaviourParams<Real>& b = kp.beh;
  Real nv[3] = {0, 0, 0};
  if (b.vehicle == Vehicle::point_mass) {
    if (b.inv_mass == Real(1)) {
      integrate<Real, D>(m, kp, p, v, force, p_out, v_out);
      return;
    }
    const Real f = norm<Real, D>(force);
    const Real scale = f > kp.max_force ? kp.max_force / f : Real(1);
    for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * scale * b.inv_mass * m.dt;
    move<Real, D>(m, kp, p, nv, true, p_out, v_out);
    return;
  }
  Real h[3] = {v[0], v[1], D == 3 ? v[2] : Real(0)};
  const Real speed = normalize<Real, D>(h);
  if (b.vehicle == Vehicle::ellipse) {
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
    move<Real, D>(m, kp, p, nv, true, p_out, v_out);
    return;
  }
  // turn_rate: constant speed, heading turns toward v + F * 1 s by at most turn_per_step.
  Real d[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) d[c] = v[c] + force[c];
  const bool has_d = normalize<Real, D>(d) > Real(0);
  Real nh[3] = {h[0], h[1], h[2]};
  if (!(speed > Real(0))) {
    if (has_d) {
      for (int c = 0; c < D; ++c) nh[c] = d[c];
    } else {
      nh[0] = Real(1);
    }
  } else if (has_d) {
    const Real cosang = std::clamp(dot<Real, D>(h, d), Real(-1), Real(1));
    const Real ang = std::acos(cosang);
    if (ang <= b.turn_per_step) {
      for (int c = 0; c < D; ++c) nh[c] = d[c];
    } else {
      Real perp[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) perp[c] = d[c] - cosang * h[c];
      if (!(normalize<Real, D>(perp) > Real(1e-6))) perpendicular<Real, D>(h, perp);
      const Real ca = std::cos(b.turn_per_step), sa = std::sin(b.turn_per_step);
      for (int c = 0; c < D; ++c) nh[c] = ca * h[c] + sa * perp[c];
      normalize<Real, D>(nh);
    }
  }
  for (int c = 0; c < D; ++c) nv[c] = nh[c] * kp.max_speed;
  move<Real, D>(m, kp, p, nv, false, p_out, v_out);
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
    if (w.obstacles) push_out<Real, D>(m, p_out, v_out);
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
  // Goal seeking and arrival.
  const Real brake_acc = (b.vehicle == Vehicle::ellipse ? b.accel : kp.max_force) * b.inv_mass;
  if (b.seek != Real(0) || b.arrive != Real(0)) {
    Real to[3] = {0, 0, 0};
    offset<Real, D>(m, p, w.goal, to);
    if (b.seek != Real(0)) {
      seek_dir<Real, D>(b.seek, to, ms, v, term);
      add("seek");
    }
    if (b.arrive != Real(0)) {
      arrive_to<Real, D>(b.arrive, to, ms, brake_acc, m.dt, v, term);
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
  // Leader following: arrive at a point follow_distance behind the nearest leader.
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
      for (int c = 0; c < D; ++c) best_to[c] -= lh[c] * b.follow_distance;
      arrive_to<Real, D>(b.follow_leader, best_to, ms, brake_acc, m.dt, v, term);
      add("follow_leader");
    }
  }
  // Prey: the seed's 10x separation from every predator in view.
  if (kind == 0 && b.flee_predators != Real(0) && !bc.predators.empty()) {
    for (int c = 0; c < D; ++c) term[c] = Real(0);
    for (const SpecialAgent<Real>& a : bc.predators) {
      Real d[3] = {0, 0, 0};
      offset<Real, D>(m, p, a.p, d);
      const Real d2 = dot<Real, D>(d, d);
      if (d2 > Real(0) && sees<Real, D>(kp, d, d2, v, v_len)) {
        for (int c = 0; c < D; ++c) term[c] -= b.flee_predators * d[c] / d2;
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
    for (const SpecialAgent<Real>& a : bc.predators) {
      Real d[3] = {0, 0, 0};
      offset<Real, D>(m, p, a.p, d);
      const Real d2 = dot<Real, D>(d, d);
      if (d2 < near2 && sees<Real, D>(kp, d, d2, v, v_len)) {
        near2 = d2;
        near = &a;
        for (int c = 0; c < D; ++c) near_d[c] = d[c];
      }
    }
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
    for (const SphereP<Real>& o : w.spheres) {
      Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
      const Real dist = sphere_distance<Real, D>(m, o, p, n);
      const Real pdist = sphere_distance<Real, D>(m, o, probe, pn);
      one(dist, n, pdist, pn);
    }
    for (const BoxP<Real>& o : w.boxes) {
      Real n[3] = {0, 0, 0}, pn[3] = {0, 0, 0};
      const Real dist = box_distance<Real, D>(m, o, p, n);
      const Real pdist = box_distance<Real, D>(m, o, probe, pn);
      one(dist, n, pdist, pn);
    }
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
      Real des[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c)
        des[c] = r[c] * radial + (tn > Real(0) ? tg[c] * w.formation_glide : Real(0));
      steer_to<Real, D>(b.formation, des, v, term);
      add("formation");
    }
  }

  if (rec) {
    for (int c = 0; c < D; ++c) rec->total[c] = double(force[c]);
  }
  drive<Real, D>(m, kp, p, v, force, p_out, v_out);
  if (w.obstacles) push_out<Real, D>(m, p_out, v_out);
}

}  // namespace boids
