// prepare_behaviours() (declared in core/model.hpp): the behaviours' per-step data, built once
// per step before the boid loop by both engines (and by the distributed engine for the kind
// 1/2 agents, mpi/global_context.hpp repeating the kind-0 sums with the same expressions).
// Compiled once here for float and double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/behaviour_kinds.hpp"
#include "core/kernels.hpp"
#include "core/model.hpp"
#include "core/prey_scan.hpp"

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

// The agents' indices in the Z-order (Morton order) of cells `edge` wide, ties by index.
template <class Real>
std::vector<std::uint32_t> z_order(const std::vector<SpecialAgent<Real>>& agents, int dims,
                                   double size, double edge) {
  const double cells = std::clamp(std::floor(size / std::max(edge, 1e-300)), 1.0, 1023.0);
  const double scale = cells / size;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(agents.size());
  for (std::size_t k = 0; k < agents.size(); ++k) {
    std::uint64_t key = 0;
    for (int c = 0; c < dims; ++c) {
      const double t = std::floor(double(agents[k].p[c]) * scale);
      const std::uint64_t x = t >= 0 ? std::uint64_t(std::min(t, cells - 1)) : 0;  // NaN: 0
      for (int bit = 0; bit < 10; ++bit) key |= ((x >> bit) & 1u) << (3 * bit + c);
    }
    keyed[k] = {key, std::uint32_t(k)};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::uint32_t> order(agents.size());
  for (std::size_t k = 0; k < agents.size(); ++k) order[k] = keyed[k].second;
  return order;
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
  // Specials: one pass over the kind bytes (eight at a time while they are all 0); nothing
  // else when there are none. kind0_end: the first slot of another kind (the prey scan skips
  // its kind test below it).
  std::size_t kind0_end = s.n;
  for (std::size_t i = 0; i < s.n; ++i) {
    if (i + 8 <= s.n) {
      std::uint64_t word;
      std::memcpy(&word, s.kind.data() + i, 8);
      if (word == 0) {
        i += 7;
        continue;
      }
    }
    const std::uint8_t k = s.kind[i];
    if (k == 0) continue;
    kind0_end = std::min(kind0_end, i);
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
  // Often in id order already (the stores keep kinds 1/2 so): then no sort of the agents.
  if (!std::is_sorted(b.predators.begin(), b.predators.end(), by_id))
    std::sort(b.predators.begin(), b.predators.end(), by_id);
  if (!std::is_sorted(b.leaders.begin(), b.leaders.end(), by_id))
    std::sort(b.leaders.begin(), b.leaders.end(), by_id);
  b.leader_stride = (b.leaders.size() + 3) / 4 * 4;
  b.leader_soa.assign(3 * b.leader_stride, Real(0));
  for (std::size_t j = 0; j < b.leaders.size(); ++j) {
    for (int c = 0; c < D; ++c)
      b.leader_soa[std::size_t(c) * b.leader_stride + j] = b.leaders[j].p[c];
  }

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
    if (m.boundary == Boundary::wrap) {
      // Blocks of boids: the angles, then sin_cos for the whole block in SIMD lanes
      // (select_sin_cos_n: sin_cos's bits on every instruction set), then the sums in slot
      // order, the additions of a boid-by-boid loop.
      constexpr std::size_t kBlock = 512;
      const SinCosN trig = select_sin_cos_n(m.isa);
      alignas(64) double ang[3][kBlock], sn[3][kBlock], cs[3][kBlock];
      for (std::size_t i0 = 0; i0 < s.n; i0 += kBlock) {
        const std::size_t nb = std::min(kBlock, s.n - i0);
        for (int c = 0; c < D; ++c) {
          for (std::size_t j = 0; j < nb; ++j) ang[c][j] = tau * double(s.p[c][i0 + j]) / L;
          trig(ang[c], sn[c], cs[c], nb);
        }
        for (std::size_t j = 0; j < nb; ++j) {
          const int k = s.kind[i0 + j];
          ++cnt[k];
          for (int c = 0; c < D; ++c) {
            sum[k][c][0] += cs[c][j];
            sum[k][c][1] += sn[c][j];
          }
        }
      }
    } else {
      for (std::size_t i = 0; i < s.n; ++i) {
        const int k = s.kind[i];
        ++cnt[k];
        for (int c = 0; c < D; ++c) sum[k][c][0] += double(s.p[c][i]);
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

  // The leaders in cells for the nearest-leader look-ups (follow_leader): a scan of a few
  // leaders is cheaper than the rings of cells (core/kind_grid.hpp, nearest()).
  bool follow = false;
  for (int k = 0; k < kKindCount; ++k) follow |= m.kind[k].beh.follow_leader != Real(0);
  if (follow && b.leaders.size() >= kLeaderGridMin) {
    const auto& ls = b.leaders;
    const double edge = double(m.size) / std::pow(double(ls.size()), 1.0 / D);
    b.leader_grid.build(
        D, m.boundary == Boundary::wrap, double(m.size), edge, ls.size(),
        [&](std::size_t k, int c) { return ls[k].p[c]; }, 1.0);
  }

  // Each predator's view of the prey, and the prey that see a predator: the engine's own
  // cell list finds the prey near each predator, and the SIMD scan (core/prey_scan.hpp) tests
  // them; the marks let the grid engine finish only those prey on the behaviour path.
  const KindParams<Real>& pk = m.kind[1];
  const bool chase = pk.beh.chase != Real(0) && !b.predators.empty();
  const bool marks = near && !b.predators.empty() &&
                     (b0.flee_predators != Real(0) || b0.evade_predators != Real(0)) &&
                     beh::only_prey_terms(m, b);
  if (near && (chase || marks)) {
    if (marks) b.prey_sees.assign(s.n, 0);
    const PreyScanFn<Real> scan = select_prey_scan<Real>(m.isa, D, m.boundary == Boundary::wrap);
    const KindParams<Real>& k0 = m.kind[0];
    const double reach = std::max(chase ? double(pk.radius) : 0.0, marks ? double(k0.radius) : 0.0);
    PreyScanArgs<Real> args;
    for (int c = 0; c < 3; ++c) {
      args.p[c] = s.p[c].data();
      args.v[c] = s.v[c].data();
    }
    args.readable = s.p[0].size();
    args.kind = s.kind.data();
    args.kind0_end = std::uint32_t(std::min<std::size_t>(kind0_end, 0xffffffffu));
    args.id = s.id.data();
    args.size = m.size;
    args.inv_size = m.inv_size;
    args.chase = chase;
    args.full_view = pk.full_view;
    args.radius2 = pk.radius2;
    args.cos_half_view = pk.cos_half_view;
    args.flee = marks;
    args.prey_full_view = k0.full_view;
    args.prey_radius2 = k0.radius2;
    args.prey_cos_half_view = k0.cos_half_view;
    args.seen = marks ? b.prey_sees.data() : nullptr;
    args.isa = m.isa;
    // Each predator's view is its own (and marks are an OR): any split over threads and any
    // order give the same bits. Near predators share prey, so they go in a Z-order of cells
    // about the reach wide: their prey are then still in cache.
    const std::vector<std::uint32_t> order = z_order<Real>(b.predators, D, double(m.size), reach);
    if (select_prey_sweep<Real>(m.isa, D, m.boundary == Boundary::wrap)) {
      // Float worlds: blocks of kSweepBlock predators in that order, each block's ranges in
      // slot order (prey_views: the sweep, core/prey_scan.hpp), so the rows the block's
      // predators share are read from memory once. Any split into blocks gives the same bits.
      constexpr std::size_t kSweepBlock = 2048;
      const std::size_t np = b.predators.size();
      auto blocks = [&](std::size_t bb, std::size_t be) {
        // Per thread and kept from step to step: fresh pages cost more than the sweep's sort.
        thread_local std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
        thread_local std::vector<PreySweepTask> tasks;
        thread_local std::vector<PreySweepPred<Real>> preds;
        thread_local std::vector<PreyScanResult<Real>> res;
        for (std::size_t blk = bb; blk < be; ++blk) {
          const std::size_t t0 = blk * kSweepBlock, t1 = std::min(np, t0 + kSweepBlock);
          tasks.clear();
          preds.assign(t1 - t0, PreySweepPred<Real>{});
          for (std::size_t t = t0; t < t1; ++t) {
            const SpecialAgent<Real>& a = b.predators[order[t]];
            PreySweepPred<Real>& pr = preds[t - t0];
            Real v_len = 0;
            for (int c = 0; c < D; ++c) {
              pr.p[c] = a.p[c];
              pr.v[c] = a.v[c];
              v_len += a.v[c] * a.v[c];
            }
            pr.v_len = std::sqrt(v_len);
            ranges.clear();
            near(a.p, reach, ranges);
            for (const auto& [rb, re] : ranges)
              tasks.push_back(PreySweepTask{rb, re, std::uint32_t(t - t0)});
          }
          res.resize(t1 - t0);
          prey_views(args, D, m.boundary == Boundary::wrap, preds.data(), preds.size(), tasks,
                     res.data());
          if (!chase) continue;
          for (std::size_t t = t0; t < t1; ++t) {
            const PreyScanResult<Real>& r = res[t - t0];
            if (r.prey == 0) continue;
            SpecialAgent<Real>& a = b.predators[order[t]];
            a.prey = r.prey;
            for (int c = 0; c < D; ++c) {
              a.prey_offset[c] = Real(r.sum[c] / double(r.prey));
              a.nearest_d[c] = r.nearest_d[c];
              a.nearest_v[c] = s.v[c][r.best_slot];
            }
          }
        }
      };
      const std::size_t nb = (np + kSweepBlock - 1) / kSweepBlock;
      if (pfor)
        pfor(nb, blocks);
      else
        blocks(0, nb);
      return;
    }
    // The slot ranges of predator t + 1 are looked up, and their lines prefetched, before
    // predator t is scanned (prefetch_prey): the scan then finds most of them in cache.
    auto views = [&](std::size_t begin, std::size_t end) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges, next;
      auto look_up = [&](std::size_t t) {
        next.clear();
        near(b.predators[order[t]].p, reach, next);
        std::sort(next.begin(), next.end());
        prefetch_prey(args, D, next.data(), next.size());
      };
      if (begin < end) look_up(begin);
      PreyScanArgs<Real> q = args;
      for (std::size_t t = begin; t < end; ++t) {
        SpecialAgent<Real>& a = b.predators[order[t]];
        Real v_len = 0;
        for (int c = 0; c < D; ++c) {
          q.ap[c] = a.p[c];
          q.av[c] = a.v[c];
          v_len += a.v[c] * a.v[c];
        }
        q.av_len = std::sqrt(v_len);
        ranges.swap(next);
        if (t + 1 < end) look_up(t + 1);
        PreyScanResult<Real> r;
        scan(q, ranges.data(), ranges.size(), r);
        if (!chase || r.prey == 0) continue;
        a.prey = r.prey;
        for (int c = 0; c < D; ++c) {
          a.prey_offset[c] = Real(r.sum[c] / double(r.prey));
          a.nearest_d[c] = r.nearest_d[c];
          a.nearest_v[c] = s.v[c][r.best_slot];
        }
      }
    };
    if (pfor)
      pfor(b.predators.size(), views);
    else
      views(0, b.predators.size());
  } else if (chase && !near) {
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
