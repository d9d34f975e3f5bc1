// The behaviour terms that look at the other kinds (docs/behaviours.md, "Leaders" and
// "Predators and prey"): follow the nearest leader, flee and evade the predators in view,
// chase the prey. Called by behaviour_finish() (core/behaviour_finish.cpp) in its fixed term
// order; each writes st.term and adds it (core/behaviour_steer.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/behaviour_math.hpp"
#include "core/behaviour_steer.hpp"
#include "core/behaviour_trig.hpp"
#include "core/model.hpp"

namespace boids::beh {

// The follower's own place in the loose group around a leader, relative to the leader: slot
// `id` of an even spiral (Vogel's sunflower in 2D, its layered analogue in 3D) whose slots
// are about one separation radius apart, starting follow_distance from the leader. Returns
// the slot's distance from the leader.
//
// In two halves around the one sin_cos, so the behaviour lanes can take the sines of a batch
// in SIMD lanes (sin_cos_n) between them with the same bits: follow_slot_angle gives the
// slot's radius r (before follow_distance), its angle a and (3D) its height z.
// follow_slot_angle with std::cbrt(id + 0.5) given as `cbrt_k` (3D; the lanes take it for a
// batch with cbrt_n, std::cbrt's bits).
template <int D>
inline void follow_slot_angle_cbrt(std::uint32_t id, double sep_radius2, double cbrt_k, double& r,
                                   double& a, double& z) {
  const double k = double(id) + 0.5;
  const double spacing = std::max(std::sqrt(sep_radius2), 1.0);
  const double tau = 2.0 * 3.14159265358979323846;
  if (D == 2) {
    r = spacing / std::sqrt(3.14159265358979323846) * std::sqrt(k);
    a = k * 2.39996322972865332;  // the golden angle
    z = 0;
  } else {
    r = spacing / std::cbrt(4.0 / 3.0 * 3.14159265358979323846) * cbrt_k;
    z = 1.0 - 2.0 * (k * 0.7548776662466927 - std::floor(k * 0.7548776662466927));
    a = tau * (k * 0.5698402909980532 - std::floor(k * 0.5698402909980532));
  }
}

template <int D>
inline void follow_slot_angle(std::uint32_t id, double sep_radius2, double& r, double& a,
                              double& z) {
  follow_slot_angle_cbrt<D>(id, sep_radius2, D == 3 ? std::cbrt(double(id) + 0.5) : 0.0, r, a, z);
}

template <class Real, int D>
inline Real follow_slot_finish(double r, double z, double sn, double cs, Real follow_distance,
                               Real* out) {
  double u[3] = {0, 0, 0};
  if (D == 2) {
    u[0] = cs;
    u[1] = sn;
  } else {
    const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
    u[0] = rxy * cs;
    u[1] = rxy * sn;
    u[2] = z;
  }
  r += double(follow_distance);
  for (int c = 0; c < D; ++c) out[c] = Real(r * u[c]);
  return Real(r);
}

template <class Real, int D>
inline Real follow_slot(std::uint32_t id, Real follow_distance, Real sep_radius2, Real* out) {
  double r = 0, a = 0, z = 0, sn = 0, cs = 0;
  follow_slot_angle<D>(id, double(sep_radius2), r, a, z);
  sin_cos(a, sn, cs);
  return follow_slot_finish<Real, D>(r, z, sn, cs, follow_distance, out);
}

// The nearest leader to p other than `id` (ties to the lower index), or leaders.size() for
// none, as follow_leader_term's scan finds it, from BehaviourContext::leader_soa: four float
// (two double) leaders per vector, each lane min_image_near()'s operations (its k from two
// comparisons, so no branch), d2 summed as dot() does, then the scan's strict-< argmin. The
// lanes' d2 are the scan's bits; where an offset is beyond min_image_near's |t| < 1.5 (a
// point outside the world) it returns `fallback` and the caller scans. Without the GNU
// vector extension it always falls back.
template <class Real, int D>
inline std::size_t scan_leaders(const ModelParams<Real>& m, const BehaviourContext<Real>& bc,
                                const Real* p, std::uint32_t id, std::size_t fallback) {
  const std::size_t nl = bc.leaders.size(), stride = bc.leader_stride;
  constexpr std::size_t kMax = 64;
  if (nl > kMax || stride < nl || bc.leader_soa.size() != 3 * stride) return fallback;
#if defined(__GNUC__)
  typedef Real V __attribute__((vector_size(16)));
  typedef std::conditional_t<sizeof(Real) == 4, std::int32_t, std::int64_t> I;
  typedef I VI __attribute__((vector_size(16)));
  constexpr std::size_t W = 16 / sizeof(Real);
  const bool wrap = m.boundary == Boundary::wrap;
  alignas(16) Real d2s[kMax];
  VI ok = VI{} == VI{};  // all lanes -1
  for (std::size_t j = 0; j < stride; j += W) {
    V d2 = V{} + Real(0);
    for (int c = 0; c < D; ++c) {
      V d;
      __builtin_memcpy(&d, bc.leader_soa.data() + std::size_t(c) * stride + j, sizeof(V));
      d = d - p[c];
      if (wrap) {
        const V t = d * m.inv_size;
        ok &= (t < Real(1.5)) & (t > Real(-1.5));
        const V k =
            __builtin_convertvector(t < Real(-0.5), V) - __builtin_convertvector(t > Real(0.5), V);
        d = (d + Real(0)) - m.size * k;
      }
      d2 = d2 + d * d;
    }
    __builtin_memcpy(d2s + j, &d2, sizeof(V));
  }
  for (std::size_t l = 0; l < W; ++l) {
    if (!ok[l]) return fallback;  // padding lanes (zeros) are always within range
  }
  // The scan skips the boid itself (a leader; the leaders are sorted by id).
  const auto self =
      std::lower_bound(bc.leaders.begin(), bc.leaders.end(), id,
                       [](const SpecialAgent<Real>& a, std::uint32_t x) { return a.id < x; });
  if (self != bc.leaders.end() && self->id == id)
    d2s[std::size_t(self - bc.leaders.begin())] = std::numeric_limits<Real>::infinity();
  // The scan's strict < keeps the first of the smallest d2 below infinity (NaN never wins):
  // the minimum (without branches), then its first index.
  Real best2 = std::numeric_limits<Real>::infinity();
  for (std::size_t j = 0; j < nl; ++j) best2 = d2s[j] < best2 ? d2s[j] : best2;
  if (!(best2 < std::numeric_limits<Real>::infinity())) return nl;
  std::size_t best = 0;
  while (!(d2s[best] == best2)) ++best;
  return best;
#else
  (void)m, (void)p, (void)id;
  return fallback;
#endif
}

// The point follow_leader arrives at, as an offset from p: the boid's own slot of a loose
// group around the nearest leader, shifted behind it while it moves (follow_slot). False when
// there is no leader to follow.
template <class Real, int D>
inline bool follow_point(const ModelParams<Real>& m, const KindParams<Real>& kp,
                         const BehaviourContext<Real>& bc, std::uint32_t id, const Real* p,
                         Real* best_to) {
  const BehaviourParams<Real>& b = kp.beh;
  const SpecialAgent<Real>* best = nullptr;
  Real best2 = std::numeric_limits<Real>::infinity();
  if (bc.leader_grid.size() == bc.leaders.size() && !bc.leaders.empty()) {
    // Many leaders: their grid gives the scan's answer (the nearest, ties to the lower id).
    const std::size_t k = bc.leader_grid.nearest(
        p,
        [&](std::uint32_t j) {
          Real to[3] = {0, 0, 0};
          offset<Real, D>(m, p, bc.leaders[j].p, to);
          return dot<Real, D>(to, to);
        },
        [&](std::uint32_t j) { return bc.leaders[j].id != id; });
    if (k < bc.leaders.size()) {
      best = &bc.leaders[k];
      offset<Real, D>(m, p, best->p, best_to);
    }
  } else if (const std::size_t k = scan_leaders<Real, D>(m, bc, p, id, ~std::size_t(0));
             k != ~std::size_t(0)) {
    if (k < bc.leaders.size()) {
      best = &bc.leaders[k];
      offset<Real, D>(m, p, best->p, best_to);
    }
  } else {
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
  }
  if (!best) return false;
  Real lh[3] = {best->v[0], best->v[1], D == 3 ? best->v[2] : Real(0)};
  normalize<Real, D>(lh);
  Real slot[3] = {0, 0, 0};
  const Real r = follow_slot<Real, D>(id, b.follow_distance, kp.sep_radius2, slot);
  for (int c = 0; c < D; ++c) best_to[c] += slot[c] - lh[c] * (b.follow_distance + r);
  return true;
}

// Leader following: arrive at follow_point(). `v_arr` is the velocity the arrival brakes
// from, `brake_acc` the vehicle's braking acceleration.
template <class Real, int D>
inline void follow_leader_term(const ModelParams<Real>& m, const KindParams<Real>& kp,
                               const BehaviourContext<Real>& bc, std::uint32_t id,
                               const Real* v_arr, Real brake_acc, Steer<Real, D>& st) {
  const BehaviourParams<Real>& b = kp.beh;
  Real best_to[3] = {0, 0, 0};
  if (follow_point<Real, D>(m, kp, bc, id, st.p, best_to)) {
    st.arriving(arrive_to<Real, D>(b.follow_leader, b.mass, best_to, st.ms, brake_acc, m.dt, v_arr,
                                   st.term),
                best_to);
    st.add("follow_leader");
  }
}

// Prey: escape every predator in view, away from it and out of its path, at up to
// flee_boost * max_speed (docs/behaviours.md, "Predators and prey").
template <class Real, int D>
inline void flee_predators_term(const ModelParams<Real>& m, const KindParams<Real>& kp,
                                const BehaviourContext<Real>& bc, Steer<Real, D>& st) {
  const BehaviourParams<Real>& b = kp.beh;
  const Real* p = st.p;
  const Real* v = st.v;
  const Real v_len = st.v_len;
  const Real ms = st.ms;
  Real* term = st.term;
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
    st.hint.max_speed = boost;
    if (normalize<Real, D>(esc) > Real(0)) {
      for (int c = 0; c < D; ++c) esc[c] *= boost;
      steer_to<Real, D>(b.flee_predators, esc, v, term);
    }
  }
  st.add("flee_predators");
}

