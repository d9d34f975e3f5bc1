// Passes A and B of the flock metrics (parallel/metrics.cpp) over a pack P of doubles (W lanes;
// W = 1 is the plain reference loop), compiled per instruction set with the pair pass
// (metrics_pairs_<isa>.cpp). Included by metrics_pairs_impl.hpp only.
//
// Each term of a fixed-point sum (parallel/metrics_pairs.hpp) is an integer: fixed_unit(x) =
// trunc(x * 2^62), fixed_value(x) = trunc(x) * 2^40 + trunc(frac(x) * 2^40). In the lanes the
// same integers are formed in doubles, split so every part is below 2^32 (trunc and the
// subtraction of an integer multiple of 2^32 are exact), and added in double lanes, which is
// exact while a lane's sum stays below 2^53: at most kChunk terms per lane between two folds
// into the 128-bit sums. So a lane sum is the exact integer sum of its terms, and the block's
// FixedSum has the same bits as the one-boid-at-a-time loop (moment_a_one / moment_b_one, also
// the tail of every chunk). Lanes that add nothing (a boid at rest, r = 0) add the term of 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "parallel/metrics_lanes.hpp"
#include "parallel/metrics_limits.hpp"
#include "parallel/metrics_pairs.hpp"
#include "parallel/metrics_turn.hpp"

