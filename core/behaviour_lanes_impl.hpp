// behaviour_finish() (core/behaviour_finish.cpp) for W boids of kind 0 at once, SIMD lanes =
// boids, for the grid engine's cells when behaviours are on (FinishView::behaviour, decided
// by beh::lanes_finish_ok). Included by kernels_finish_impl.hpp only, so it is compiled once
// per instruction set.
//
// Design. Each lane runs the scalar terms' operations in their order, with selects for their
// branches (a lane not taking a branch keeps its value exactly), so a lane's result has the
// bits of behaviour_finish() for that boid: the force starts at +0 and each term is added to
// it in behaviour_finish's order, where the scalar code adds it. The parts that are not plain
// arithmetic run per lane through the scalar code itself: the wander keyframes (hash and
// trigonometry), the leader look-up and slot, the obstacle avoidance and the push-out; the
// keyframes' and the slots' sines are taken for the batch at once (sin_cos_n, sin_cos's
// bits), and the arrival speed (double) runs in double lanes where the pack has them
// (XsimdPacks::arrival_speeds, the same operations). The prey's terms are PreyLanes'
// (core/prey_finish_impl.hpp) with every lane marked. Only the point-mass vehicle with mass
// 1, without rules.noise, in the standard profile (the conditions of lanes_finish_ok).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/behaviour_avoid.hpp"
#include "core/behaviour_kinds.hpp"
#include "core/behaviour_lanes_ops_impl.hpp"
#include "core/behaviour_math.hpp"
#include "core/behaviour_rng_n.hpp"
#include "core/behaviour_trig_n.hpp"
#include "core/kernels.hpp"
#include "core/obstacles.hpp"
#include "core/prey_finish_impl.hpp"
#include "core/rng.hpp"

namespace boids {
namespace {
namespace kernels_detail {

template <class P, class Real, int D, Boundary BND>
struct BehaviourLanes : BehaviourLaneOps<P, Real, D, BND> {
  using Ops = BehaviourLaneOps<P, Real, D, BND>;
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;
  using Ctx = typename Ops::Ctx;
  using Ops::add;
  using Ops::add_if;
  using Ops::arrive;
  using Ops::clear_after_step;
  using Ops::dot;
  using Ops::follow_points_grid;
  using Ops::follow_points_scan;
  using Ops::normalize;
  using Ops::offset_to;
  using Ops::seek_dir;

