// Angular noise (rules.noise) for the standard model, and the Vicsek profile
// (world.profile = "vicsek"; Vicsek et al. 1995). docs/profiles.md has the equations and
// the update order. Included by core/behaviours.hpp; behaviour_finish() calls
// noisy_finish() for kind 0 when the profile is vicsek or rules.noise > 0.
//
// Random draws are counter-based on (seed, id, kStreamNoise, 2*step + j), so they do not
// depend on thread count or boid order, and both engines draw the same numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/rng.hpp"

namespace boids::noise {

template <class Real, int D>
inline Real length(const Real* a) {
  Real s = 0;
  for (int c = 0; c < D; ++c) s += a[c] * a[c];
  return std::sqrt(s);
}

// Turns unit heading h (in place) by the noise of boid `id` at `step`: in 2D by an angle
// uniform in [-width/2, width/2]; in 3D to a direction uniform over the area of the
// spherical cap of half-angle width/2 around h (cos theta uniform in [cos(width/2), 1], the
// azimuth uniform in [0, 2 pi)). `width` is in radians, 0 < width <= 2 pi.
template <class Real, int D>
inline void perturb(Real* h, double width, std::uint64_t seed, std::uint32_t id,
                    std::uint64_t step) {
  const double u1 = random_unit(seed, id, kStreamNoise, 2 * step);
  if constexpr (D == 2) {
    const double a = (u1 - 0.5) * width;
    const Real ca = Real(std::cos(a)), sa = Real(std::sin(a));
    const Real x = h[0], y = h[1];
    h[0] = ca * x - sa * y;
    h[1] = sa * x + ca * y;
  } else {
    const double u2 = random_unit(seed, id, kStreamNoise, 2 * step + 1);
    const double cos_t = 1.0 - u1 * (1.0 - std::cos(0.5 * width));
    const double sin_t = std::sqrt(std::max(0.0, 1.0 - cos_t * cos_t));
    const double phi = 6.283185307179586 * u2;
    // An orthonormal basis (e1, e2) around h: e1 = h x (the axis of h's smallest component).
    int a = 0;
    for (int c = 1; c < 3; ++c) {
      if (std::abs(h[c]) < std::abs(h[a])) a = c;
    }
    Real ax[3] = {0, 0, 0};
    ax[a] = 1;
    Real e1[3] = {h[1] * ax[2] - h[2] * ax[1], h[2] * ax[0] - h[0] * ax[2],
                  h[0] * ax[1] - h[1] * ax[0]};
    const Real l1 = length<Real, 3>(e1);
    for (int c = 0; c < 3; ++c) e1[c] /= l1;
    const Real e2[3] = {h[1] * e1[2] - h[2] * e1[1], h[2] * e1[0] - h[0] * e1[2],
                        h[0] * e1[1] - h[1] * e1[0]};
    const Real ct = Real(cos_t), st = Real(sin_t * std::cos(phi)), sp = Real(sin_t * std::sin(phi));
    Real n[3];
    for (int c = 0; c < 3; ++c) n[c] = ct * h[c] + st * e1[c] + sp * e2[c];
    const Real ln = length<Real, 3>(n);
    for (int c = 0; c < 3; ++c) h[c] = n[c] / ln;
  }
}

// Unit vector along v, or along fallback when |v| = 0, or the x axis when both are 0.
template <class Real, int D>
inline void heading(const Real* v, const Real* fallback, Real* h) {
  Real l = length<Real, D>(v);
  const Real* src = v;
  if (!(l > Real(0))) {
    src = fallback;
    l = length<Real, D>(fallback);
  }
  for (int c = 0; c < D; ++c) h[c] = l > Real(0) ? src[c] / l : Real(c == 0);
}

// rules.noise's turn of a new velocity, keeping its speed: the hook beh::drive() applies after
// the vehicle and the speed limits (core/vehicles.hpp) when kind 0 has steering behaviours,
// and the last step of the plain standard model's noisy_finish() below.
template <class Real, int D>
struct NoiseTurn {
  static constexpr bool none = false;
  double width;  // rules.noise in radians
  std::uint64_t seed;
  std::uint32_t id;
  std::uint64_t step;
  void operator()(Real* nv) const {
    const Real speed = length<Real, D>(nv);
    if (speed > Real(0)) {
      Real h[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) h[c] = nv[c] / speed;
      perturb<Real, D>(h, width, seed, id, step);
      for (int c = 0; c < D; ++c) nv[c] = h[c] * speed;
    }
  }
};

/// The finish of kind 0 under the vicsek profile, or with rules.noise > 0 in the plain
/// standard model (no steering behaviours, obstacles, predators or leaders; with them
/// behaviour_finish() applies NoiseTurn in the vehicle instead).
template <class Real, int D>
inline void noisy_finish(const ModelParams<Real>& m, const StepContext<Real>& ctx,
                         const KindParams<Real>& kp, std::uint32_t id, const FlockSums<Real>& s,
                         const Real* p, const Real* v, Real* p_out, Real* v_out) {
  Real nv[3] = {0, 0, 0};
  if (m.beh.profile == Profile::vicsek) {
    // Vicsek: the mean velocity of the neighbours and the boid itself gives the direction
    // (the mean heading when speeds are equal, as they are after the first step); the speed
    // is max_speed (v0).
    Real sum[3] = {0, 0, 0}, h[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) sum[c] = s.v[c] + v[c];
    heading<Real, D>(sum, v, h);
    if (kp.noise > 0) perturb<Real, D>(h, kp.noise, ctx.seed, id, ctx.step);
    for (int c = 0; c < D; ++c) nv[c] = h[c] * kp.max_speed;
  } else {
    // The standard model's steps 4-5 (core/model.hpp integrate()), then the noise turns the
    // new velocity, keeping its speed.
    Real force[3] = {0, 0, 0};
    flock_force<Real, D>(kp, s, v, force);
    Real f2 = 0;
    for (int c = 0; c < D; ++c) f2 += force[c] * force[c];
    if (f2 > kp.max_force * kp.max_force) {
      const Real scale = kp.max_force / std::sqrt(f2);
      for (int c = 0; c < D; ++c) force[c] *= scale;
    }
    for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * m.dt;
    const Real sp = length<Real, D>(nv);
    Real scale = 1;
    if (sp > kp.max_speed) {
      scale = kp.max_speed / sp;
    } else if (sp > Real(0) && sp < kp.min_speed) {
      scale = kp.min_speed / sp;
    }
    for (int c = 0; c < D; ++c) nv[c] *= scale;
    NoiseTurn<Real, D>{kp.noise, ctx.seed, id, ctx.step}(nv);
  }
  move<Real, D>(m, kp, p, nv, false, p_out, v_out);
}

}  // namespace boids::noise
