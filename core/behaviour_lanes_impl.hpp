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
#include "core/behaviour_math.hpp"
#include "core/behaviour_trig_n.hpp"
#include "core/kernels.hpp"
#include "core/obstacles.hpp"
#include "core/prey_finish_impl.hpp"
#include "core/rng.hpp"

namespace boids {
namespace {
namespace kernels_detail {

template <class P, class Real, int D, Boundary BND>
struct BehaviourLanes {
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
        for (int l = 0; l < W; ++l) {
          const std::uint64_t stream = random_stream(ctx.seed, f.id[slot[l]], kStreamWander);
          for (int j = 0; j < 2; ++j) {
            const std::uint64_t kj = key + std::uint64_t(j);
            ang[j * W + l] = 2.0 * 3.14159265358979323846 * random_unit_at(stream, kj * 4);
            if constexpr (D == 3) zs[j * W + l] = 2.0 * random_unit_at(stream, kj * 4 + 1) - 1.0;
          }
        }
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
          near_min[l] = beh::avoid_term<Real, D>(m, b, q, vq, ms, o);
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
      for (std::uint32_t l = 0; l < n; ++l) {
        const std::uint32_t j = first + bt + l;
        Real q[3] = {0, 0, 0}, po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
        for (int c = 0; c < D; ++c) {
          q[c] = t[2 + 3 * D + c][l];
          po[c] = o[c][l];
          vo[c] = o[D + c][l];
        }
        if (w.obstacles && !beh::clear_after_step<Real, D>(m, q, po, near_min[l]))
          beh::push_out<Real, D>(m, q, po, vo, false);
        for (int c = 0; c < D; ++c) {
          f.p_out[c][j] = po[c];
          f.v_out[c][j] = vo[c];
        }
      }
    }
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
