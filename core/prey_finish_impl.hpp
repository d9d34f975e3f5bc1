// The prey's terms (flee_predators_term and evade_predators_term, core/behaviour_kinds.hpp)
// over W prey at once, for the vectorised finish (core/kernels_finish_impl.hpp) of the grid
// engine's prey that see a predator (FinishView::prey). Included by kernels_finish_impl.hpp
// only, so it is compiled once per instruction set.
//
// Design. Each lane runs the scalar terms' operations in their order, with selects for their
// branches, so a lane's result has the bits of behaviour_finish() for that prey. The scalar
// code visits the predators of its own cell's neighbourhood list (KindGrid::for_near), in
// ascending index; a batch's lanes may lie in different cells, so the batch visits the
// ascending union of its lanes' lists instead. A predator outside a lane's own list is
// farther than the grid's reach (the prey's radius, with KindGrid's rounding margin), so for
// that lane it fails the `d2 < radius2` test of sees() and changes nothing: the union gives
// each lane exactly its own list's contributions in the same order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/behaviour_math.hpp"
#include "core/kernels.hpp"

namespace boids {
namespace {
namespace kernels_detail {

template <class P, class Real, int D, Boundary BND>
struct PreyLanes {
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;

  // min_image() in lanes: the same comparisons and rounding (behaviour offsets use
  // min_image_near, which has min_image's bits).
  static B image(B x, B size, B inv_size) {
    const B t = x * inv_size;
    const M small = P::and_(t<P::splat(Real(0.5)), t> P::splat(Real(-0.5)));
    return P::sel(small, x + P::splat(Real(0)), x - size * P::round(t));
  }

  // The lanes' smallest and largest value, from the lanes in registers (the old code read
  // them again through the slots; the same values, compared in the same order).
  static void lane_range(B x, Real& lo, Real& hi) {
    alignas(64) Real t[W];
    P::store(t, x);
    Real a = t[0], b = a;
    for (int l = 1; l < W; ++l) {
      a = t[l] < a ? t[l] : a;
      b = t[l] > b ? t[l] : b;
    }
    lo = a;
    hi = b;
  }

  // The predators near the batch's prey (lanes' slots slot[l], positions p): the ascending
  // union of their cells' neighbourhood lists, or of every cell's in the lanes' box of cells
  // (a superset: cells grow with the coordinates, so each lane's cell is in the box, and a
  // predator in no lane's list changes nothing, above). Returns [begin, end); `buf` holds a merged
  // union.
  static std::pair<const std::uint32_t*, const std::uint32_t*> candidates(
      const FinishView<Real>& f, const std::uint32_t* slot, const B* p,
      std::vector<std::uint32_t>& buf) {
    const KindGrid<Real>& g = f.prey->predator_grid;
    {
      // The box: two cells per axis instead of one per lane and axis, then a few lists.
      Real lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      bool finite = true;
      for (int c = 0; c < D; ++c) {
        lane_range(p[c], lo[c], hi[c]);
        finite = finite && std::isfinite(lo[c]) && std::isfinite(hi[c]);
      }
      std::uint32_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
      std::uint32_t cells = 1;
      for (int c = 0; c < D && finite; ++c) {
        c0[c] = g.axis_cell(c, lo[c]);
        c1[c] = g.axis_cell(c, hi[c]);
        cells *= c1[c] - c0[c] + 1;
      }
      if (finite && cells == 1) return g.near_list(g.cell_at(c0));
      if (finite && cells <= 4) {
        // The ascending union of the (ascending) lists: a merge that drops repeats.
        const std::uint32_t* at[4];
        const std::uint32_t* end[4];
        int k = 0;
        std::uint32_t a[3] = {0, 0, 0};
        for (a[2] = c0[2]; a[2] <= c1[2]; ++a[2])
          for (a[1] = c0[1]; a[1] <= c1[1]; ++a[1])
            for (a[0] = c0[0]; a[0] <= c1[0]; ++a[0]) {
              const auto r = g.near_list(g.cell_at(a));
              if (r.first == r.second) continue;
              at[k] = r.first;
              end[k] = r.second;
              ++k;
            }
        if (k == 1) return {at[0], end[0]};
        buf.clear();
        for (;;) {
          std::uint32_t m = ~std::uint32_t(0);
          bool more = false;
          for (int j = 0; j < k; ++j) {
            if (at[j] != end[j] && *at[j] <= m) {
              m = *at[j];
              more = true;
            }
          }
          if (!more) break;
          buf.push_back(m);
          for (int j = 0; j < k; ++j) at[j] += at[j] != end[j] && *at[j] == m;
        }
        return {buf.data(), buf.data() + buf.size()};
      }
    }
    std::uint32_t cell[W];
    bool same = true;
    for (int l = 0; l < W; ++l) {
      Real q[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) q[c] = f.p[c][slot[l]];
      cell[l] = g.cell_index(q);
      same = same && cell[l] == cell[0];
    }
    if (same) return g.near_list(cell[0]);
    buf.clear();
    for (int l = 0; l < W; ++l) {
      bool seen = false;
      for (int k = 0; k < l; ++k) seen = seen || cell[k] == cell[l];
      if (seen) continue;
      const auto r = g.near_list(cell[l]);
      buf.insert(buf.end(), r.first, r.second);
    }
    std::sort(buf.begin(), buf.end());
    buf.erase(std::unique(buf.begin(), buf.end()), buf.end());
    return {buf.data(), buf.data() + buf.size()};
  }

