// The lane helpers of BehaviourLanes (core/behaviour_lanes_impl.hpp): vector forms of the
// scalar behaviour code's small functions (beh::normalize, offset, seek_dir, arrive_to,
// clear_after_step, follow_point), each with the scalar code's operations in its order, so
// each lane has the scalar bits. Included by behaviour_lanes_impl.hpp only.
#pragma once

#include <cstdint>
#include <limits>

#include "core/behaviour_kinds.hpp"
#include "core/behaviour_math.hpp"
#include "core/behaviour_trig_n.hpp"
#include "core/kernels.hpp"
#include "core/obstacles.hpp"
#include "core/prey_finish_impl.hpp"

namespace boids {
namespace {
namespace kernels_detail {

template <class P, class Real, int D, Boundary BND>
struct BehaviourLaneOps {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;

  struct Ctx {
    B zero, one, minus_one, size, inv_size, ms;
  };

  static B dot(const B* a, const B* b, B zero) {
    B s = zero;
    for (int c = 0; c < D; ++c) s = s + a[c] * b[c];
    return s;
  }
  // beh::normalize: a <- a / |a| where |a| > 0; returns |a|.
  static B normalize(B* a, const Ctx& k) {
    const B n = P::sqrt(dot(a, a, k.zero));
    const M pos = n > k.zero;
    const B inv = k.one / n;
    for (int c = 0; c < D; ++c) a[c] = P::sel(pos, a[c] * inv, a[c]);
    return n;
  }
  // beh::offset from the lanes' p to a fixed point q (min_image_near has min_image's bits).
  static void offset_to(const B* p, const Real* q, B* out, const Ctx& k) {
    for (int c = 0; c < D; ++c) {
      out[c] = P::splat(q[c]) - p[c];
      if constexpr (BND == Boundary::wrap)
        out[c] = PreyLanes<P, Real, D, BND>::image(out[c], k.size, k.inv_size);
    }
  }
  // beh::seek_dir: w * (dir / |dir| * speed - v), or w * (dir - v) for a zero dir.
  static void seek_dir(Real w, const B* dir, const B* v, B* term, const Ctx& k) {
    B des[D];
    for (int c = 0; c < D; ++c) des[c] = dir[c];
    const M pos = normalize(des, k) > k.zero;
    const B wb = P::splat(w);
    for (int c = 0; c < D; ++c) term[c] = wb * (P::sel(pos, des[c] * k.ms, des[c]) - v[c]);
  }
  static void add(B* force, const B* term) {
    for (int c = 0; c < D; ++c) force[c] = force[c] + term[c];
  }
  static void add_if(B* force, const B* term, M m) {
    for (int c = 0; c < D; ++c) force[c] = P::sel(m, force[c] + term[c], force[c]);
  }
  // beh::arrival_speed for the W lanes of `dist`: the pack's double lanes where it has them
  // (XsimdPacks::arrival_speeds, the same operations, so the same bits), else per lane.
  static void arrival_speeds(const Real* dist, Real ms, Real brake_acc, Real dt, Real* out) {
    if constexpr (requires { P::arrival_speeds(dist, ms, brake_acc, dt, out); }) {
      P::arrival_speeds(dist, ms, brake_acc, dt, out);
    } else {
      for (int l = 0; l < W; ++l) out[l] = beh::arrival_speed(dist[l], ms, brake_acc, dt);
    }
  }

  // beh::clear_after_step for the lanes (p before the step, x after it, near the nearest
  // surface avoid_term found): the same operations, so the same answer per lane.
  static M clear_after_step(const ModelParams<Real>& m, const B* p, const B* x, B near,
                            const Ctx& k) {
    const B lim = near * P::splat(Real(0.999)) - P::splat(Real(4) * beh::obstacle_skin(m));
    M ok = P::and_(near > k.zero, lim > k.zero);
    B d[D];
    for (int c = 0; c < D; ++c) {
      d[c] = x[c] - p[c];
      if constexpr (BND == Boundary::wrap)
        d[c] = PreyLanes<P, Real, D, BND>::image(d[c], k.size, k.inv_size);
    }
    ok = P::and_(ok, dot(d, d, k.zero) * P::splat(Real(1.003)) < lim * lim);
    if constexpr (BND == Boundary::reflect)
      for (int c = 0; c < D; ++c) ok = P::and_(ok, P::and_(x[c] >= k.zero, x[c] < k.size));
    return ok;
  }

