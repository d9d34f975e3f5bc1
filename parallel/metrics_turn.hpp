// The sine and cosine of 2*pi*x/L for the circular centre of the flock metrics (pass A of
// parallel/metrics.cpp), without a libm call per boid: the angle is split into one of 1024
// table angles (std::sin/std::cos, built once in parallel/metrics.cpp) and a remainder f in
// [0, 2*pi/1024), whose sine and cosine come from their Taylor series (terms beyond those kept
// are below 1e-19), then the angle-sum formulas. A fixed sequence of correctly rounded
// operations, so the same bits on every thread count and instruction set; within a few units
// of the last place of sin and cos. turn_many() runs the same operations W lanes at a time
// (compiled per instruction set with the pair pass, metrics_pairs_<isa>.cpp).
#pragma once

#include <cmath>
#include <cstddef>

#if defined(BOIDS_PAIR_PACKS_X86)  // the per-ISA units, after core/simd_packs.hpp
#include "parallel/metrics_lanes.hpp"
#endif

namespace boids::metrics_detail {
namespace {

inline constexpr int kTurnSize = 1024;
inline constexpr double kTurnTwoPi = 6.283185307179586476925286766559;

// The table of the circular centre's sines and cosines, built once (by parallel/metrics.cpp)
// and read by the lanes below.
struct TurnTable {
  double sin[kTurnSize], cos[kTurnSize];
  TurnTable() {
    for (int k = 0; k < kTurnSize; ++k) {
      sin[k] = std::sin(kTurnTwoPi * k / kTurnSize);
      cos[k] = std::cos(kTurnTwoPi * k / kTurnSize);
    }
  }
};

// sin and cos of 2*pi*u, with ts/tc the table.
inline void turn_one(double u, const double* ts, const double* tc, double* sn, double* cs) {
  if (!(u >= 0 && u < 1)) u -= std::floor(u);  // positions lie in [0, L): rarely taken
  const double scaled = u * kTurnSize;
  int k = int(scaled);
  k = k < 0 ? 0 : (k >= kTurnSize ? kTurnSize - 1 : k);
  const double f = (scaled - k) * (kTurnTwoPi / kTurnSize), f2 = f * f;
  const double sf = f * (1 - f2 / 6 * (1 - f2 / 20));
  const double cf = 1 - f2 / 2 * (1 - f2 / 12 * (1 - f2 / 30));
  *sn = ts[k] * cf + tc[k] * sf;
  *cs = tc[k] * cf - ts[k] * sf;
}

// sn[i], cs[i] = sin, cos of 2*pi*x[i]/size for i < n; P is a pack of doubles
// (core/simd_packs.hpp).
template <class P, class Real>
void turn_many(const Real* x, std::size_t n, double size, const double* ts, const double* tc,
               double* sn, double* cs) {
  std::size_t i = 0;
#if defined(BOIDS_PAIR_PACKS_X86)
  using B = typename P::B;
  constexpr int W = P::W;
  if constexpr (W > 1) {
    // Every value stays in registers (parallel/metrics_lanes.hpp): the same operations as
    // turn_one, lane by lane, so the same bits.
    const B one(1.0), zero(0.0), top(double(kTurnSize - 1));
    for (; i + W <= n; i += W) {
      const B uu = load_double<B, Real>(x + i) / B(size);
      if (!xsimd::all(uu >= zero && uu < one)) {
        alignas(64) double u[W];
        uu.store_aligned(u);
        for (int l = 0; l < W; ++l) turn_one(u[l], ts, tc, sn + i + l, cs + i + l);
        continue;
      }
      const B scaled = uu * B(double(kTurnSize));
      const B kd = xsimd::min(xsimd::max(xsimd::trunc(scaled), zero), top);  // int(), clamped
      const B f = (scaled - kd) * B(kTurnTwoPi / kTurnSize), f2 = f * f;
      const B sf = f * (one - f2 / B(6.0) * (one - f2 / B(20.0)));
      // f2 / 2 as f2 * 0.5: the same value (a power of two scales exactly, or both round the
      // same quotient), one division fewer.
      const B cf = one - f2 * B(0.5) * (one - f2 / B(12.0) * (one - f2 / B(30.0)));
      const B vs = gather_lanes(ts, kd), vc = gather_lanes(tc, kd);
      (vs * cf + vc * sf).store_unaligned(sn + i);
      (vc * cf - vs * sf).store_unaligned(cs + i);
    }
  }
#endif
  for (; i < n; ++i) turn_one(double(x[i]) / size, ts, tc, sn + i, cs + i);
}

}  // namespace
}  // namespace boids::metrics_detail
