// Small vector helpers and the geometric building blocks of the steering behaviours
// (docs/behaviours.md): offsets with the minimum image, Reynolds' steer, arrival speed, wander
// keyframes, obstacle distances, visibility, the target script. Part of core/behaviours.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/behaviour_trig.hpp"
#include "core/model.hpp"
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

// The small vector helpers below run a few dozen times per boid and step on the behaviour
// path, where GCC left them out of line (a call each, the arrays through memory): inlined
// always. Inlining changes no result (no contraction: -ffp-contract=off).
#if defined(__GNUC__)
#define BOIDS_BEH_INLINE inline __attribute__((always_inline))
#else
#define BOIDS_BEH_INLINE inline
#endif

template <class Real, int D>
BOIDS_BEH_INLINE Real dot(const Real* a, const Real* b) {
  Real s = 0;
  for (int c = 0; c < D; ++c) s += a[c] * b[c];
  return s;
}

template <class Real, int D>
BOIDS_BEH_INLINE Real norm(const Real* a) {
  return std::sqrt(dot<Real, D>(a, a));
}

// a <- a / |a| when |a| > 0; returns |a|.
template <class Real, int D>
BOIDS_BEH_INLINE Real normalize(Real* a) {
  const Real n = norm<Real, D>(a);
  if (n > Real(0)) {
    const Real inv = Real(1) / n;
    for (int c = 0; c < D; ++c) a[c] *= inv;
  }
  return n;
}

// min_image() (core/model.hpp) with the same bits, without its libm call (nearbyint, which
// saves the floating-point environment) and without its data-dependent branch, for the
// offsets between two points of the world, |t| < 1.5: there nearbyint(t) is -1, 0 or 1, and
// d - size * (+-1) is d -+ size exactly; at t = +-0.5 (a tie, rounded to even 0) min_image
// gives d - size * 0 = d, and so does the formula below (d != 0 there). The leader scan and the
// target offsets of the behaviour path cross half the world for half their coordinates, in random
// order: as branches, a third of them were mispredicted (docs/bench.md, issue 14).
template <class Real>
BOIDS_BEH_INLINE Real min_image_near(Real d, Real size, Real inv_size) {
  const Real t = d * inv_size;
  if (!(t < Real(1.5) && t > Real(-1.5))) return min_image(d, size, inv_size);
  // k = nearbyint(t) from two comparisons (GCC keeps ?: on floats as branches). d + 0 is
  // min_image's d for |t| < 0.5 (a zero made +0), and d itself elsewhere (d != 0 there).
  const Real k = Real(t > Real(0.5)) - Real(t < Real(-0.5));
  return (d + Real(0)) - size * k;
}

// Offset b - a with the minimum image in a wrapping world.
template <class Real, int D>
BOIDS_BEH_INLINE void offset(const ModelParams<Real>& m, const Real* a, const Real* b, Real* out) {
  for (int c = 0; c < D; ++c) {
    out[c] = b[c] - a[c];
    if (m.boundary == Boundary::wrap) out[c] = min_image_near(out[c], m.size, m.inv_size);
  }
}

// Reynolds' steering toward a desired velocity: w * (desired - v), added to `force`.
template <class Real, int D>
BOIDS_BEH_INLINE void steer_to(Real w, const Real* desired, const Real* v, Real* term) {
  for (int c = 0; c < D; ++c) term[c] = w * (desired[c] - v[c]);
}

// Seek along `dir` (any length) at speed `speed`; zero desired velocity when dir is zero.
template <class Real, int D>
BOIDS_BEH_INLINE void seek_dir(Real w, const Real* dir, Real speed, const Real* v, Real* term) {
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
// so the boid never passes the point.
template <class Real>
inline Real arrival_speed(Real dist, Real max_speed, Real brake_acc, Real dt) {
  const double u = double(brake_acc) * double(dt), sd = double(dist) / double(dt);
  double brake = sd;
  if (u > 0) {
    const double n = std::floor((std::sqrt(1.0 + 8.0 * sd / u) - 1.0) / 2.0);
    const double r = std::clamp((sd - u * n * (n + 1.0) / 2.0) / (n + 1.0), 0.0, u);
    brake = std::min(n * u + r, sd);
  }
  return std::min(max_speed, Real(brake));
}

// Unlike the other terms, arrival asks for the whole velocity change in one step: the force
// m * w * (desired - v) / dt (times the mass, as the vehicle divides by it), so within the
// force limit the boid follows the braking profile instead of lagging behind it. Returns the
// desired speed.
template <class Real, int D>
inline Real arrive_to(Real w, Real mass, const Real* to, Real max_speed, Real brake_acc, Real dt,
                      const Real* v, Real* term) {
  Real des[3] = {to[0], to[1], D == 3 ? to[2] : Real(0)};
  const Real dist = normalize<Real, D>(des);
  const Real speed = arrival_speed(dist, max_speed, brake_acc, dt);
  for (int c = 0; c < D; ++c) des[c] *= speed;
  steer_to<Real, D>(w * mass / dt, des, v, term);
  return speed;
}

// A uniformly random unit vector for (seed, id, key): the wander keyframes. `stream` is
// random_stream(seed, id, kStreamWander), hashed once for a boid's two keys.
template <class Real, int D>
inline void wander_key(std::uint64_t stream, std::uint64_t key, Real* u) {
  const double a = 2.0 * 3.14159265358979323846 * random_unit_at(stream, key * 4);
  double sn = 0, cs = 0;
  sin_cos(a, sn, cs);  // core/behaviour_trig.hpp: no libm call
  if (D == 2) {
    u[0] = Real(cs);
    u[1] = Real(sn);
  } else {
    const double z = 2.0 * random_unit_at(stream, key * 4 + 1) - 1.0;
    const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
    u[0] = Real(rxy * cs);
    u[1] = Real(rxy * sn);
    u[2] = Real(z);
  }
}

// Outward unit normal and signed distance of point `p` to a sphere/box obstacle (negative
// inside), with the minimum image in a wrapping world.
template <class Real, int D>
BOIDS_BEH_INLINE Real sphere_distance(const ModelParams<Real>& m, const SphereP<Real>& o,
                                      const Real* p, Real* n) {
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

}  // namespace boids
