// The per-boid parts of the grid engine's topological pass (parallel/list_step.cpp): the
// gather's buffers, steps 2-3 of core/neighbour_list.hpp on the gathered arrays, and the sums,
// boid by boid or staged for the SIMD sums across boids (SumFn).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/neighbour_list.hpp"
#include "core/store.hpp"
#include "parallel/list_gather.hpp"
#include "parallel/list_row_copy.hpp"

namespace boids::list_detail {

// The gather's output arrays for one thread, grown to the largest stencil seen.
template <class Real>
struct GatherBuffers {
  std::vector<Real> real;
  std::vector<std::uint32_t> slot;
  std::size_t stride = 0;

  GatherOut<Real> view(int dims, std::size_t candidates) {
    const std::size_t need = candidates + kGatherSlack;
    if (need > stride) {
      stride = std::max(need, stride + stride / 2);
      real.resize(std::size_t(dims + 1) * stride);
      slot.resize(stride);
    }
    GatherOut<Real> o;
    for (int c = 0; c < dims; ++c) o.d[c] = real.data() + std::size_t(c) * stride;
    o.dist2 = real.data() + std::size_t(dims) * stride;
    o.slot = slot.data();
    return o;
  }
};

// Topological neighbours, steps 2-3 of core/neighbour_list.hpp on the gathered arrays: the k
// nearest of the n visible candidates by (|d|^2, id), written to pick[0 .. cnt) as indices into
// the gather's arrays in increasing id order, as nlist::select orders the same list. Returns
// cnt. `pick` needs room for n indices.
template <class Real>
int topo_order(const BoidStore<Real>& in, const GatherOut<Real>& g, int n, int k,
               const OrderFn<Real>* order_fn, std::vector<std::uint32_t>& pick,
               std::vector<std::uint32_t>& ids,
               std::vector<std::pair<std::uint32_t, std::uint32_t>>& by_id) {
  const std::uint32_t* id = in.id.data();
  std::uint32_t* pk = pick.data();
  std::uint32_t* pid = ids.data();
  int cnt = n;
  if (n <= 16) {
    cnt = order_fn[n <= 8 ? 0 : 1](g.dist2, g.slot, id, n, k, pk);
  } else {
    if (n <= k) {
      for (int t = 0; t < n; ++t) {
        pk[t] = std::uint32_t(t);
        pid[t] = id[g.slot[t]];
      }
    } else if (k <= nlist::kMaxKBest) {
      // The k smallest (|d|^2, id), kept sorted by insertion; a candidate beyond the current
      // k-th costs one comparison.
      Real bd[nlist::kMaxKBest];
      int c = 0;
      for (int t = 0; t < n; ++t) {
        const Real d2 = g.dist2[t];
        if (c == k && d2 > bd[k - 1]) continue;
        const std::uint32_t it = id[g.slot[t]];
        if (c == k && d2 == bd[k - 1] && it > pid[k - 1]) continue;
        int at = c < k ? c : k - 1;
        while (at > 0 && (d2 < bd[at - 1] || (d2 == bd[at - 1] && it < pid[at - 1]))) {
          bd[at] = bd[at - 1];
          pid[at] = pid[at - 1];
          pk[at] = pk[at - 1];
          --at;
        }
        bd[at] = d2;
        pid[at] = it;
        pk[at] = std::uint32_t(t);
        if (c < k) ++c;
      }
      cnt = k;
    } else {
      for (int t = 0; t < n; ++t) pk[t] = std::uint32_t(t);
      std::nth_element(pk, pk + (k - 1), pk + n, [&](std::uint32_t a, std::uint32_t b) {
        const Real da = g.dist2[a], db = g.dist2[b];
        return da < db || (da == db && id[g.slot[a]] < id[g.slot[b]]);
      });
      for (int t = 0; t < k; ++t) pid[t] = id[g.slot[pk[t]]];
      cnt = k;
    }
    // Step 3: id order.
    by_id.resize(std::size_t(cnt));
    for (int t = 0; t < cnt; ++t) by_id[std::size_t(t)] = {pid[t], pk[t]};
    std::sort(by_id.begin(), by_id.end());
    for (int t = 0; t < cnt; ++t) pk[t] = by_id[std::size_t(t)].second;
  }
  return cnt;
}

// The FlockSums of boid i's neighbours pick[0 .. cnt) (topo_order) by accumulate_pair in that
// order, exactly as nlist::finish_from_list does with the same list. `kp` is kind 0's rules with
// the view test off: every candidate passed that very test in the gather.
template <class Real, int D>
FlockSums<Real> topo_sums(const KindParams<Real>& kp, const BoidStore<Real>& in, std::uint32_t i,
                          const GatherOut<Real>& g, const std::uint32_t* ord, int cnt) {
  Real vi[3] = {0, 0, 0}, vi2 = 0;
  for (int c = 0; c < D; ++c) {
    vi[c] = in.v[c][i];
    vi2 += vi[c] * vi[c];
  }
  const Real vi_len = std::sqrt(vi2);
  FlockSums<Real> sums;
  for (int t = 0; t < cnt; ++t) {
    const std::uint32_t a = ord[t], j = g.slot[a];
    Real d[3] = {0, 0, 0}, vj[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      d[c] = g.d[c][a];
      vj[c] = in.v[c][j];
    }
    accumulate_pair<Real, D>(kp, d, vi, vi_len, vj, sums);
  }
  return sums;
}

// One x-row's selected neighbours staged for the SIMD sums (SumStage): t-major,
// so the arrays grow with the largest count seen and keep what is already written.
template <class Real>
struct SumStaging {
  std::vector<Real> d[3], v[3], cnt;
  std::size_t stride = 0, rows = 0;  // rows: neighbour places t allocated

  void start(std::uint32_t count) {
    stride = (std::size_t(count) + 15) / 16 * 16 + 16;  // whole batches past the last boid
    cnt.assign(stride, Real(0));
    rows = d[0].size() / stride;
  }
  void need(int c) {
    if (std::size_t(c) <= rows) return;
    rows = std::max(std::size_t(c), rows + rows / 2);
    for (int a = 0; a < 3; ++a) {
      d[a].resize(rows * stride);
      v[a].resize(rows * stride);
    }
  }
  // Boid b's `count` neighbours pick[0 .. count) of the gather `go`: their d and velocities.
  template <int D>
  void put(std::uint32_t b, int count, const std::uint32_t* pick, const GatherOut<Real>& go,
           const BoidStore<Real>& in) {
    need(count);
    cnt[b] = Real(count);
    Real* sd[3];
    Real* sv[3];
    const Real* gd[3];
    const Real* iv[3];
    for (int c = 0; c < D; ++c) {  // plain pointers: the stores cannot alias them
      sd[c] = d[c].data() + b;
      sv[c] = v[c].data() + b;
      gd[c] = go.d[c];
      iv[c] = in.v[c].data();
    }
    const std::uint32_t* slot = go.slot;
    const std::size_t st = stride;
    for (int t = 0; t < count; ++t) {
      const std::uint32_t a = pick[t], j = slot[a];
      const std::size_t o = std::size_t(t) * st;
      for (int c = 0; c < D; ++c) {
        sd[c][o] = gd[c][a];
        sv[c][o] = iv[c][j];
      }
    }
  }

  SumStage<Real> view() const {
    SumStage<Real> s;
    for (int a = 0; a < 3; ++a) {
      s.d[a] = d[a].data();
      s.v[a] = v[a].data();
    }
    s.cnt = cnt.data();
    s.stride = stride;
    return s;
  }
};

}  // namespace boids::list_detail
