// The couzin profile (world.profile = "couzin"; Couzin, Krause, James, Ruxton, Franks 2002,
// J. theor. Biol. 218:1). docs/profiles.md has the equations and the readings the paper
// leaves open. Run by core/neighbour_list.hpp for every kind-0 boid, over its visible
// neighbours in id order:
//
//   zones     : repulsion |d| < r_r; orientation r_r <= |d| < r_o; attraction r_o <= |d| < r_a
//               (the blind cone behind the boid hides all three);
//   desired   : n_r > 0: d_r = -sum d/|d|; else d_o = h_i + sum h_j (the focal boid is in its
//               own orientation sum) and d_a = sum d/|d|, each normalised before the two are
//               averaged; none: keep the heading;
//   noise     : the desired direction turned by a Gaussian angle of standard deviation sigma
//               (3D: a tangent vector of two Gaussians, the wrapped Gaussian on the sphere);
//   turn      : toward it by at most theta * tau; speed s; x <- x + v tau, then the boundary.
//
// Random draws are counter-based on (seed, id, kStreamNoise, 2 step + j) like the vicsek noise.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/model.hpp"
#include "core/rng.hpp"

namespace boids::couzin {

/// The three zone sums of one boid.
template <class Real>
struct Zones {
  double rep[3] = {0, 0, 0};  // sum of d/|d| over the repulsion zone
  double ori[3] = {0, 0, 0};  // sum of v_j/|v_j| over the orientation zone
  double att[3] = {0, 0, 0};  // sum of d/|d| over the attraction zone
  std::int32_t n_rep = 0, n_ori = 0, n_att = 0;
};

/// Adds one visible neighbour (offset d, |d|^2, velocity vj) to the zone sums.
template <class Real, int D>
inline void accumulate(const ModelParams<Real>& m, const Real* d, Real dist2, const Real* vj,
                       Zones<Real>& z) {
  const KindParams<Real>& kp = m.kind[0];
  double len = 0;
  for (int c = 0; c < D; ++c) len += double(d[c]) * double(d[c]);
  len = std::sqrt(len);
  if (dist2 < kp.sep_radius2) {
    z.n_rep += 1;
    // A coincident neighbour counts (repulsion takes priority) but has no direction.
    if (len > 0)
      for (int c = 0; c < D; ++c) z.rep[c] += double(d[c]) / len;
  } else if (dist2 < m.list.ori_radius2) {
    double vl = 0;
    for (int c = 0; c < D; ++c) vl += double(vj[c]) * double(vj[c]);
    vl = std::sqrt(vl);
    z.n_ori += 1;
    if (vl > 0)
      for (int c = 0; c < D; ++c) z.ori[c] += double(vj[c]) / vl;
  } else {
    z.n_att += 1;
    for (int c = 0; c < D; ++c) z.att[c] += double(d[c]) / len;
  }
}

template <int D>
inline double norm(const double* a) {
  double s = 0;
  for (int c = 0; c < D; ++c) s += a[c] * a[c];
  return std::sqrt(s);
}

/// A unit vector perpendicular to unit h (3D: h x the axis of h's smallest component).
template <int D>
inline void perpendicular(const double* h, double* e) {
  if constexpr (D == 2) {
    e[0] = -h[1];
    e[1] = h[0];
  } else {
    int a = 0;
    for (int c = 1; c < 3; ++c)
      if (std::abs(h[c]) < std::abs(h[a])) a = c;
    double ax[3] = {0, 0, 0};
    ax[a] = 1;
    e[0] = h[1] * ax[2] - h[2] * ax[1];
    e[1] = h[2] * ax[0] - h[0] * ax[2];
    e[2] = h[0] * ax[1] - h[1] * ax[0];
    const double l = norm<3>(e);
    for (int c = 0; c < 3; ++c) e[c] /= l;
  }
}

/// Turns unit u (in place) by Gaussian angular noise of standard deviation sigma (rad).
template <int D>
inline void gaussian_turn(double* u, double sigma, std::uint64_t seed, std::uint32_t id,
                          std::uint64_t step) {
  const double u1 = random_unit(seed, id, kStreamNoise, 2 * step);
  const double u2 = random_unit(seed, id, kStreamNoise, 2 * step + 1);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 in (0, 1]
  const double g1 = r * std::cos(6.283185307179586 * u2);
  const double g2 = r * std::sin(6.283185307179586 * u2);
  double e1[3] = {0, 0, 0};
  perpendicular<D>(u, e1);
  if constexpr (D == 2) {
    const double a = sigma * g1;
    const double ca = std::cos(a), sa = std::sin(a);
    for (int c = 0; c < 2; ++c) u[c] = ca * u[c] + sa * e1[c];
  } else {
    // The tangent vector t = sigma (g1 e1 + g2 e2); u moves along the great circle toward t
    // by the angle |t|.
    const double e2[3] = {u[1] * e1[2] - u[2] * e1[1], u[2] * e1[0] - u[0] * e1[2],
                          u[0] * e1[1] - u[1] * e1[0]};
    double t[3];
    for (int c = 0; c < 3; ++c) t[c] = sigma * (g1 * e1[c] + g2 * e2[c]);
    const double a = norm<3>(t);
    if (a > 0) {
      const double ca = std::cos(a), sa = std::sin(a);
      for (int c = 0; c < 3; ++c) u[c] = ca * u[c] + sa * t[c] / a;
    }
  }
  const double l = norm<D>(u);
  for (int c = 0; c < D; ++c) u[c] /= l;
}

/// The heading h (unit; the x axis for a boid at rest) of a kind-0 boid with velocity v and
/// its desired direction `want` (unit, before the noise) from its zones.
template <class Real, int D>
inline void desired(const Zones<Real>& z, const Real* v, double* h, double* want) {
  for (int c = 0; c < D; ++c) {
    h[c] = double(v[c]);
    want[c] = 0;
  }
  const double hl = norm<D>(h);
  for (int c = 0; c < D; ++c) h[c] = hl > 0 ? h[c] / hl : double(c == 0);

  if (z.n_rep > 0) {
    for (int c = 0; c < D; ++c) want[c] = -z.rep[c];
  } else if (z.n_ori > 0 || z.n_att > 0) {
    double o[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      o[c] = h[c] + z.ori[c];
      a[c] = z.att[c];
    }
    const double ol = norm<D>(o), al = norm<D>(a);
    if (z.n_ori > 0 && z.n_att > 0) {
      for (int c = 0; c < D; ++c)
        want[c] = 0.5 * ((ol > 0 ? o[c] / ol : 0.0) + (al > 0 ? a[c] / al : 0.0));
    } else {
      for (int c = 0; c < D; ++c) want[c] = z.n_ori > 0 ? o[c] : a[c];
    }
  }
  double wl = norm<D>(want);
  if (!(wl > 1e-12)) {
    for (int c = 0; c < D; ++c) want[c] = h[c];
    wl = 1;
  }
  for (int c = 0; c < D; ++c) want[c] /= wl;
}

/// The new heading and position of one boid: the desired direction (desired()), Gaussian noise
/// on it, then a turn toward it by at most theta * tau, at constant speed.
template <class Real, int D>
inline void finish(const ModelParams<Real>& m, const StepContext<Real>& ctx, std::uint32_t id,
                   const Zones<Real>& z, const Real* p, const Real* v, Real* p_out, Real* v_out) {
  const KindParams<Real>& kp = m.kind[0];
  double h[3] = {0, 0, 0}, want[3] = {0, 0, 0};
  desired<Real, D>(z, v, h, want);
  if (m.list.sigma > 0) gaussian_turn<D>(want, m.list.sigma, ctx.seed, id, ctx.step);

  // Turn toward the desired direction by at most theta * tau.
  double dot = 0;
  for (int c = 0; c < D; ++c) dot += h[c] * want[c];
  dot = std::max(-1.0, std::min(1.0, dot));
  const double angle = std::acos(dot);
  double nh[3] = {0, 0, 0};
  if (angle <= m.list.turn_per_step) {
    for (int c = 0; c < D; ++c) nh[c] = want[c];
  } else {
    double w[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) w[c] = want[c] - dot * h[c];
    const double wn = norm<D>(w);
    if (wn > 1e-12) {
      for (int c = 0; c < D; ++c) w[c] /= wn;
    } else {
      perpendicular<D>(h, w);  // want is straight behind: turn either way, a fixed one
    }
    const double ct = std::cos(m.list.turn_per_step), st = std::sin(m.list.turn_per_step);
    for (int c = 0; c < D; ++c) nh[c] = ct * h[c] + st * w[c];
  }
  const double nl = norm<D>(nh);
  Real nv[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) nv[c] = Real(nh[c] / nl * double(kp.max_speed));
  move<Real, D>(m, kp, p, nv, false, p_out, v_out);
}

}  // namespace boids::couzin
