// The standard model: the per-pair neighbour test and the per-boid update, written once as
// scalar templates and shared by the naive stepper and the grid engine, so both engines run
// literally the same arithmetic outside the neighbour sums. docs/model.md has the equations;
// the numbers in comments below refer to its steps.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "boids/world_def.hpp"
#include "core/behaviour_params.hpp"
#include "core/isa.hpp"
#include "core/store.hpp"

namespace boids {

/// One kind's parameters converted to the state type, with derived constants precomputed.
template <class Real>
struct KindParams {
  Real radius, radius2;  // r, r^2
  Real sep_radius2;      // r_s^2
  bool full_view;        // view_angle >= 360
  Real cos_half_view;    // cos(theta/2)
  Real w_sep, w_ali, w_coh;
  Real max_speed, min_speed, max_force;
  bool sep_linear;     // separation sums -d instead of -d/|d|^2 (the abm profile)
  bool track_nearest;  // FlockSums tracks the closest neighbour (closest_separation)
  double noise;        // rules.noise as a full width in radians (core/profile_vicsek.hpp)
  BehaviourParams<Real> beh;
};

/// Kind 0's neighbour-list rules (core/neighbour_list.hpp): the couzin profile and the
/// topological neighbours run their own per-boid pass instead of the FlockSums kernels.
template <class Real>
struct ListParams {
  bool active = false;       // couzin or topological: the engines take the list path for kind 0
  bool couzin = false;       // world.profile = "couzin"
  std::int32_t topo_k = 0;   // rules.topological_k with neighbours = topological, else 0
  Real ori_radius2 = 0;      // r_o^2 (couzin)
  double sigma = 0;          // couzin: Gaussian noise standard deviation (rad)
  double turn_per_step = 0;  // couzin: theta * tau (rad)
};

template <class Real>
struct ModelParams {
  int dims = 3;
  Boundary boundary = Boundary::wrap;
  Real size = 0, inv_size = 0, dt = 0;
  Real below_size = 0;  // nextafter(size, 0): the reflecting wall's largest inside value
  KindParams<Real> kind[kKindCount];
  WorldBehaviour<Real> beh;
  ListParams<Real> list;
  /// The instruction set of every kernel the engines select: dispatched_isa(engine.simd), so
  /// `engine.simd = false` runs the scalar kernels everywhere (the same bits either way).
  Isa isa = Isa::scalar;