  // beh::arrive_to with the arrival speed per lane (arrival_speeds), and Steer::arriving
  // (the first arrival of a lane lowers its speed floor) for the lanes of `m`.
  static void arrive(Real w, Real mass, Real ms, Real brake_acc, Real dt, const B* to, const B* v,
                     B v_len, M m, M& arriving, B& min_speed, B* force, const Ctx& k) {
    B des[D];
    for (int c = 0; c < D; ++c) des[c] = to[c];
    const B dist = normalize(des, k);
    alignas(64) Real dl[W], sl[W];
    P::store(dl, dist);
    arrival_speeds(dl, ms, brake_acc, dt, sl);
    const B speed = P::load(sl);
    const B wb = P::splat(w * mass / dt);
    B term[D];
    for (int c = 0; c < D; ++c) term[c] = wb * (des[c] * speed - v[c]);
    // Steer::arriving: min(min_speed, speed * max(cos, 0)), cos = v.to / (|to| |v|) or 0.
    const M first = P::and_(m, !arriving);
    const B tn = P::sqrt(dot(to, to, k.zero));
    const M both = P::and_(tn > k.zero, v_len > k.zero);
    const B cosv = P::sel(both, dot(v, to, k.zero) / (tn * v_len), k.zero);
    const B floor = speed * P::sel(cosv < k.zero, k.zero, cosv);
    min_speed = P::sel(P::and_(first, floor < min_speed), floor, min_speed);
    arriving = P::or_(arriving, m);
    add_if(force, term, m);
  }

  // beh::follow_point per lane (the leader grid's look-up).
  template <class T>
  static M follow_points_grid(const ModelParams<Real>& m, const KindParams<Real>& kp,
                              const BehaviourContext<Real>& bc, const std::uint32_t* ids,
                              const std::uint32_t* slot, const T& t, B* tb, const Ctx& k) {
    alignas(64) Real to[3][W], found[W];
    for (int l = 0; l < W; ++l) {
      Real q[3] = {0, 0, 0}, o[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) q[c] = t[2 + 3 * D + c][l];
      found[l] = beh::follow_point<Real, D>(m, kp, bc, ids[slot[l]], q, o) ? Real(1) : Real(0);
      for (int c = 0; c < D; ++c) to[c][l] = o[c];
    }
    for (int c = 0; c < D; ++c) tb[c] = P::load(to[c]);
    return P::load(found) != k.zero;
  }

  // beh::follow_point with the leader scan in lanes: every leader in id order, the offset
  // and d2 as offset() and dot() give them, the scan's strict < (the first nearest; the
  // lanes are kind 0, never a leader itself), the nearest's heading; then the boid's slot
  // (follow_slot: its cube roots and sin/cos for the W lanes at once, cbrt_n and sin_cos_n).
  static void follow_points_scan(const KindParams<Real>& kp, const BehaviourContext<Real>& bc,
                                 const std::uint32_t* ids, const std::uint32_t* slot, const B* p,
                                 B* tb, M& fm, const Ctx& k) {
    const BehaviourParams<Real>& b = kp.beh;
    B best2 = P::splat(std::numeric_limits<Real>::infinity());
    B lh[D];
    for (int c = 0; c < D; ++c) tb[c] = lh[c] = k.zero;
    fm = k.zero != k.zero;
    for (const SpecialAgent<Real>& a : bc.leaders) {
      B d[D];
      offset_to(p, a.p, d, k);
      const B d2 = dot(d, d, k.zero);
      const M lt = d2 < best2;
      if (!P::any(lt)) continue;
      Real h[3] = {a.v[0], a.v[1], D == 3 ? a.v[2] : Real(0)};
      beh::normalize<Real, D>(h);
      best2 = P::sel(lt, d2, best2);
      for (int c = 0; c < D; ++c) {
        tb[c] = P::sel(lt, d[c], tb[c]);
        lh[c] = P::sel(lt, P::splat(h[c]), lh[c]);
      }
      fm = P::or_(fm, lt);
    }
    // beh::follow_slot per lane, its sin_cos for the W lanes at once (sin_cos_n).
    alignas(64) Real sl[3][W], rl[W];
    alignas(64) double r[W], a[W], z[W], sn[W], cs[W], kc[W];
    if constexpr (D == 3) {
      for (int l = 0; l < W; ++l) a[l] = double(ids[slot[l]]) + 0.5;
      beh::cbrt_n(a, kc, std::size_t(W));  // std::cbrt's bits
    }
    for (int l = 0; l < W; ++l)
      beh::follow_slot_angle_cbrt<D>(ids[slot[l]], double(kp.sep_radius2), D == 3 ? kc[l] : 0.0,
                                     r[l], a[l], z[l]);
    beh::sin_cos_n(a, sn, cs, std::size_t(W));
    for (int l = 0; l < W; ++l) {
      Real o[3] = {0, 0, 0};
      rl[l] = beh::follow_slot_finish<Real, D>(r[l], z[l], sn[l], cs[l], b.follow_distance, o);
      for (int c = 0; c < D; ++c) sl[c][l] = o[c];
    }
    const B back = P::splat(b.follow_distance) + P::load(rl);
    for (int c = 0; c < D; ++c) tb[c] = tb[c] + (P::load(sl[c]) - lh[c] * back);
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