  // Adds the prey's terms to `force` in the lanes of `marked` (behaviour_finish's order:
  // flee, then evade); sets max_speed to the flee boost where a predator is seen (the
  // drive hint), and `boosted` where that differs from the kind's (drive()'s non-plain path).
  static void add(const FinishView<Real>& f, const std::uint32_t* slot, const B* p, const B* v,
                  M marked, B* force, B& max_speed, M& boosted, std::vector<std::uint32_t>& buf) {
    const KindParams<Real>& kp = f.kp;
    const BehaviourParams<Real>& bp = kp.beh;
    const std::vector<SpecialAgent<Real>>& preds = f.prey->predators;
    const B zero = P::splat(Real(0)), one = P::splat(Real(1)), two = P::splat(Real(2));
    const B minus_one = P::splat(Real(-1));
    const B size = P::splat(f.size), inv_size = P::splat(f.inv_size);
    const B radius2 = P::splat(kp.radius2), radius = P::splat(kp.radius);
    const B ms = P::splat(kp.max_speed);
    const bool flee = bp.flee_predators != Real(0), evade = bp.evade_predators != Real(0);
    B vv = zero;
    for (int c = 0; c < D; ++c) vv = vv + v[c] * v[c];
    const B v_len = P::sqrt(vv);  // Steer::v_len
    const bool cone = !kp.full_view;
    const M moving = v_len > zero;
    const B cos_half = P::splat(kp.cos_half_view);
    B esc[D], near_d[D], near_v[D];
    for (int c = 0; c < D; ++c) esc[c] = near_d[c] = near_v[c] = zero;
    B near2 = P::splat(std::numeric_limits<Real>::infinity());
    M seen = zero != zero, found = zero != zero;
    const auto range = candidates(f, slot, p, buf);
    for (const std::uint32_t* it = range.first; it != range.second; ++it) {
      const SpecialAgent<Real>& a = preds[*it];
      B d[D];
      for (int c = 0; c < D; ++c) {
        d[c] = P::splat(a.p[c]) - p[c];
        if constexpr (BND == Boundary::wrap) d[c] = image(d[c], size, inv_size);
      }
      B d2 = zero;
      for (int c = 0; c < D; ++c) d2 = d2 + d[c] * d[c];
      // sees(): within the radius and, for a moving prey with a view cone, inside it.
      M in = d2 < radius2;
      if (cone) {
        B dv = zero;
        for (int c = 0; c < D; ++c) dv = dv + d[c] * v[c];
        const M inside = dv >= P::sqrt(d2) * v_len * cos_half;
        in = P::and_(in, P::or_(inside, !moving));
      }
      in = P::and_(in, marked);
      if (!P::any(in)) continue;
      if (flee) {
        const M s = P::and_(in, d2 > zero);
        if (P::any(s)) {
          const B dist = P::sqrt(d2);
          Real hp[3] = {a.v[0], a.v[1], D == 3 ? a.v[2] : Real(0)};
          beh::normalize<Real, D>(hp);
          B away[D], e[D];
          B along = zero;
          for (int c = 0; c < D; ++c) {
            away[c] = d[c] * minus_one / dist;
            along = along + away[c] * P::splat(hp[c]);
          }
          B e2 = zero;
          for (int c = 0; c < D; ++c) {
            e[c] = two * away[c] - along * P::splat(hp[c]);
            e2 = e2 + e[c] * e[c];
          }
          const B en = P::sqrt(e2);
          const M pos = en > zero;
          const B inv = one / en;
          const B urgency = one - dist / radius;
          for (int c = 0; c < D; ++c) {
            e[c] = P::sel(pos, e[c] * inv, e[c]);
            esc[c] = P::sel(s, esc[c] + urgency * e[c], esc[c]);
          }
          seen = P::or_(seen, s);
        }
      }
      if (evade) {
        const M t = P::and_(in, d2 < near2);
        near2 = P::sel(t, d2, near2);
        for (int c = 0; c < D; ++c) {
          near_d[c] = P::sel(t, d[c], near_d[c]);
          near_v[c] = P::sel(t, P::splat(a.v[c]), near_v[c]);
        }
        found = P::or_(found, t);
      }
    }
    if (flee) {
      // term = 0; where a predator is seen: the boost, and where |esc| > 0 the steer.
      const Real boost = bp.flee_boost * kp.max_speed;
      B n2 = zero;
      for (int c = 0; c < D; ++c) n2 = n2 + esc[c] * esc[c];
      const B n = P::sqrt(n2);
      const M steer = P::and_(seen, n > zero);
      const B inv = one / n;
      const B w = P::splat(bp.flee_predators), bst = P::splat(boost);
      for (int c = 0; c < D; ++c) {
        const B term = P::sel(steer, w * (esc[c] * inv * bst - v[c]), zero);
        force[c] = P::sel(marked, force[c] + term, force[c]);
      }
      max_speed = P::sel(seen, bst, max_speed);
      if (boost != kp.max_speed) boosted = seen;
    }
    if (evade && P::any(found)) {
      // seek_dir(evade_predators, -(near_d + near_v * t), max_speed), t = |near_d| / max_speed.
      const B t = P::sqrt(near2) / ms;
      B away[D];
      B n2 = zero;
      for (int c = 0; c < D; ++c) {
        away[c] = (near_d[c] + near_v[c] * t) * minus_one;
        n2 = n2 + away[c] * away[c];
      }
      const B n = P::sqrt(n2);
      const M pos = n > zero;
      const B inv = one / n;
      const B w = P::splat(bp.evade_predators);
      for (int c = 0; c < D; ++c) {
        const B des = P::sel(pos, away[c] * inv * ms, away[c]);
        force[c] = P::sel(found, force[c] + w * (des - v[c]), force[c]);
      }
    }
  }
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