  static void rows(const FinishView<Real>& f, std::uint32_t first, std::uint32_t count,
                   const FlockSums<Real>* sums) {
    const ModelParams<Real>& m = *f.model;
    const StepContext<Real>& ctx = *f.step;
    const BehaviourContext<Real>& bc = ctx.beh;
    const WorldBehaviour<Real>& w = m.beh;
    const KindParams<Real>& kp = m.kind[0];
    const BehaviourParams<Real>& b = kp.beh;
    Ctx k;
    k.zero = P::splat(Real(0));
    k.one = P::splat(Real(1));
    k.minus_one = P::splat(Real(-1));
    k.size = P::splat(m.size);
    k.inv_size = P::splat(m.inv_size);
    k.ms = P::splat(kp.max_speed);
    const B zero = k.zero, one = k.one, minus_one = k.minus_one;
    const B dt = P::splat(m.dt), two_size = P::splat(Real(2) * m.size);
    const B below_size = P::splat(m.below_size);
    const Real ms = kp.max_speed;
    const B max_force = P::splat(kp.max_force), max_force2 = P::splat(kp.max_force * kp.max_force);
    const Real brake_acc = kp.max_force * b.inv_mass;  // drive(): point mass
    const bool predators =
        !bc.predators.empty() && (b.flee_predators != Real(0) || b.evade_predators != Real(0));
    // Wander's time: the same for every boid.
    double wander_key0 = 0;
    Real sm = 0;
    if (b.wander != Real(0)) {
      const double tt = double(ctx.step) * double(m.dt) / b.wander_period;
      wander_key0 = std::floor(tt);
      const Real fr = Real(tt - wander_key0);
      sm = fr * fr * (Real(3) - Real(2) * fr);
    }
    std::vector<std::uint32_t> cand;  // PreyLanes' scratch
    for (std::uint32_t bt = 0; bt < count; bt += W) {
      const std::uint32_t n = count - bt < std::uint32_t(W) ? count - bt : std::uint32_t(W);
      // AoS sums and the slots' state into lanes; a short last batch repeats its last boid.
      alignas(64) Real t[2 + 6 * D][W];
      std::uint32_t slot[W];
      for (int l = 0; l < W; ++l) {
        const std::uint32_t kk = bt + (std::uint32_t(l) < n ? std::uint32_t(l) : n - 1);
        slot[l] = first + kk;
        const FlockSums<Real>& sk = sums[kk];
        t[0][l] = Real(sk.k);
        t[1][l] = sk.near_d2;
        for (int c = 0; c < D; ++c) {
          t[2 + c][l] = sk.d[c];
          t[2 + D + c][l] = sk.v[c];
          t[2 + 2 * D + c][l] = sk.sep[c];
          t[2 + 3 * D + c][l] = f.p[c][first + kk];
          t[2 + 4 * D + c][l] = f.v[c][first + kk];
          t[2 + 5 * D + c][l] = sk.near_d[c];
        }
      }
      B p[D], v[D];
      for (int c = 0; c < D; ++c) {
        p[c] = P::load(t[2 + 3 * D + c]);
        v[c] = P::load(t[2 + 4 * D + c]);
      }
      const B v_len = P::sqrt(dot(v, v, zero));  // Steer::v_len
      B force[D], term[D];
      for (int c = 0; c < D; ++c) force[c] = zero;
      B limit = k.ms, lo = P::splat(kp.min_speed);  // Steer::hint's speed limits
      M arriving = zero != zero, boosted = zero != zero;
      // The three rules, with the threshold variant of cohesion.
      {
        const B kk = P::load(t[0]);
        const M has = kk > zero;
        const B inv_k = one / kk;
        for (int c = 0; c < D; ++c) term[c] = P::splat(kp.w_sep) * P::load(t[2 + 2 * D + c]);
        add_if(force, term, has);
        for (int c = 0; c < D; ++c)
          term[c] = P::splat(kp.w_ali) * (P::load(t[2 + D + c]) * inv_k - v[c]);
        add_if(force, term, has);
        B coh[D];
        for (int c = 0; c < D; ++c) coh[c] = P::load(t[2 + c]) * inv_k;
        M far = zero == zero;
        if (b.cohesion_max2 > Real(0)) far = dot(coh, coh, zero) > P::splat(b.cohesion_max2);
        for (int c = 0; c < D; ++c) term[c] = P::sel(far, P::splat(kp.w_coh) * coh[c], zero);
        add_if(force, term, has);
      }
      if (b.closest_separation != Real(0)) {
        const B nd2 = P::load(t[1]);
        const M close = P::and_(nd2<P::splat(b.closest_min2), nd2> zero);
        B away[D];
        for (int c = 0; c < D; ++c) away[c] = P::load(t[2 + 5 * D + c]) * minus_one;
        seek_dir(b.closest_separation, away, v, term, k);
        add_if(force, term, close);
      }
      if (b.global_cohesion != Real(0)) {
        B to[D];
        offset_to(p, bc.centre[0], to, k);
        M far = zero == zero;
        if (b.cohesion_max2 > Real(0)) far = dot(to, to, zero) > P::splat(b.cohesion_max2);
        for (int c = 0; c < D; ++c)
          term[c] = P::sel(far, P::splat(b.global_cohesion) * to[c], zero);
        add(force, term);
      }
      if (b.destination_alignment != Real(0)) {
        B dir[D];
        for (int c = 0; c < D; ++c) dir[c] = P::splat(bc.dest_dir[0][c]);
        seek_dir(b.destination_alignment, dir, v, term, k);
        add(force, term);
      }
      const M all = zero == zero;
      if (b.seek != Real(0) || b.arrive != Real(0)) {
        B to[D];
        offset_to(p, w.goal, to, k);
        if (b.seek != Real(0)) {
          seek_dir(b.seek, to, v, term, k);
          add(force, term);
        }
        if (b.arrive != Real(0))
          arrive(b.arrive, b.mass, ms, brake_acc, m.dt, to, v, v_len, all, arriving, lo, force, k);
      }
      if (b.flee != Real(0) || b.pursue != Real(0) || b.evade != Real(0)) {
        B to[D];
        offset_to(p, bc.target_p, to, k);
        if (b.flee != Real(0)) {
          B away[D];
          for (int c = 0; c < D; ++c) away[c] = to[c] * minus_one;
          seek_dir(b.flee, away, v, term, k);
          if (b.flee_radius2 > Real(0)) {
            const M in = dot(to, to, zero) < P::splat(b.flee_radius2);
            for (int c = 0; c < D; ++c) term[c] = P::sel(in, term[c], zero);
          }
          add(force, term);
        }
        if (b.pursue != Real(0) || b.evade != Real(0)) {
          const B tt = P::sqrt(dot(to, to, zero)) / k.ms;
          B pred[D];
          for (int c = 0; c < D; ++c) pred[c] = to[c] + P::splat(bc.target_v[c]) * tt;
          if (b.pursue != Real(0)) {
            seek_dir(b.pursue, pred, v, term, k);
            add(force, term);
          }
          if (b.evade != Real(0)) {
            B away[D];
            for (int c = 0; c < D; ++c) away[c] = pred[c] * minus_one;
            seek_dir(b.evade, away, v, term, k);
            add(force, term);
          }
        }
      }
      if (b.wander != Real(0)) {
        B h[D];
        for (int c = 0; c < D; ++c) h[c] = v[c];
        const M mv = normalize(h, k) > zero;
        h[0] = P::sel(mv, h[0], one);
        // The keyframes key and key + 1 per lane: beh::wander_key's operations, with the
        // 2W angles' sin_cos in SIMD lanes (sin_cos_n: sin_cos's bits).
        alignas(64) Real u0[3][W], u1[3][W];
        const std::uint64_t key = std::uint64_t(wander_key0);
        alignas(64) double ang[2 * W], zs[2 * W], sn[2 * W], cs[2 * W];
        alignas(64) std::uint64_t idl[W];
        for (int l = 0; l < W; ++l) idl[l] = f.id[slot[l]];
        beh::wander_draws_n(ctx.seed, idl, key, D == 3, ang, zs, std::size_t(W));
        beh::sin_cos_n(ang, sn, cs, std::size_t(2 * W));
        for (int j = 0; j < 2; ++j) {
          Real(*u)[W] = j == 0 ? u0 : u1;
          for (int l = 0; l < W; ++l) {
            const int q = j * W + l;
            if constexpr (D == 2) {
              u[0][l] = Real(cs[q]);
              u[1][l] = Real(sn[q]);
            } else {
              const double rxy = std::sqrt(std::max(0.0, 1.0 - zs[q] * zs[q]));
              u[0][l] = Real(rxy * cs[q]);
              u[1][l] = Real(rxy * sn[q]);
              u[2][l] = Real(zs[q]);
            }
          }
        }
        B u[D], a0[D];
        const B smb = P::splat(sm);
        for (int c = 0; c < D; ++c) {
          a0[c] = P::load(u0[c]);
          u[c] = a0[c] + (P::load(u1[c]) - a0[c]) * smb;
        }
        const M un = normalize(u, k) > zero;
        B tgt[D];
        for (int c = 0; c < D; ++c) {
          u[c] = P::sel(un, u[c], a0[c]);
          tgt[c] = h[c] * P::splat(b.wander_distance) + u[c] * P::splat(b.wander_radius);
        }
        seek_dir(b.wander, tgt, v, term, k);
        add(force, term);
      }
      if (b.follow_leader != Real(0) && !bc.leaders.empty()) {
        B tb[D];
        M fm;
        if (bc.leader_grid.size() == bc.leaders.size()) {
          fm = follow_points_grid(m, kp, bc, f.id, slot, t, tb, k);
        } else {
          follow_points_scan(kp, bc, f.id, slot, p, tb, fm, k);
        }
        arrive(b.follow_leader, b.mass, ms, brake_acc, m.dt, tb, v, v_len, fm, arriving, lo, force,
               k);
      }
      if (predators) {
        PreyLanes<P, Real, D, BND>::add(f, slot, p, v, all, force, limit, boosted, cand);
      }
      alignas(64) Real near_min[W];
      for (int l = 0; l < W; ++l) near_min[l] = -std::numeric_limits<Real>::infinity();
      if (b.avoid != Real(0) && w.obstacles) {
        alignas(64) Real at[3][W];
        for (int l = 0; l < W; ++l) {
          Real q[3] = {0, 0, 0}, vq[3] = {0, 0, 0}, o[3] = {0, 0, 0};
          for (int c = 0; c < D; ++c) {
            q[c] = t[2 + 3 * D + c][l];
            vq[c] = t[2 + 4 * D + c][l];
          }
          // avoid_term's own first test, here without the call: most lanes have no obstacle
          // near (a zero term, and avoid_distance as the nearest surface).
          near_min[l] = w.obstacle_grid.none_near(q) ? b.avoid_distance
                                                     : beh::avoid_term<Real, D>(m, b, q, vq, ms, o);
          for (int c = 0; c < D; ++c) at[c][l] = o[c];
        }
        for (int c = 0; c < D; ++c) term[c] = P::load(at[c]);
        add(force, term);
      }
      if (b.formation != Real(0)) {
        B to[D];
        offset_to(p, bc.target_p, to, k);
        if (bc.target_moving) {
          seek_dir(b.formation, to, v, term, k);
        } else {
          B r[D];
          for (int c = 0; c < D; ++c) r[c] = to[c] * minus_one;
          const B dist = normalize(r, k);
          const M pos = dist > zero;
          for (int c = 0; c < D; ++c) r[c] = P::sel(pos, r[c], c == 0 ? one : zero);
          // std::clamp(x, -ms, ms): x < -ms ? -ms : (ms < x ? ms : x).
          const B x = (P::splat(w.formation_radius) - dist) / P::splat(w.formation_settle);
          const B lo_ms = P::splat(-ms);
          const B radial = P::sel(x < lo_ms, lo_ms, P::sel(k.ms < x, k.ms, x));
          const B vr = dot(v, r, zero);
          B tg[D];
          for (int c = 0; c < D; ++c) tg[c] = v[c] - vr * r[c];
          const M tpos = normalize(tg, k) > zero;
          Real sc0[3] = {0, 0, 0};
          beh::offset<Real, D>(m, bc.target_p, bc.centre[0], sc0);  // centre - target
          B sc[D];
          for (int c = 0; c < D; ++c) sc[c] = P::splat(sc0[c]);
          const B scr = dot(sc, r, zero);
          const B glide = P::splat(w.formation_glide), settle = P::splat(w.formation_settle);
          const B two = P::splat(Real(2));
          for (int c = 0; c < D; ++c) {
            const B des = r[c] * radial + P::sel(tpos, tg[c] * glide, zero) -
                          two * (sc[c] - scr * r[c]) / settle;
            term[c] = P::splat(b.formation) * (des - v[c]);
          }
        }
        add(force, term);
      }
      // drive(): the point mass with mass 1. Where the hint keeps the kind's limits,
      // integrate() (clamp at |F|^2 > max_force^2); elsewhere the non-plain path (|F| >
      // max_force, the same scale) with the hint's limits.
      const M plain = P::and_(limit == k.ms, lo == P::splat(kp.min_speed));
      B f2 = zero;
      for (int c = 0; c < D; ++c) f2 = f2 + force[c] * force[c];
      const B fl = P::sqrt(f2);
      const M clamp = P::or_(P::and_(plain, f2 > max_force2), P::and_(!plain, fl > max_force));
      const B fscale = max_force / fl;
      B nv[D];
      for (int c = 0; c < D; ++c) {
        const B fc = P::sel(clamp, force[c] * fscale, force[c]);
        nv[c] = v[c] + fc * dt;
      }
      B s2 = zero;
      for (int c = 0; c < D; ++c) s2 = s2 + nv[c] * nv[c];
      const B sp = P::sqrt(s2);
      const M fast = sp > limit;
      const M slow = P::and_(sp > zero, sp < lo);
      const B up = limit / sp, down = lo / sp;
      for (int c = 0; c < D; ++c)
        nv[c] = P::sel(fast, nv[c] * up, P::sel(slow, nv[c] * down, nv[c]));
      B x[D];
      for (int c = 0; c < D; ++c) {
        x[c] = p[c] + nv[c] * dt;
        if constexpr (BND == Boundary::wrap) {
          x[c] = x[c] - k.size * P::floor(x[c] * k.inv_size);
          x[c] = P::sel(x[c] >= k.size, x[c] - k.size, x[c]);
          x[c] = P::sel(x[c] < zero, zero, x[c]);
        } else if constexpr (BND == Boundary::reflect) {
          const M below = x[c] < zero, above = x[c] >= k.size;
          nv[c] = P::sel(P::or_(below, above), nv[c] * minus_one, nv[c]);
          x[c] = P::sel(below, x[c] * minus_one, P::sel(above, two_size - x[c], x[c]));
          x[c] = P::sel(x[c] >= k.size, below_size, x[c]);
          x[c] = P::sel(x[c] < zero, zero, x[c]);
        }
      }
      alignas(64) Real o[2 * D][W];
      for (int c = 0; c < D; ++c) {
        P::store(o[c], x[c]);
        P::store(o[D + c], nv[c]);
      }
      // The push-out for the lanes the step may take near an obstacle (clear_after_step in
      // lanes: few), then the lanes to the outputs (whole registers for a full batch).
      if (w.obstacles) {
        const M clear = clear_after_step(m, p, x, P::load(near_min), k);
        if (P::any(!clear)) {
          alignas(64) Real cl[W];
          P::store(cl, P::sel(clear, one, zero));
          for (std::uint32_t l = 0; l < n; ++l) {
            if (cl[l] != Real(0)) continue;
            Real q[3] = {0, 0, 0}, po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
            for (int c = 0; c < D; ++c) {
              q[c] = t[2 + 3 * D + c][l];
              po[c] = o[c][l];
              vo[c] = o[D + c][l];
            }
            beh::push_out<Real, D>(m, q, po, vo, false);
            for (int c = 0; c < D; ++c) {
              o[c][l] = po[c];
              o[D + c][l] = vo[c];
            }
          }
        }
      }
      const std::uint32_t j0 = first + bt;
      if (n == std::uint32_t(W)) {
        for (int c = 0; c < D; ++c) {
          P::storeu(f.p_out[c] + j0, P::load(o[c]));
          P::storeu(f.v_out[c] + j0, P::load(o[D + c]));
        }
      } else {
        for (std::uint32_t l = 0; l < n; ++l) {
          for (int c = 0; c < D; ++c) {
            f.p_out[c][j0 + l] = o[c][l];
            f.v_out[c][j0 + l] = o[D + c][l];
          }
        }
      }
    }
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