  static ModelParams from_def(const WorldDef& d) {
    ModelParams m;
    m.isa = dispatched_isa(d.simd);
    m.dims = d.dims;
    m.boundary = d.boundary;
    m.size = Real(d.size);
    m.inv_size = Real(1.0 / d.size);
    m.below_size = std::nextafter(m.size, Real(0));
    m.dt = Real(d.dt);
    for (int k = 0; k < kKindCount; ++k) {
      const RuleDef& r = d.kinds[k].rules;
      const MotionDef& mo = d.kinds[k].motion;
      KindParams<Real>& p = m.kind[k];
      p.radius = Real(r.radius);
      p.radius2 = Real(r.radius * r.radius);
      p.sep_radius2 = Real(r.separation_radius * r.separation_radius);
      p.full_view = r.view_angle >= 360.0;
      p.cos_half_view = Real(std::cos(r.view_angle * 0.5 * 3.14159265358979323846 / 180.0));
      p.w_sep = Real(r.separation);
      p.w_ali = Real(r.alignment);
      p.w_coh = Real(r.cohesion);
      p.max_speed = Real(mo.max_speed);
      p.min_speed = Real(mo.min_speed);
      p.max_force = Real(mo.max_force);
      p.sep_linear = k == 0 && d.profile == Profile::abm;
      p.track_nearest = d.kinds[k].behaviour.closest_separation != 0;
      p.noise = k == 0 ? r.noise * 3.14159265358979323846 / 180.0 : 0.0;
      p.beh = behaviour_params<Real>(d.kinds[k], d.dt);
    }
    m.beh = world_behaviour<Real>(d);
    // Only kind 0 here: predators and leaders (active by default) switch the behaviour path
    // on by being present (prepare_behaviours), so a plain flock keeps the plain path.
    m.beh.any_kind_active = m.kind[0].beh.active;
    if (d.profile == Profile::abm) m.beh.any_kind_active = true;
    // Noise and the vicsek profile finish in core/profile_vicsek.hpp, on the behaviour path.
    if (d.profile == Profile::vicsek || d.kinds[0].rules.noise > 0) m.beh.any_kind_active = true;
    const RuleDef& r0 = d.kinds[0].rules;
    m.list.couzin = d.profile == Profile::couzin;
    m.list.topo_k = r0.neighbours == NeighbourRule::topological ? r0.topological_k : 0;
    m.list.active = m.list.couzin || m.list.topo_k > 0;
    m.list.ori_radius2 = Real(r0.orientation_radius * r0.orientation_radius);
    m.list.sigma = r0.noise * 3.14159265358979323846 / 180.0;
    m.list.turn_per_step = d.kinds[0].vehicle.turn_rate * 3.14159265358979323846 / 180.0 * d.dt;
    return m;
  }
};

/// Sums over the neighbours of one boid (step 3 before dividing by k).
template <class Real>
struct FlockSums {
  Real d[3] = {0, 0, 0};    // sum of d_ij
  Real v[3] = {0, 0, 0};    // sum of v_j
  Real sep[3] = {0, 0, 0};  // sum of -d_ij / |d_ij|^2 over 0 < |d_ij| < r_s
  std::int32_t k = 0;       // neighbour count
  // Closest visible neighbour, only when KindParams::track_nearest (threshold separation):
  // its squared distance (+inf when none) and offset d_ij. Ties go to the lexicographically
  // smaller offset, so the result does not depend on the order pairs are visited.
  Real near_d2 = std::numeric_limits<Real>::infinity();
  Real near_d[3] = {0, 0, 0};
};

/// Step 1: minimum-image displacement component in a wrapping world. Below half the world
/// size nearbyint gives +-0 and the result is d itself, so that case skips the call (without
/// SSE4.1 it is a library call that saves and restores the floating-point environment).
template <class Real>
inline Real min_image(Real d, Real size, Real inv_size) {
  const Real t = d * inv_size;
  if (t < Real(0.5) && t > Real(-0.5)) return d + Real(0);  // d - size * (+-0), exactly
  return d - size * std::nearbyint(t);
}

/// Steps 1-2 for one ordered pair (i sees j) and its contribution to the sums. `d` is
/// p_j - p_i after the minimum image; `vi_len` is |v_i| (computed once per boid).
template <class Real, int D>
inline void accumulate_pair(const KindParams<Real>& kp, const Real* d, const Real* vi, Real vi_len,
                            const Real* vj, FlockSums<Real>& s) {
  Real dist2 = 0;
  for (int c = 0; c < D; ++c) dist2 += d[c] * d[c];
  if (!(dist2 < kp.radius2)) return;
  if (!kp.full_view && vi_len > Real(0)) {
    Real dot = 0;
    for (int c = 0; c < D; ++c) dot += d[c] * vi[c];
    if (!(dot >= std::sqrt(dist2) * vi_len * kp.cos_half_view)) return;
  }
  s.k += 1;
  for (int c = 0; c < D; ++c) {
    s.d[c] += d[c];
    s.v[c] += vj[c];
  }
  // Pairs nearer than the smallest normal number count as coincident: 1/|d|^2 of a denormal
  // |d|^2 overflows to inf (two float boids 1e-19 apart), and the force would become NaN.
  if (dist2 >= std::numeric_limits<Real>::min() && dist2 < kp.sep_radius2) {
    if (kp.sep_linear) {
      for (int c = 0; c < D; ++c) s.sep[c] -= d[c];
    } else {
      const Real inv = Real(1) / dist2;
      for (int c = 0; c < D; ++c) s.sep[c] -= d[c] * inv;
    }
  }
  if (kp.track_nearest && dist2 <= s.near_d2) {
    bool take = dist2 < s.near_d2;
    for (int c = 0; c < D && !take && dist2 == s.near_d2; ++c) {
      if (d[c] != s.near_d[c]) {
        take = d[c] < s.near_d[c];
        break;
      }
    }
    if (take) {
      s.near_d2 = dist2;
      for (int c = 0; c < D; ++c) s.near_d[c] = d[c];
    }
  }
}

/// Step 4 before the clamp: the weighted flocking force from the sums.
template <class Real, int D>
inline void flock_force(const KindParams<Real>& kp, const FlockSums<Real>& s, const Real* vi,
                        Real* force) {
  if (s.k == 0) {
    for (int c = 0; c < D; ++c) force[c] = 0;
    return;
  }
  const Real inv_k = Real(1) / Real(s.k);
  for (int c = 0; c < D; ++c) {
    const Real coh = s.d[c] * inv_k;
    const Real ali = s.v[c] * inv_k - vi[c];
    force[c] = kp.w_sep * s.sep[c] + kp.w_ali * ali + kp.w_coh * coh;
  }
}

/// Step 6's reflecting wall for one coordinate: a position past a wall is mirrored back and
/// that velocity component flips; the result lies strictly inside [0, L) (a boid landing
/// exactly on the far wall x = L, or mirrored onto it, is put on the largest value below L,
/// so a state read back from a file is always a valid state). `below_size` = nextafter(L, 0).
template <class Real>
inline void reflect_coordinate(Real size, Real below_size, Real& x, Real& v) {
  if (x < Real(0)) {
    x = -x;
    v = -v;
  } else if (x >= size) {
    x = Real(2) * size - x;
    v = -v;
  }
  if (x >= size) x = below_size;
  if (x < Real(0)) x = Real(0);
}

/// Step 5 alone: scales `nv` into the speed limits [min_speed, max_speed] (a velocity at rest
/// stays at rest). move_limited() and the vehicles' noise hook (core/vehicles.hpp) share it.
template <class Real, int D>
inline void clamp_speed(Real max_speed, Real min_speed, Real* nv) {
  Real s2 = 0;
  for (int c = 0; c < D; ++c) s2 += nv[c] * nv[c];
  const Real s = std::sqrt(s2);
  if (s > max_speed) {
    const Real scale = max_speed / s;
    for (int c = 0; c < D; ++c) nv[c] *= scale;
  } else if (s > Real(0) && s < min_speed) {
    const Real scale = min_speed / s;
    for (int c = 0; c < D; ++c) nv[c] *= scale;
  }
}

/// Steps 5 (speed limits [min_speed, max_speed], when `limit_speed`) and 6 (position and
/// boundary) for a velocity `nv` already updated by the force. Shared by integrate() and the
/// vehicle models, which may pass limits other than the kind's (docs/behaviours.md).
template <class Real, int D>
inline void move_limited(const ModelParams<Real>& m, Real max_speed, Real min_speed, const Real* p,
                         Real* nv, bool limit_speed, Real* p_out, Real* v_out) {
  if (limit_speed) clamp_speed<Real, D>(max_speed, min_speed, nv);
  for (int c = 0; c < D; ++c) {
    Real x = p[c] + nv[c] * m.dt;
    if (m.boundary == Boundary::wrap) {
      x -= m.size * std::floor(x * m.inv_size);
      // floor can leave x == size for tiny negative x (x + size rounds up): fold it back.
      if (x >= m.size) x -= m.size;
      if (x < Real(0)) x = Real(0);
    } else if (m.boundary == Boundary::reflect) {
      reflect_coordinate(m.size, m.below_size, x, nv[c]);
    }
    p_out[c] = x;
    v_out[c] = nv[c];
  }
}

/// move_limited() with the kind's own speed limits.
template <class Real, int D>
inline void move(const ModelParams<Real>& m, const KindParams<Real>& kp, const Real* p, Real* nv,
                 bool limit_speed, Real* p_out, Real* v_out) {
  move_limited<Real, D>(m, kp.max_speed, kp.min_speed, p, nv, limit_speed, p_out, v_out);
}

/// Steps 4 (clamp), 5 and 6: turns a total steering force into the new velocity and
/// position, applying the speed limits and the boundary. Never produces NaN or Inf from
/// finite input: every division is guarded by a strictly positive divisor.
template <class Real, int D>
inline void integrate(const ModelParams<Real>& m, const KindParams<Real>& kp, const Real* p,
                      const Real* v, Real* force, Real* p_out, Real* v_out) {
  Real f2 = 0;
  for (int c = 0; c < D; ++c) f2 += force[c] * force[c];
  if (f2 > kp.max_force * kp.max_force) {
    const Real scale = kp.max_force / std::sqrt(f2);
    for (int c = 0; c < D; ++c) force[c] *= scale;
  }
  Real nv[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) nv[c] = v[c] + force[c] * m.dt;
  move<Real, D>(m, kp, p, nv, true, p_out, v_out);
}

/// Steps 1-3 for boid i over the candidate slots `slots` visits (for_each(f) calls f(j) for
/// each, ascending), the reference way: naive_sums() offers every slot; the sequential grid
/// engine (parallel/sequential_engine.cpp) the slots of the cells around i, which holds every
/// boid within reach, so the two add the same pairs in the same order: the same bits.
template <class Real, int D, class Slots>
inline FlockSums<Real> sums_over(const ModelParams<Real>& m, const BoidStore<Real>& s,
                                 std::size_t i, const Slots& slots,
                                 std::vector<std::uint32_t>* neighbour_ids = nullptr) {
  const KindParams<Real>& kp = m.kind[s.kind[i]];
  Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0};
  Real vi2 = 0;
  for (int c = 0; c < D; ++c) {
    pi[c] = s.p[c][i];
    vi[c] = s.v[c][i];
    vi2 += vi[c] * vi[c];
  }
  const Real vi_len = std::sqrt(vi2);
  FlockSums<Real> sums;
  slots([&](std::size_t j) {
    if (j == i || s.kind[j] != s.kind[i]) return;
    Real d[3] = {0, 0, 0}, vj[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      d[c] = s.p[c][j] - pi[c];
      if (m.boundary == Boundary::wrap) d[c] = min_image(d[c], m.size, m.inv_size);
      vj[c] = s.v[c][j];
    }
    const std::int32_t before = sums.k;
    accumulate_pair<Real, D>(kp, d, vi, vi_len, vj, sums);
    if (neighbour_ids && sums.k != before) neighbour_ids->push_back(s.id[j]);
  });
  return sums;
}