namespace boids::metrics_detail {
namespace {

inline constexpr std::size_t kMomentChunk = 256;

// Pass A for one boid (the reference; sn/cs: its sines and cosines under wrap).
template <class Real, int D, bool Wrap>
inline void moment_a_one(const MomentInput<Real>& in, std::size_t i, const double* sn,
                         const double* cs, Partial& q) {
  if (in.kind_of[i] != in.kind) return;
  double v[3] = {0, 0, 0}, s2 = 0;
  for (int c = 0; c < D; ++c) {
    v[c] = double(in.v[c][i]);
    s2 += v[c] * v[c];
  }
  const double sp = std::sqrt(s2);
  q.speed += fixed_value(sp);
  if (!(sp > 0)) return;
  q.moving += 1;
  for (int c = 0; c < D; ++c) {
    q.vhat[c] += fixed_unit(v[c] / sp);
    if constexpr (Wrap) {
      q.centre_a[c] += fixed_unit(sn[c]);
      q.centre_b[c] += fixed_unit(cs[c]);
    } else {
      q.centre_a[c] += fixed_value(double(in.p[c][i]));
    }
  }
}

// Pass B for one boid.
template <class Real, int D, bool Wrap>
inline void moment_b_one(const MomentInput<Real>& in, std::size_t i, Partial& q) {
  if (in.kind_of[i] != in.kind) return;
  double v[3] = {0, 0, 0}, r[3] = {0, 0, 0}, v2 = 0, r2 = 0;
  for (int c = 0; c < D; ++c) {
    v[c] = double(in.v[c][i]);
    v2 += v[c] * v[c];
    r[c] = double(in.p[c][i]) - in.centre[c];
    if constexpr (Wrap) {  // r - L*nearbyint(r/L) for |r/L| < 1, without a libm call
      const double turns = r[c] / in.size;
      r[c] -= in.size * double(int(turns > 0.5) - int(turns < -0.5));
    }
    r2 += r[c] * r[c];
  }
  if (!(v2 > 0) || !(r2 > 0)) return;
  const double inv = 1.0 / (std::sqrt(v2) * std::sqrt(r2));
  q.mom[2] += fixed_unit((r[0] * v[1] - r[1] * v[0]) * inv);
  if constexpr (D == 3) {
    q.mom[0] += fixed_unit((r[1] * v[2] - r[2] * v[1]) * inv);
    q.mom[1] += fixed_unit((r[2] * v[0] - r[0] * v[2]) * inv);
  }
}

#if defined(BOIDS_PAIR_PACKS_X86)
// Lane sums of fixed_unit terms: trunc(x * 2^62) = hi * 2^32 + lo, |hi| <= 2^30, |lo| < 2^32.
template <class B>
struct UnitLanes {
  B hi = B(0.0), lo = B(0.0);
  void add(B x) {
    const B y = x * B(kUnitScale);
    const B h = xsimd::trunc(y * B(0x1p-32));
    hi += h;
    lo += xsimd::trunc(y - h * B(0x1p32));
  }
  void fold(FixedSum& out) {
    alignas(64) double a[B::size], b[B::size];
    hi.store_aligned(a);
    lo.store_aligned(b);
    for (std::size_t l = 0; l < B::size; ++l)
      out += FixedSum(std::int64_t(a[l])) * (std::int64_t(1) << 32) + FixedSum(std::int64_t(b[l]));
    hi = lo = B(0.0);
  }
};

// Lane sums of fixed_value terms: trunc(x) * 2^40 + trunc(frac(x) * 2^40) with the whole part
// (|x| clamped to 2^50) split as wh * 2^26 + wl.
template <class B>
struct ValueLanes {
  B wh = B(0.0), wl = B(0.0), fi = B(0.0);
  void add(B x) {
    x = xsimd::min(xsimd::max(x, B(-kValueClamp)), B(kValueClamp));
    const B w = xsimd::trunc(x);
    const B h = xsimd::trunc(w * B(0x1p-26));
    wh += h;
    wl += w - h * B(0x1p26);
    fi += xsimd::trunc((x - w) * B(kValueScale));
  }
  void fold(FixedSum& out) {
    alignas(64) double a[B::size], b[B::size], c[B::size];
    wh.store_aligned(a);
    wl.store_aligned(b);
    fi.store_aligned(c);
    for (std::size_t l = 0; l < B::size; ++l) {
      const FixedSum whole =
          FixedSum(std::int64_t(a[l])) * (std::int64_t(1) << 26) + FixedSum(std::int64_t(b[l]));
      out += whole * (std::int64_t(1) << 40) + FixedSum(std::int64_t(c[l]));
    }
    wh = wl = fi = B(0.0);
  }
};

#endif

template <class P, class Real, int D, bool Wrap>
void moments_a(const MomentInput<Real>& in, std::size_t b, std::size_t e, Partial& q) {
  alignas(64) double sn[3][kMomentChunk], cs[3][kMomentChunk];
  for (std::size_t c0 = b; c0 < e; c0 += kMomentChunk) {
    const std::size_t len = std::min(kMomentChunk, e - c0);
    if constexpr (Wrap) {
      for (int c = 0; c < D; ++c)
        turn_many<P, Real>(in.p[c] + c0, len, in.size, in.ts, in.tc, sn[c], cs[c]);
    }
    std::size_t l = 0;
#if defined(BOIDS_PAIR_PACKS_X86)
    if constexpr (P::W > 1) {
      using B = typename P::B;
      constexpr std::size_t W = B::size;
      ValueLanes<B> speed, centre_v[3];
      UnitLanes<B> vhat[3], centre_a[3], centre_b[3];
      B moving(0.0);
      const B zero(0.0);
      for (; l + W <= len; l += W) {
        const std::size_t i = c0 + l;
        const auto mine = kind_lanes<B>(in.kind_of + i, in.kind);
        B v[3], s2 = zero;
        for (int c = 0; c < D; ++c) {
          v[c] = xsimd::select(mine, load_double<B>(in.v[c] + i), zero);
          s2 = s2 + v[c] * v[c];
        }
        const B sp = xsimd::sqrt(s2);
        speed.add(sp);
        const auto mv = sp > zero;
        moving += xsimd::select(mv, B(1.0), zero);
        for (int c = 0; c < D; ++c) {
          vhat[c].add(xsimd::select(mv, v[c] / sp, zero));
          if constexpr (Wrap) {
            centre_a[c].add(xsimd::select(mv, B::load_aligned(sn[c] + l), zero));
            centre_b[c].add(xsimd::select(mv, B::load_aligned(cs[c] + l), zero));
          } else {
            centre_v[c].add(xsimd::select(mv, load_double<B>(in.p[c] + i), zero));
          }
        }
      }
      speed.fold(q.speed);
      alignas(64) double mc[W];
      moving.store_aligned(mc);
      for (std::size_t k = 0; k < W; ++k) q.moving += std::uint64_t(mc[k]);
      for (int c = 0; c < D; ++c) {
        vhat[c].fold(q.vhat[c]);
        if constexpr (Wrap) {
          centre_a[c].fold(q.centre_a[c]);
          centre_b[c].fold(q.centre_b[c]);
        } else {
          centre_v[c].fold(q.centre_a[c]);
        }
      }
    }
#endif
    for (; l < len; ++l) {
      double s1[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
      for (int c = 0; c < D && Wrap; ++c) {
        s1[c] = sn[c][l];
        c1[c] = cs[c][l];
      }
      moment_a_one<Real, D, Wrap>(in, c0 + l, s1, c1, q);
    }
  }
}

template <class P, class Real, int D, bool Wrap>
void moments_b(const MomentInput<Real>& in, std::size_t b, std::size_t e, Partial& q) {
  std::size_t i = b;
#if defined(BOIDS_PAIR_PACKS_X86)
  if constexpr (P::W > 1) {
    using B = typename P::B;
    constexpr std::size_t W = B::size;
    const B zero(0.0), one(1.0), size(in.size);
    const double up = Wrap ? half_turn(in.size) : 0.0;  // r / size > 0.5 is r >= up
    const B hi(up), lo(-up);
    B centre[3];
    for (int c = 0; c < D; ++c) centre[c] = B(in.centre[c]);
    UnitLanes<B> mom[3];
    while (i + W <= e) {
      const std::size_t stop = std::min(e, i + kMomentChunk * W);
      for (; i + W <= stop; i += W) {
        const auto mine = kind_lanes<B>(in.kind_of + i, in.kind);
        B v[3], r[3], v2 = zero, r2 = zero;
        for (int c = 0; c < D; ++c) {
          v[c] = xsimd::select(mine, load_double<B>(in.v[c] + i), zero);
          v2 = v2 + v[c] * v[c];
          r[c] = load_double<B>(in.p[c] + i) - centre[c];
          if constexpr (Wrap) {
            r[c] = r[c] - size * (xsimd::select(r[c] >= hi, one, zero) -
                                  xsimd::select(r[c] <= lo, one, zero));
          }
          r2 = r2 + r[c] * r[c];
        }
        const auto ok = (v2 > zero) && (r2 > zero);
        const B inv = one / (xsimd::sqrt(v2) * xsimd::sqrt(r2));
        mom[2].add(xsimd::select(ok, (r[0] * v[1] - r[1] * v[0]) * inv, zero));
        if constexpr (D == 3) {
          mom[0].add(xsimd::select(ok, (r[1] * v[2] - r[2] * v[1]) * inv, zero));
          mom[1].add(xsimd::select(ok, (r[2] * v[0] - r[0] * v[2]) * inv, zero));
        }
      }
      for (int c = 0; c < 3; ++c) mom[c].fold(q.mom[c]);
    }
  }
#endif
  for (; i < e; ++i) moment_b_one<Real, D, Wrap>(in, i, q);
}

// The fused row's sums (FusedFn): the nearest distances W lanes at a time in ValueLanes (the
// terms of fixed_value, so the one-boid loop's bits, which is also the tail), the counts in
// integers.
template <class P, class Real>
void fused_sums(const Real* nearest2, const std::int32_t* k, std::size_t b, std::size_t e,
                std::uint64_t topo_k, PairSums& out) {
  std::size_t i = b;
#if defined(BOIDS_PAIR_PACKS_X86)
  if constexpr (P::W > 1) {
    using B = typename P::B;
    constexpr std::size_t W = B::size;
    ValueLanes<B> nnd;
    while (i + W <= e) {
      const std::size_t stop = std::min(e, i + kMomentChunk * W);
      for (; i + W <= stop; i += W) nnd.add(xsimd::sqrt(load_double<B>(nearest2 + i)));
      nnd.fold(out.nnd);
    }
  }
#endif
  for (; i < e; ++i) out.nnd += fixed_value(std::sqrt(double(nearest2[i])));
  std::uint64_t n = 0;
  if (topo_k > 0) {
    for (std::size_t j = b; j < e; ++j) n += std::min(std::uint64_t(k[j]), topo_k);
  } else {
    for (std::size_t j = b; j < e; ++j) n += std::uint64_t(k[j]);
  }
  out.neighbours += n;
  out.nnd_count += e - b;
}

template <class P, class Real>
void fill_moment_table(PairTable<Real>& t) {
  t.fused = &fused_sums<P, Real>;
  t.pass_a[0][0] = &moments_a<P, Real, 2, false>;
  t.pass_a[0][1] = &moments_a<P, Real, 2, true>;
  t.pass_a[1][0] = &moments_a<P, Real, 3, false>;
  t.pass_a[1][1] = &moments_a<P, Real, 3, true>;
  t.pass_b[0][0] = &moments_b<P, Real, 2, false>;
  t.pass_b[0][1] = &moments_b<P, Real, 2, true>;
  t.pass_b[1][0] = &moments_b<P, Real, 3, false>;
  t.pass_b[1][1] = &moments_b<P, Real, 3, true>;
}

}  // namespace
}  // namespace boids::metrics_detail
