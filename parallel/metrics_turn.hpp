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

namespace boids::metrics_detail {
namespace {

inline constexpr int kTurnSize = 1024;
inline constexpr double kTurnTwoPi = 6.283185307179586476925286766559;

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
  using B = typename P::B;
  constexpr int W = P::W;
  std::size_t i = 0;
  if constexpr (W > 1) {
    alignas(64) double u[W], kd[W], lts[W], ltc[W];
    const B one(1.0);
    for (; i + W <= n; i += W) {
      for (int l = 0; l < W; ++l) u[l] = double(x[i + std::size_t(l)]);
      const B uu = B::load_aligned(u) / B(size);
      uu.store_aligned(u);
      bool plain = true;
      for (int l = 0; l < W; ++l) plain = plain && u[l] >= 0 && u[l] < 1;
      if (!plain) {
        for (int l = 0; l < W; ++l) turn_one(u[l], ts, tc, sn + i + l, cs + i + l);
        continue;
      }
      const B scaled = uu * B(double(kTurnSize));
      scaled.store_aligned(u);
      for (int l = 0; l < W; ++l) {
        int k = int(u[l]);
        k = k < 0 ? 0 : (k >= kTurnSize ? kTurnSize - 1 : k);
        kd[l] = double(k);
        lts[l] = ts[k];
        ltc[l] = tc[k];
      }
      const B f = (scaled - B::load_aligned(kd)) * B(kTurnTwoPi / kTurnSize), f2 = f * f;
      const B sf = f * (one - f2 / B(6.0) * (one - f2 / B(20.0)));
      const B cf = one - f2 / B(2.0) * (one - f2 / B(12.0) * (one - f2 / B(30.0)));
      const B vs = B::load_aligned(lts), vc = B::load_aligned(ltc);
      (vs * cf + vc * sf).store_unaligned(sn + i);
      (vc * cf - vs * sf).store_unaligned(cs + i);
    }
  }
  for (; i < n; ++i) turn_one(double(x[i]) / size, ts, tc, sn + i, cs + i);
}

}  // namespace
}  // namespace boids::metrics_detail