/// Steps 1-3 for boid i the reference way: every other boid of the same kind, in slot order.
/// The naive stepper and explain_forces() use it; `neighbour_ids`, when given, receives the
/// ids of the boids that counted.
template <class Real, int D>
inline FlockSums<Real> naive_sums(const ModelParams<Real>& m, const BoidStore<Real>& s,
                                  std::size_t i,
                                  std::vector<std::uint32_t>* neighbour_ids = nullptr) {
  const auto all = [&](const auto& f) {
    for (std::size_t j = 0; j < s.n; ++j) f(j);
  };
  return sums_over<Real, D>(m, s, i, all, neighbour_ids);
}

/// Per-step data shared by every boid's update, built once per step by prepare_step() before
/// the boid loop, identically by both engines. The behaviours add their per-step data here
/// (global centroid, special agents, targets); the standard model needs only the step number.
template <class Real>
struct StepContext {
  std::uint64_t step = 0;  // index of the step being computed (0 for the first)
  std::uint64_t seed = 0;  // world seed, for counter-based random draws keyed by (seed, id, step)
  BehaviourContext<Real> beh;  // behaviours' per-step data (core/behaviours.hpp)
};

/// A parallel-for over [0, n) in disjoint blocks, body(begin, end), for the per-step passes
/// whose items are independent (an engine's threads); empty: serial.
using BlockFor =
    std::function<void(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body)>;

