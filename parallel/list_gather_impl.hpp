// The neighbour-list gather (parallel/list_gather.hpp) over a pack P (Real or an xsimd batch;
// parallel/pair_packs.hpp). Included by list_gather_<isa>.cpp only; everything here is in an
// anonymous namespace, so each ISA's unit keeps its own copy.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "parallel/list_gather.hpp"

namespace boids::list_detail {
namespace {

template <class P, class Real, int D, WrapMode WM>
int gather_visible(const GatherInput<Real>& in, std::uint32_t i, const CandidateRun<Real>* runs,
                   int nr, const GatherOut<Real>& out) {
  using B = typename P::B;
  constexpr int W = P::W;
  static_assert(W <= int(kGatherSlack), "a compacting store writes W elements");
  Real vi[3] = {0, 0, 0}, vi2 = 0;
  B pv[3], vv[3];
  for (int c = 0; c < D; ++c) {
    vi[c] = in.v[c][i];
    vi2 += vi[c] * vi[c];
    pv[c] = P::splat(in.p[c][i]);
    vv[c] = P::splat(vi[c]);
  }
  const Real vi_len = std::sqrt(vi2);
  const bool cone = !in.full_view && vi_len > Real(0);
  const B r2 = P::splat(in.radius2);
  const B vlen = P::splat(vi_len), cosv = P::splat(in.cos_half_view);
  [[maybe_unused]] const B size = P::splat(in.size), inv = P::splat(in.inv_size);
  const B zero = P::splat(Real(0));
  [[maybe_unused]] const B half = P::splat(Real(0.5));
  Real* dst[D + 1];
  for (int c = 0; c < D; ++c) dst[c] = out.d[c];
  dst[D] = out.dist2;
  int n = 0;
  for (int r = 0; r < nr; ++r) {
    const std::uint32_t b = runs[r].begin, e = runs[r].end;
    // nlist::offer's minimum image as (d - a) + b: per pair, or per run (WrapMode::shift,
    // list_gather.hpp).
    [[maybe_unused]] B sa[3], sb[3];
    if constexpr (WM == WrapMode::shift) {
      for (int c = 0; c < D; ++c) {
        sa[c] = runs[r].shift[c] < Real(0) ? size : zero;
        sb[c] = runs[r].shift[c] > Real(0) ? size : zero;
      }
    }
    for (std::uint32_t q = b; q < e; q += W) {
      B d[4];
      for (int c = 0; c < D; ++c) {
        B x = P::loadu(in.p[c] + q) - pv[c];
        if constexpr (WM == WrapMode::shift) {
          x = (x - sa[c]) + sb[c];
        } else if constexpr (WM == WrapMode::min_image) {
          const B t = x * inv;
          x = (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
        }
        d[c] = x;
      }
      B d2 = d[0] * d[0];
      for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
      d[D] = d2;
      auto m = d2 < r2;
      if (cone) {  // nlist::offer's view test: (sqrt(d2) * |v_i|) * cos
        B dot = d[0] * vv[0];
        for (int c = 1; c < D; ++c) dot = dot + d[c] * vv[c];
        m = P::and_(m, dot >= P::sqrt(d2) * vlen * cosv);
      }
      if (e - q < std::uint32_t(W)) m = P::and_(m, P::lane_lt(int(e - q)));
      std::uint64_t bits = P::bits(m);
      if (i - q < std::uint32_t(W)) bits &= ~(std::uint64_t(1) << (i - q));
      P::template compress<D + 1>(bits, d, dst, out.slot, n, q);
      n += std::popcount(bits);
    }
  }
  return n;
}

template <template <class> class Pk, class Real>
void fill_gather_table(GatherTable<Real>& t) {
  t.fn[0][int(WrapMode::none)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::none>;
  t.fn[0][int(WrapMode::shift)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::shift>;
  t.fn[0][int(WrapMode::min_image)] = &gather_visible<Pk<Real>, Real, 2, WrapMode::min_image>;
  t.fn[1][int(WrapMode::none)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::none>;
  t.fn[1][int(WrapMode::shift)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::shift>;
  t.fn[1][int(WrapMode::min_image)] = &gather_visible<Pk<Real>, Real, 3, WrapMode::min_image>;
}

}  // namespace
}  // namespace boids::list_detail
