// The topological gather (parallel/list_gather.hpp) over a pack P (Real or an xsimd batch;
// parallel/pair_packs.hpp). Included by list_gather_<isa>.cpp only; everything here is in an
// anonymous namespace, so each ISA's unit keeps its own copy.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "parallel/list_gather.hpp"

namespace boids::list_detail {
namespace {

template <class P, class Real, int D, bool Wrap>
void gather_k(const GatherInput<Real>& in, std::uint32_t i, const CandidateRun<Real>* runs, int nr,
              int k, nlist::Neighbour<Real>* best, int* count) {
  using B = typename P::B;
  constexpr int W = P::W;
  Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, vi2 = 0;
  B pv[3];
  for (int c = 0; c < D; ++c) {
    pi[c] = in.p[c][i];
    vi[c] = in.v[c][i];
    vi2 += vi[c] * vi[c];
    pv[c] = P::splat(pi[c]);
  }
  const Real vi_len = std::sqrt(vi2);
  const bool cone = !in.full_view && vi_len > Real(0);
  const B inf = P::splat(std::numeric_limits<Real>::infinity());
  const B r2 = P::splat(in.radius2);
  [[maybe_unused]] const B size = P::splat(in.size), inv = P::splat(in.inv_size);
  [[maybe_unused]] const B zero = P::splat(Real(0)), half = P::splat(Real(0.5));
  int n = 0;
  Real bound = in.radius2;  // a candidate must have |d|^2 <= bound (and < r^2)
  B boundv = P::splat(bound);
  alignas(64) Real lane[3][W > 1 ? W : 1];
  alignas(64) Real lane2[W > 1 ? W : 1];
  for (int r = 0; r < nr; ++r) {
    const std::uint32_t b = runs[r].begin, e = runs[r].end;
    for (std::uint32_t q = b; q < e; q += W) {
      B d[3];
      for (int c = 0; c < D; ++c) {
        B x = P::loadu(in.p[c] + q) - pv[c];
        if constexpr (Wrap) {  // nlist::offer's minimum image, branch-free
          const B t = x * inv;
          x = (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
        }
        d[c] = x;
      }
      B d2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
      if (e - q < std::uint32_t(W)) d2 = P::select(P::lane_lt(int(e - q)), d2, inf);
      std::uint64_t m = P::bits(P::and_(d2 <= boundv, d2 < r2));
      if (i >= q && i - q < std::uint32_t(W)) m &= ~(std::uint64_t(1) << (i - q));
      if (!m) continue;
      if constexpr (W == 1) {
        lane2[0] = d2;
        for (int c = 0; c < D; ++c) lane[c][0] = d[c];
      } else {
        d2.store_aligned(lane2);
        for (int c = 0; c < D; ++c) d[c].store_aligned(lane[c]);
      }
      for (; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const Real dist2 = lane2[l];
        if (!(dist2 <= bound)) continue;  // the bound may have tightened within this batch
        const std::uint32_t j = q + std::uint32_t(l);
        const std::uint32_t id = in.id[j];
        if (n == k && dist2 == bound && id > best[k - 1].id) continue;
        if (cone) {
          Real dot = 0;  // nlist::offer's view test
          for (int c = 0; c < D; ++c) dot += lane[c][l] * vi[c];
          if (!(dot >= std::sqrt(dist2) * vi_len * in.cos_half_view)) continue;
        }
        // Insert into best[0 .. n), sorted by (|d|^2, id), dropping the k-th when full.
        int at = n < k ? n : k - 1;
        while (at > 0 && (dist2 < best[at - 1].dist2 ||
                          (dist2 == best[at - 1].dist2 && id < best[at - 1].id))) {
          best[at] = best[at - 1];
          --at;
        }
        nlist::Neighbour<Real>& nb = best[at];
        for (int c = 0; c < 3; ++c) nb.d[c] = c < D ? lane[c][l] : Real(0);
        nb.dist2 = dist2;
        nb.id = id;
        nb.slot = j;
        if (n < k) ++n;
        if (n == k) {
          bound = best[k - 1].dist2 < in.radius2 ? best[k - 1].dist2 : in.radius2;
          boundv = P::splat(bound);
        }
      }
    }
  }
  *count = n;
}

template <template <class> class Pk, class Real>
void fill_gather_table(GatherTable<Real>& t) {
  t.fn[0][0] = &gather_k<Pk<Real>, Real, 2, false>;
  t.fn[0][1] = &gather_k<Pk<Real>, Real, 2, true>;
  t.fn[1][0] = &gather_k<Pk<Real>, Real, 3, false>;
  t.fn[1][1] = &gather_k<Pk<Real>, Real, 3, true>;
}

}  // namespace
}  // namespace boids::list_detail
