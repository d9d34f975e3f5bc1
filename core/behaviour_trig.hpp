// sin and cos together for the per-boid behaviour maths (wander keyframes, leader slots, the
// circular centre), instead of libm's sincos, which cost 11 % of the all-behaviours step
// (docs/bench.md, "Every rule on the fast path"). Plain double operations in a fixed order
// (the build sets -ffp-contract=off), no table and no libm call, so the result is the same on
// every instruction set, compiler flag set and C library.
//
// Method (fdlibm's): a = q pi/2 + r with q the nearest integer and r in [-pi/4, pi/4] by a
// three-part Cody-Waite reduction (each part of pi/2 has 33 bits, so q * part is exact for
// |q| < 2^20 and r is accurate to about 1e-16 |a| beyond that), then the kernels' minimax
// polynomials for sin and cos on [-pi/4, pi/4] (error below 1 ulp there), and the quadrant
// q mod 4 swaps and negates them: accurate to a few ulps. Beyond |a| = 2^20 pi/2 (about 1.6
// million; only the 2D leader slots of ids above 690,000 get there) it calls std::sin and
// std::cos, which are also the same on every instruction set (one libm, called from code
// compiled once).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace boids::beh {

inline void sin_cos(double a, double& s, double& c) {
  constexpr double two_over_pi = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00;   // first 33 bits of pi/2
  constexpr double pio2_2 = 6.07710050630396597660e-11;   // next 33 bits
  constexpr double pio2_3 = 2.02226624871116645580e-21;   // next 33 bits
  constexpr double pio2_3t = 8.47842766036889956997e-32;  // pi/2 - (pio2_1 + pio2_2 + pio2_3)
  const double t = a * two_over_pi;
  if (!(t < 1048576.0 && t > -1048576.0)) {  // |q| >= 2^20 (or NaN): q * pio2_1 not exact
    s = std::sin(a);
    c = std::cos(a);
    return;
  }
  const std::int64_t qi = std::int64_t(t >= 0 ? t + 0.5 : t - 0.5);  // nearest, ties away
  const double q = double(qi);
  const double r = (((a - q * pio2_1) - q * pio2_2) - q * pio2_3) - q * pio2_3t;
  const double z = r * r;
  // fdlibm __kernel_sin / __kernel_cos coefficients.
  const double ps =
      -1.66666666666666324348e-01 +
      z * (8.33333333332248946124e-03 +
           z * (-1.98412698298579493134e-04 +
                z * (2.75573137070700676789e-06 +
                     z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10))));
  const double pc =
      4.16666666666666019037e-02 +
      z * (-1.38888888888741095749e-03 +
           z * (2.48015872894767294178e-05 +
                z * (-2.75573143513906633035e-07 +
                     z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))));
  const double sr = r + r * z * ps;
  const double cr = (1.0 - 0.5 * z) + z * z * pc;
  // The quadrant q mod 4: (s, c) = (sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr). Bit masks
  // (a select and a sign flip, both exact) rather than a switch: q is random across boids
  // (the circular centre), and the switch's jump mispredicted on most calls.
  const std::uint64_t quad = std::uint64_t(qi);
  const std::uint64_t odd = std::uint64_t(0) - (quad & 1u);  // all ones when q is odd
  const std::uint64_t sb = std::bit_cast<std::uint64_t>(sr), cb = std::bit_cast<std::uint64_t>(cr);
  const std::uint64_t s0 = (cb & odd) | (sb & ~odd), c0 = (sb & odd) | (cb & ~odd);
  s = std::bit_cast<double>(s0 ^ ((quad & 2u) << 62));
  c = std::bit_cast<double>(c0 ^ (((quad + 1u) & 2u) << 62));
}

}  // namespace boids::beh
