// The neighbour-list path of kind 0: topological neighbours (rules.neighbours =
// "topological") and the couzin profile. Both engines run it instead of the FlockSums kernels
// when ModelParams::list.active:
//
//   1. candidates : every other kind-0 boid the engine offers (naive: all of them; grid: the
//                   stencil's runs), kept when visible (|d| < r and inside the view cone, the
//                   test of accumulate_pair) — `d` always by the naive minimum image;
//   2. selection  : topological: the k nearest by (|d|^2, id), so ties go to the smaller id;
//   3. order      : the kept neighbours sorted by id, then summed in that order.
//
// A boid's result is therefore a function of the state alone, not of the engine's visiting
// order: naive and grid give bit-identical steps, for any thread count, and for any
// BOIDS_MAX_ISA (the grid engine's per-ISA gather, parallel/list_gather.hpp, computes offer's
// d, |d|^2 and view test with the same operations). docs/profiles.md has the rules.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/model.hpp"
#include "core/profile_couzin.hpp"

namespace boids::nlist {

/// One visible neighbour of the focal boid.
template <class Real>
struct Neighbour {
  Real d[3];           // p_j - p_i (minimum image)
  Real dist2;          // |d|^2
  std::uint32_t id;    // the neighbour's id
  std::uint32_t slot;  // its slot in the store the engine reads
};

/// Step 1 for candidate slot j of `s` seen from boid (pi, vi): appends it to `out` when visible.
template <class Real, int D>
inline void offer(const ModelParams<Real>& m, const KindParams<Real>& kp, const BoidStore<Real>& s,
                  std::uint32_t j, const Real* pi, const Real* vi, Real vi_len,
                  std::vector<Neighbour<Real>>& out) {
  Neighbour<Real> nb;
  Real dist2 = 0;
  for (int c = 0; c < D; ++c) {
    Real d = s.p[c][j] - pi[c];
    if (m.boundary == Boundary::wrap) {
      // min_image() without the libm call of nearbyint (baseline x86-64 has no roundsd):
      // |d / L| < 1 here, where nearbyint gives 0 for |t| <= 0.5 and +-1 beyond, so this is
      // bit-identical to it.
      const Real t = d * m.inv_size;
      d = (d - m.size * Real(t > Real(0.5))) + m.size * Real(t < Real(-0.5));
    }
    nb.d[c] = d;
    dist2 += d * d;
  }
  if (!(dist2 < kp.radius2)) return;
  if (!kp.full_view && vi_len > Real(0)) {
    Real dot = 0;
    for (int c = 0; c < D; ++c) dot += nb.d[c] * vi[c];
    if (!(dot >= std::sqrt(dist2) * vi_len * kp.cos_half_view)) return;
  }
  for (int c = D; c < 3; ++c) nb.d[c] = 0;
  nb.dist2 = dist2;
  nb.id = s.id[j];
  nb.slot = j;
  out.push_back(nb);
}

/// Topological k up to which the grid engine picks the k nearest of a long candidate list by
/// insertion into a sorted array (parallel/list_step.cpp); beyond it an insertion costs more
/// than the partial sort of select().
inline constexpr std::int32_t kMaxKBest = 32;

/// Steps 2-3: keeps the topo_k nearest (all when topo_k = 0) and sorts them by id.
template <class Real>
inline void select(std::int32_t topo_k, std::vector<Neighbour<Real>>& nb) {
  auto nearer = [](const Neighbour<Real>& a, const Neighbour<Real>& b) {
    return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.id < b.id);
  };
  if (topo_k > 0 && nb.size() > std::size_t(topo_k)) {
    std::nth_element(nb.begin(), nb.begin() + (topo_k - 1), nb.end(), nearer);
    nb.resize(std::size_t(topo_k));
  }
  if (nb.size() > 32) {
    std::sort(nb.begin(), nb.end(),
              [](const Neighbour<Real>& a, const Neighbour<Real>& b) { return a.id < b.id; });
    return;
  }
  for (std::size_t a = 1; a < nb.size(); ++a) {  // a handful (topological k): insertion sort
    const Neighbour<Real> x = nb[a];
    std::size_t at = a;
    for (; at > 0 && x.id < nb[at - 1].id; --at) nb[at] = nb[at - 1];
    nb[at] = x;
  }
}

/// The FlockSums of boid i (kind 0) over the neighbours nb, in their order, by the model's
/// accumulate_pair.
template <class Real, int D>
inline FlockSums<Real> list_sums(const KindParams<Real>& kp, const BoidStore<Real>& in,
                                 std::size_t i, const std::vector<Neighbour<Real>>& nb) {
  Real vi[3] = {0, 0, 0}, vi2 = 0;
  for (int c = 0; c < D; ++c) {
    vi[c] = in.v[c][i];
    vi2 += vi[c] * vi[c];
  }
  const Real vi_len = std::sqrt(vi2);
  FlockSums<Real> sums;
  for (const Neighbour<Real>& n : nb) {
    Real vj[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) vj[c] = in.v[c][n.slot];
    accumulate_pair<Real, D>(kp, n.d, vi, vi_len, vj, sums);
  }
  return sums;
}

/// Everything after the candidates for the kind-0 boid in slot i of `in`: selection, then the
/// couzin update or the FlockSums of the selected neighbours through finish_slot (so every
/// other model, behaviour and vehicle keeps working with topological neighbours). Writes slot
/// j of `out`. `nb` holds the visible candidates and is consumed.
template <class Real, int D>
inline void finish_from_list(const ModelParams<Real>& m, const StepContext<Real>& ctx,
                             const BoidStore<Real>& in, std::size_t i,
                             std::vector<Neighbour<Real>>& nb, BoidStore<Real>& out,
                             std::size_t j) {
  select(m.list.topo_k, nb);
  if (m.list.couzin) {
    Real p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      p[c] = in.p[c][i];
      v[c] = in.v[c][i];
    }
    couzin::Zones<Real> z;
    for (const Neighbour<Real>& n : nb) {
      Real vj[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) vj[c] = in.v[c][n.slot];
      couzin::accumulate<Real, D>(m, n.d, n.dist2, vj, z);
    }
    couzin::finish<Real, D>(m, ctx, in.id[i], z, p, v, po, vo);
    for (int c = 0; c < D; ++c) {
      out.p[c][j] = po[c];
      out.v[c][j] = vo[c];
    }
    out.kind[j] = in.kind[i];
    out.id[j] = in.id[i];
    return;
  }
  finish_slot<Real, D>(m, ctx, in, i, list_sums<Real, D>(m.kind[0], in, i, nb), out, j);
}

/// The visible candidates of the kind-0 boid in slot i of `s` among slots [begin, end).
template <class Real, int D>
inline void gather(const ModelParams<Real>& m, const BoidStore<Real>& s, std::size_t i,
                   std::uint32_t begin, std::uint32_t end, std::vector<Neighbour<Real>>& out) {
  const KindParams<Real>& kp = m.kind[0];
  Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, vi2 = 0;
  for (int c = 0; c < D; ++c) {
    pi[c] = s.p[c][i];
    vi[c] = s.v[c][i];
    vi2 += vi[c] * vi[c];
  }
  const Real vi_len = std::sqrt(vi2);
  for (std::uint32_t j = begin; j < end; ++j) {
    if (j == i || s.kind[j] != 0) continue;
    offer<Real, D>(m, kp, s, j, pi, vi, vi_len, out);
  }
}

}  // namespace boids::nlist