/// An engine's look-up of the kind-0 slots near point p: appends slot ranges [begin, end) of
/// the store given to prepare_behaviours(), disjoint, together holding every kind-0 boid
/// within `reach` of p (the grid engine's cell list); empty: prepare_behaviours() builds its
/// own grid.
template <class Real>
using NearSlots = std::function<void(const Real* p, double reach,
                                     std::vector<std::pair<std::uint32_t, std::uint32_t>>& out)>;

// Defined in core/behaviour_prepare.cpp and core/behaviour_finish.cpp (core/behaviours.hpp).
template <class Real>
void prepare_behaviours(const ModelParams<Real>& m, const BoidStore<Real>& s,
                        StepContext<Real>& ctx, const BlockFor& pfor = {},
                        const NearSlots<Real>& near = {});
struct ForceRecorder;
template <class Real, int D>
void behaviour_finish(const ModelParams<Real>& m, const StepContext<Real>& ctx, std::uint8_t kind,
                      std::uint32_t id, const FlockSums<Real>& sums, const Real* p, const Real* v,
                      Real* p_out, Real* v_out, ForceRecorder* rec);

/// Builds the step context. `s` may be in any slot order; the result must not depend on it
/// beyond floating-point rounding of sums. Runs once per step, its per-predator part over
/// `pfor` when given (the same bits: each predator's result is its own).
template <class Real>
inline void prepare_step_into(StepContext<Real>& ctx, const ModelParams<Real>& m,
                              const BoidStore<Real>& s, std::uint64_t step, std::uint64_t seed,
                              const BlockFor& pfor = {}, const NearSlots<Real>& near = {}) {
  ctx.step = step;
  ctx.seed = seed;
  ctx.beh.reset();
  prepare_behaviours(m, s, ctx, pfor, near);
}

