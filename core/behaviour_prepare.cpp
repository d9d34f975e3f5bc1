// prepare_behaviours() (declared in core/model.hpp): the behaviours' per-step data, built once
// per step before the boid loop by both engines (and by the distributed engine for the kind
// 1/2 agents, mpi/global_context.hpp repeating the kind-0 sums with the same expressions).
// Compiled once here for float and double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/behaviour_trig.hpp"
#include "core/model.hpp"

namespace boids {
namespace {

// A prey a predator sees: its index among the prey (slot order) and the offset to it.
template <class Real>
struct PreyHit {
  std::uint32_t k;
  Real d[3];
};

// Predator a's view of the prey: how many it sees, the mean offset to them (a double sum in
// slot order, the order of a scan over every slot and of the distributed engine's chain,
// mpi/global_context.hpp) and the nearest (ties to the lower id: the same in any order). The
// grid's candidates come cell by cell; only the few seen are sorted back into slot order.
template <class Real, int D>
void prey_view(const ModelParams<Real>& m, const BoidStore<Real>& s,
               const std::vector<std::uint32_t>& prey_slot, const KindGrid<Real>& prey,
               SpecialAgent<Real>& a, std::vector<PreyHit<Real>>& hits) {
  const KindParams<Real>& pk = m.kind[1];
  Real v_len = 0;
  for (int c = 0; c < D; ++c) v_len += a.v[c] * a.v[c];
  v_len = std::sqrt(v_len);
  hits.clear();
  prey.for_near_unordered(a.p, [&](std::uint32_t k) {
    const std::size_t i = prey_slot[k];
    PreyHit<Real> h{k, {0, 0, 0}};
    Real dist2 = 0;
    for (int c = 0; c < D; ++c) {
      h.d[c] = s.p[c][i] - a.p[c];
      if (m.boundary == Boundary::wrap) h.d[c] = min_image(h.d[c], m.size, m.inv_size);
      dist2 += h.d[c] * h.d[c];
    }
    if (beh::sees<Real, D>(pk, h.d, dist2, a.v, v_len)) hits.push_back(h);
  });
  std::sort(hits.begin(), hits.end(),
            [](const PreyHit<Real>& x, const PreyHit<Real>& y) { return x.k < y.k; });
  double sum[3] = {0, 0, 0};
  Real best2 = std::numeric_limits<Real>::infinity();
  std::uint32_t best_id = 0;
  for (const PreyHit<Real>& h : hits) {
    const std::size_t i = prey_slot[h.k];
    Real dist2 = 0;
    for (int c = 0; c < D; ++c) dist2 += h.d[c] * h.d[c];
    ++a.prey;
    for (int c = 0; c < D; ++c) sum[c] += double(h.d[c]);
    if (dist2 < best2 || (dist2 == best2 && s.id[i] < best_id)) {
      best2 = dist2;
      best_id = s.id[i];
      for (int c = 0; c < D; ++c) {
        a.nearest_d[c] = h.d[c];
        a.nearest_v[c] = s.v[c][i];
      }
    }
  }
  if (a.prey > 0) {
    for (int c = 0; c < D; ++c) a.prey_offset[c] = Real(sum[c] / double(a.prey));
  }
}

// prey_view() over an engine's slot ranges (NearSlots): the ranges in ascending order are
// the slots in ascending order, so the same prey are summed in the same order. A first pass
// over each range computes every candidate's d2 with the nearest image chosen by comparison
// (no nearbyint, so the compiler vectorises it); only candidates that pass it, a margin
// wider than the radius, are tested exactly.
template <class Real, int D>
void prey_view_near(const ModelParams<Real>& m, const BoidStore<Real>& s,
                    const NearSlots<Real>& near, SpecialAgent<Real>& a,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges,
                    std::vector<Real>& d2s, std::vector<std::uint32_t>& scratch_idx) {
  const KindParams<Real>& pk = m.kind[1];
  Real v_len = 0;
  for (int c = 0; c < D; ++c) v_len += a.v[c] * a.v[c];
  v_len = std::sqrt(v_len);
  ranges.clear();
  near(a.p, double(pk.radius), ranges);
  std::sort(ranges.begin(), ranges.end());
  double sum[3] = {0, 0, 0};
  Real best2 = std::numeric_limits<Real>::infinity();
  std::uint32_t best_id = 0;
  const bool wrap = m.boundary == Boundary::wrap;
  // The comparison picks the image nearbyint picks except within rounding of half the size,
  // where |d| is about size / 2: beyond a radius below 0.4 size, so the filter then only
  // passes what the exact test may pass. Larger radii test every candidate.
  const bool filter = !wrap || double(pk.radius) < 0.4 * double(m.size);
  const Real wide2 = pk.radius2 * Real(1.01);
  const Real half = Real(0.5) * m.size, size = m.size;
  Real ap[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) ap[c] = a.p[c];
  std::vector<std::uint32_t>& idx = scratch_idx;
  std::uint32_t nidx = 0;
  for (const auto& [begin, end] : ranges) {
    const std::uint32_t len = end - begin;
    if (filter) {
      if (d2s.size() < len) d2s.resize(len);
      if (idx.size() < len) idx.resize(len);
      Real* out = d2s.data();
      const Real* q[3] = {nullptr, nullptr, nullptr};
      for (int c = 0; c < D; ++c) q[c] = s.p[c].data() + begin;
      const Real wsize = wrap ? size : Real(0);  // branch-free, so it vectorises
      for (std::uint32_t k = 0; k < len; ++k) {
        Real dd = 0;
        for (int c = 0; c < D; ++c) {
          Real x = q[c][k] - ap[c];
          x = x - wsize * Real(x > half) + wsize * Real(x < -half);
          dd += x * x;
        }
        out[k] = dd;
      }
      // The candidates that pass, compacted (a predictable loop below).
      std::uint32_t kept = 0;
      for (std::uint32_t k = 0; k < len; ++k) {
        idx[kept] = k;
        kept += out[k] < wide2 ? 1u : 0u;
      }
      nidx = kept;
    }
    const std::uint32_t count = filter ? nidx : len;
    for (std::uint32_t t = 0; t < count; ++t) {
      const std::uint32_t k = filter ? idx[t] : t;
      const std::uint32_t i = begin + k;
      Real d[3] = {0, 0, 0}, dist2 = 0;
      for (int c = 0; c < D; ++c) {
        d[c] = s.p[c][i] - a.p[c];
        if (wrap) d[c] = min_image(d[c], m.size, m.inv_size);
        dist2 += d[c] * d[c];
      }
      if (s.kind[i] != 0 || !beh::sees<Real, D>(pk, d, dist2, a.v, v_len)) continue;
      ++a.prey;
      for (int c = 0; c < D; ++c) sum[c] += double(d[c]);
      if (dist2 < best2 || (dist2 == best2 && s.id[i] < best_id)) {
        best2 = dist2;
        best_id = s.id[i];
        for (int c = 0; c < D; ++c) {
          a.nearest_d[c] = d[c];
          a.nearest_v[c] = s.v[c][i];
        }
      }
    }
  }
  if (a.prey > 0) {
    for (int c = 0; c < D; ++c) a.prey_offset[c] = Real(sum[c] / double(a.prey));
  }
}

}  // namespace

/// Per-step data of the behaviours: target state, global centres, the predators and leaders
/// sorted by id, and each predator's view of the prey (over `pfor`). O(n) passes plus, when
/// predators chase, the prey near each predator; independent of the store's slot order except
/// for the rounding of double sums.
template <class Real>
void prepare_behaviours(const ModelParams<Real>& m, const BoidStore<Real>& s,
                        StepContext<Real>& ctx, const BlockFor& pfor, const NearSlots<Real>& near) {
  BehaviourContext<Real>& b = ctx.beh;
  const WorldBehaviour<Real>& w = m.beh;
  const int D = m.dims;
  // Specials: one pass over the kind bytes; nothing else when there are none.
  for (std::size_t i = 0; i < s.n; ++i) {
    const std::uint8_t k = s.kind[i];
    if (k == 0) continue;
    SpecialAgent<Real> a;
    a.id = s.id[i];
    for (int c = 0; c < D; ++c) {
      a.p[c] = s.p[c][i];
      a.v[c] = s.v[c][i];
    }
    (k == 1 ? b.predators : b.leaders).push_back(a);
  }
  b.active = w.any_kind_active || w.obstacles || !b.predators.empty() || !b.leaders.empty();
  if (!b.active) return;
  auto by_id = [](const SpecialAgent<Real>& x, const SpecialAgent<Real>& y) { return x.id < y.id; };
  std::sort(b.predators.begin(), b.predators.end(), by_id);
  std::sort(b.leaders.begin(), b.leaders.end(), by_id);

  // Target script at the time of this step.
  {
    double p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    beh::target_at(w.target_p0, w.target_v, w.target_hold, w.target_move,
                   double(ctx.step) * double(m.dt), D, p, v);
    double speed2 = 0;
    for (int c = 0; c < D; ++c) {
      if (m.boundary == Boundary::wrap) p[c] -= double(m.size) * std::floor(p[c] / double(m.size));
      b.target_p[c] = Real(p[c]);
      b.target_v[c] = Real(v[c]);
      speed2 += v[c] * v[c];
    }
    b.target_moving = std::sqrt(speed2) > double(w.attack_speed);
  }

  // Global centre of each kind: arithmetic mean, or the circular mean per axis when wrapping.
  if (w.need_centre) {
    double sum[kKindCount][3][2] = {};
    std::size_t cnt[kKindCount] = {};
    const double L = double(m.size), tau = 2.0 * 3.14159265358979323846;
    for (std::size_t i = 0; i < s.n; ++i) {
      const int k = s.kind[i];
      ++cnt[k];
      for (int c = 0; c < D; ++c) {
        const double x = double(s.p[c][i]);
        if (m.boundary == Boundary::wrap) {
          double sn = 0, cs = 0;
          beh::sin_cos(tau * x / L, sn, cs);  // core/behaviour_trig.hpp: no libm call
          sum[k][c][0] += cs;
          sum[k][c][1] += sn;
        } else {
          sum[k][c][0] += x;
        }
      }
    }
    for (int k = 0; k < kKindCount; ++k) {
      if (cnt[k] == 0) continue;
      Real dir[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) {
        double x;
        if (m.boundary == Boundary::wrap) {
          x = L * std::atan2(sum[k][c][1], sum[k][c][0]) / tau;
          if (x < 0) x += L;
          if (x >= L) x = 0;
        } else {
          x = sum[k][c][0] / double(cnt[k]);
        }
        b.centre[k][c] = Real(x);
      }
      if (D == 2)
        beh::offset<Real, 2>(m, b.centre[k], w.goal, dir);
      else
        beh::offset<Real, 3>(m, b.centre[k], w.goal, dir);
      Real n2 = 0;
      for (int c = 0; c < D; ++c) n2 += dir[c] * dir[c];
      if (n2 > Real(0)) {
        const Real inv = Real(1) / std::sqrt(n2);
        for (int c = 0; c < D; ++c) b.dest_dir[k][c] = dir[c] * inv;
      }
    }
  }

  // The predators in cells for the prey's look-ups (flee/evade predators): with the
  // neighbourhood lists, a prey's look-up is one walk over the few predators near it.
  const BehaviourParams<Real>& b0 = m.kind[0].beh;
  if (!b.predators.empty() && (b0.flee_predators != Real(0) || b0.evade_predators != Real(0))) {
    const auto& pr = b.predators;
    b.predator_grid.build(
        D, m.boundary == Boundary::wrap, double(m.size), double(m.kind[0].radius), pr.size(),
        [&](std::size_t k, int c) { return pr[k].p[c]; }, 16.0);
    b.predator_grid.build_near_lists();
  }

  // Each predator's view of the prey: the prey near it from a cell grid of kind 0 (cells at
  // least the predator's radius wide).
  const KindParams<Real>& pk = m.kind[1];
  if (pk.beh.chase != Real(0) && !b.predators.empty() && near) {
    // The engine's own cell list finds the prey near each predator.
    auto views = [&](std::size_t begin, std::size_t end) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
      std::vector<Real> d2s;
      std::vector<std::uint32_t> idx;
      for (std::size_t k = begin; k < end; ++k) {
        if (D == 2)
          prey_view_near<Real, 2>(m, s, near, b.predators[k], ranges, d2s, idx);
        else
          prey_view_near<Real, 3>(m, s, near, b.predators[k], ranges, d2s, idx);
      }
    };
    if (pfor)
      pfor(b.predators.size(), views);
    else
      views(0, b.predators.size());
  } else if (pk.beh.chase != Real(0) && !b.predators.empty()) {
    std::vector<std::uint32_t> prey_slot;
    prey_slot.reserve(s.n);
    for (std::size_t i = 0; i < s.n; ++i) {
      if (s.kind[i] == 0) prey_slot.push_back(std::uint32_t(i));
    }
    KindGrid<Real> prey;
    prey.build(D, m.boundary == Boundary::wrap, double(m.size), double(pk.radius), prey_slot.size(),
               [&](std::size_t k, int c) { return s.p[c][prey_slot[k]]; });
    // Each predator's view is its own: any split over threads gives the same bits.
    auto views = [&](std::size_t begin, std::size_t end) {
      std::vector<PreyHit<Real>> hits;
      for (std::size_t k = begin; k < end; ++k) {
        if (D == 2)
          prey_view<Real, 2>(m, s, prey_slot, prey, b.predators[k], hits);
        else
          prey_view<Real, 3>(m, s, prey_slot, prey, b.predators[k], hits);
      }
    };
    if (pfor)
      pfor(b.predators.size(), views);
    else
      views(0, b.predators.size());
  }
}

template void prepare_behaviours<float>(const ModelParams<float>&, const BoidStore<float>&,
                                        StepContext<float>&, const BlockFor&,
                                        const NearSlots<float>&);
template void prepare_behaviours<double>(const ModelParams<double>&, const BoidStore<double>&,
                                         StepContext<double>&, const BlockFor&,
                                         const NearSlots<double>&);

}  // namespace boids