// Prey: evade the nearest predator in view, aiming away from its predicted position
// (T = distance / the prey's max_speed, as for pursuit).
template <class Real, int D>
inline void evade_predators_term(const ModelParams<Real>& m, const KindParams<Real>& kp,
                                 const BehaviourContext<Real>& bc, Steer<Real, D>& st) {
  const BehaviourParams<Real>& b = kp.beh;
  const Real* p = st.p;
  const Real* v = st.v;
  const Real v_len = st.v_len;
  const Real ms = st.ms;
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
    seek_dir<Real, D>(b.evade_predators, away, ms, v, st.term);
    st.add("evade_predators");
  }
}

// Whether a prey at p moving with v sees a predator (a superset of the boids the two terms
// above act on): the grid engine finishes the others in SIMD batches.
template <class Real, int D>
inline bool sees_a_predator(const ModelParams<Real>& m, const KindParams<Real>& kp,
                            const BehaviourContext<Real>& bc, const Real* p, const Real* v) {
  if (bc.predators.empty()) return false;
  const Real v_len = norm<Real, D>(v);
  bool seen = false;
  bc.predator_grid.for_near(p, [&](std::uint32_t k) {
    Real d[3] = {0, 0, 0};
    offset<Real, D>(m, p, bc.predators[k].p, d);
    seen = seen || sees<Real, D>(kp, d, dot<Real, D>(d, d), v, v_len);
  });
  return seen;
}