/// prepare_step_into() a fresh context. An engine that steps many times keeps one context and
/// calls prepare_step_into() instead: the same result, without allocating, page-faulting and
/// zeroing the predators' marks and grids again every step.
template <class Real>
inline StepContext<Real> prepare_step(const ModelParams<Real>& m, const BoidStore<Real>& s,
                                      std::uint64_t step, std::uint64_t seed,
                                      const BlockFor& pfor = {}, const NearSlots<Real>& near = {}) {
  StepContext<Real> ctx;
  prepare_step_into(ctx, m, s, step, seed, pfor, near);
  return ctx;
}

/// Everything after the neighbour sums for one boid: flocking force, clamps, integration and
/// boundary. Both engines call exactly this, so they differ only in how the sums were found.
template <class Real, int D>
inline void finish_boid(const ModelParams<Real>& m, const StepContext<Real>& ctx, std::uint8_t kind,
                        std::uint32_t id, const FlockSums<Real>& sums, const Real* p, const Real* v,
                        Real* p_out, Real* v_out) {
  if (ctx.beh.active) {
    behaviour_finish<Real, D>(m, ctx, kind, id, sums, p, v, p_out, v_out, nullptr);
    return;
  }
  const KindParams<Real>& kp = m.kind[kind];
  Real force[3] = {0, 0, 0};
  flock_force<Real, D>(kp, sums, v, force);
  integrate<Real, D>(m, kp, p, v, force, p_out, v_out);
}

/// finish_boid() for slot i of `in`, written to slot j of `out` (kind and id carried along):
/// the write-back loop of both engines.
template <class Real, int D>
inline void finish_slot(const ModelParams<Real>& m, const StepContext<Real>& ctx,
                        const BoidStore<Real>& in, std::size_t i, const FlockSums<Real>& sums,
                        BoidStore<Real>& out, std::size_t j) {
  Real p[3], v[3], po[3], vo[3];
  for (int c = 0; c < D; ++c) {
    p[c] = in.p[c][i];
    v[c] = in.v[c][i];
  }
  finish_boid<Real, D>(m, ctx, in.kind[i], in.id[i], sums, p, v, po, vo);
  for (int c = 0; c < D; ++c) {
    out.p[c][j] = po[c];
    out.v[c][j] = vo[c];
  }
  out.kind[j] = in.kind[i];
  out.id[j] = in.id[i];
}

}  // namespace boids

#include "core/behaviours.hpp"  // IWYU pragma: export
