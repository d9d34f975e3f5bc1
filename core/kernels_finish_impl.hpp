// The vectorised finish of the grid engine (FinishRow, core/kernels.hpp), written once over a
// pack type like the neighbour kernel and compiled per instruction set through
// core/kernels_impl.hpp, which includes it for fill_table(). Do not include it elsewhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/behaviour_lanes_impl.hpp"
#include "core/kernels.hpp"
#include "core/prey_finish_impl.hpp"

namespace boids {
namespace {
namespace kernels_detail {

// finish_boid()'s plain path (model.hpp: flock_force, integrate, move with the speed limits),
// or with FinishView::abm the abm profile's (abm_update, move without limits), over W boids at
// once. Every operation and its order are those of the scalar code; its
// branches become selects (a lane not taking a branch keeps its value exactly). Needs a pack
// with sel (m ? a : b), floor and sqrt. With FinishView::prey the marked prey take
// behaviour_finish()'s path instead: the prey's terms added (PreyLanes), and where the flee
// boost changes the speed limit, drive()'s non-plain point mass (the same operations as
// integrate() with mass 1, but the force clamp tests |F| > max_force and the speed limit is
// the boost).
template <class P, class Real, int D, Boundary BND>
struct Finish {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;

  static void rows(const FinishView<Real>& f, std::uint32_t first, std::uint32_t count,
                   const FlockSums<Real>* sums) {
    if (f.behaviour) {
      BehaviourLanes<P, Real, D, BND>::rows(f, first, count, sums);
      return;
    }
    const KindParams<Real>& kp = f.kp;
    const B zero = P::splat(Real(0)), one = P::splat(Real(1));
    const B w_sep = P::splat(kp.w_sep), w_ali = P::splat(kp.w_ali), w_coh = P::splat(kp.w_coh);
    const B max_force = P::splat(kp.max_force), max_force2 = P::splat(kp.max_force * kp.max_force);
    const B max_speed = P::splat(kp.max_speed), min_speed = P::splat(kp.min_speed);
    const B dt = P::splat(f.dt), size = P::splat(f.size), inv_size = P::splat(f.inv_size);
    const B two_size = P::splat(Real(2) * f.size), minus_one = P::splat(Real(-1));
    const B below_size = P::splat(std::nextafter(f.size, Real(0)));
    const bool bo = f.behaviour_order;  // (0 + separation): behaviour_finish's first addition
    const bool abm = f.abm;
    const B two = P::splat(Real(2)), inv_speed = P::splat(Real(1) / kp.max_speed);
    const std::uint8_t* marks = f.prey ? f.prey->prey_sees.data() : nullptr;
    std::vector<std::uint32_t> cand;  // PreyLanes' scratch
    for (std::uint32_t b = 0; b < count; b += W) {
      const std::uint32_t n = count - b < std::uint32_t(W) ? count - b : std::uint32_t(W);
      // AoS sums and the slots' state into lanes; a short last batch repeats its last boid.
      alignas(64) Real t[1 + 5 * D][W];
      alignas(64) Real marked_lane[W];
      std::uint32_t slot[W];
      bool any_marked = false;
      for (int l = 0; l < W; ++l) {
        const std::uint32_t k = b + (std::uint32_t(l) < n ? std::uint32_t(l) : n - 1);
        slot[l] = first + k;
        const bool mk = marks && marks[first + k] != 0;
        marked_lane[l] = mk ? Real(1) : Real(0);
        any_marked = any_marked || mk;
        const FlockSums<Real>& sk = sums[k];
        t[0][l] = Real(sk.k);
        for (int c = 0; c < D; ++c) {
          t[1 + c][l] = sk.d[c];
          t[1 + D + c][l] = sk.v[c];
          t[1 + 2 * D + c][l] = sk.sep[c];
          t[1 + 3 * D + c][l] = f.p[c][first + k];
          t[1 + 4 * D + c][l] = f.v[c][first + k];
        }
      }
      const B kk = P::load(t[0]);
      B p[D], v[D], nv[D];
      const M has = kk > zero;
      const B inv_k = one / P::sel(has, kk, one);  // also abm_update's 1 / max(k, 1)
      for (int c = 0; c < D; ++c) {
        p[c] = P::load(t[1 + 3 * D + c]);
        v[c] = P::load(t[1 + 4 * D + c]);
      }
      if (abm) {
        // abm_update (core/vehicles.hpp): v' = normalize((v / speed + coh + sep + match) / 2)
        // * speed, or v / speed * speed when that is zero; no speed limits.
        B n2 = zero;
        for (int c = 0; c < D; ++c) {
          const B coh = P::load(t[1 + c]) * inv_k * w_coh;
          const B sep = P::load(t[1 + 2 * D + c]) * inv_k * w_sep;
          const B mat = P::load(t[1 + D + c]) * inv_speed * inv_k * w_ali;
          nv[c] = (v[c] * inv_speed + coh + sep + mat) / two;
          n2 = n2 + nv[c] * nv[c];
        }
        const B len = P::sqrt(n2);
        const M pos = len > zero;
        const B inv = one / len;
        for (int c = 0; c < D; ++c) nv[c] = P::sel(pos, nv[c] * inv, v[c] * inv_speed) * max_speed;
      } else {
        // flock_force: zero without neighbours.
        B force[D];
        for (int c = 0; c < D; ++c) {
          const B coh = P::load(t[1 + c]) * inv_k;
          const B ali = P::load(t[1 + D + c]) * inv_k - v[c];
          const B sep = w_sep * P::load(t[1 + 2 * D + c]);
          force[c] = P::sel(has, (bo ? zero + sep : sep) + w_ali * ali + w_coh * coh, zero);
        }
        B limit = max_speed;  // the speed limit: the flee boost where a predator is seen
        M boosted = zero != zero;
        if (any_marked) {
          const M marked = P::load(marked_lane) != zero;
          PreyLanes<P, Real, D, BND>::add(f, slot, p, v, marked, force, limit, boosted, cand);
        }
        // integrate: the force clamp, then the velocity (drive()'s non-plain path where
        // boosted: |F| > max_force, the same scale).
        B f2 = zero;
        for (int c = 0; c < D; ++c) f2 = f2 + force[c] * force[c];
        const M clamp = P::sel(boosted, P::sqrt(f2), f2) > P::sel(boosted, max_force, max_force2);
        const B fscale = max_force / P::sqrt(f2);
        for (int c = 0; c < D; ++c) {
          force[c] = P::sel(clamp, force[c] * fscale, force[c]);
          nv[c] = v[c] + force[c] * dt;
        }
        // move: the speed limits (max first, else min for a moving boid), then the position.
        B s2 = zero;
        for (int c = 0; c < D; ++c) s2 = s2 + nv[c] * nv[c];
        const B sp = P::sqrt(s2);
        const M fast = sp > limit;
        const M slow = P::and_(sp > zero, sp < min_speed);
        const B up = limit / sp, down = min_speed / sp;
        for (int c = 0; c < D; ++c)
          nv[c] = P::sel(fast, nv[c] * up, P::sel(slow, nv[c] * down, nv[c]));
      }
      B x[D];
      for (int c = 0; c < D; ++c) {
        x[c] = p[c] + nv[c] * dt;
        if constexpr (BND == Boundary::wrap) {
          x[c] = x[c] - size * P::floor(x[c] * inv_size);
          x[c] = P::sel(x[c] >= size, x[c] - size, x[c]);
          x[c] = P::sel(x[c] < zero, zero, x[c]);
        } else if constexpr (BND == Boundary::reflect) {
          const M below = x[c] < zero, above = x[c] >= size;
          // Times -1, an exact negation that also flips a zero's sign as the scalar code does
          // (xsimd's unary minus is 0 - v on AVX-512F, which does not: the finish test).
          nv[c] = P::sel(P::or_(below, above), nv[c] * minus_one, nv[c]);
          x[c] = P::sel(below, x[c] * minus_one, P::sel(above, two_size - x[c], x[c]));
          // reflect_coordinate(): strictly inside [0, L), x == L goes to the value below L.
          x[c] = P::sel(x[c] >= size, below_size, x[c]);
          x[c] = P::sel(x[c] < zero, zero, x[c]);
        }
      }
      alignas(64) Real o[2 * D][W];
      for (int c = 0; c < D; ++c) {
        P::store(o[c], x[c]);
        P::store(o[D + c], nv[c]);
      }
      for (std::uint32_t l = 0; l < n; ++l) {
        for (int c = 0; c < D; ++c) {
          f.p_out[c][first + b + l] = o[c][l];
          f.v_out[c][first + b + l] = o[D + c][l];
        }
      }
    }
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