/// Whether kind 0's behaviour path adds nothing to the plain standard model except the prey's
/// terms (flee/evade predators), so that a prey that sees no predator gets the plain
/// finish's bits (summed in behaviour order, FinishView::behaviour_order).
template <class Real>
inline bool only_prey_terms(const ModelParams<Real>& m, const BehaviourContext<Real>& bc) {
  return !m.beh.any_kind_active && !m.beh.obstacles &&
         (bc.leaders.empty() || m.kind[0].beh.follow_leader == Real(0));
}

/// Whether the grid engine may finish kind 0 in behaviour lanes (FinishView::behaviour,
/// core/behaviour_lanes_impl.hpp): the standard profile without rules.noise, the point-mass
/// vehicle with mass 1, no containment walls, and for the prey's terms the predator grid's
/// neighbourhood lists.
template <class Real>
inline bool lanes_finish_ok(const ModelParams<Real>& m, const BehaviourContext<Real>& bc) {
  const KindParams<Real>& kp = m.kind[0];
  const BehaviourParams<Real>& b = kp.beh;
  const bool prey_terms =
      !bc.predators.empty() && (b.flee_predators != Real(0) || b.evade_predators != Real(0));
  return m.beh.profile == Profile::standard && !(kp.noise > Real(0)) &&
         b.vehicle == Vehicle::point_mass && b.inv_mass == Real(1) &&
         (b.containment == Real(0) || m.boundary == Boundary::wrap) &&
         (!prey_terms || bc.predator_grid.has_near_lists());
}

// Predators: chase what prepare_step found.
template <class Real, int D>
inline void chase_term(const KindParams<Real>& kp, const BehaviourContext<Real>& bc,
                       std::uint32_t id, Steer<Real, D>& st) {
  const BehaviourParams<Real>& b = kp.beh;
  const Real* v = st.v;
  const Real ms = st.ms;
  Real* term = st.term;
  auto it = std::lower_bound(bc.predators.begin(), bc.predators.end(), id,
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
    st.add("chase");
  }
}

}  // namespace boids::beh
