// beh::sin_cos for many arguments at once, in SIMD lanes: prepare_behaviours' circular centre
// takes one sin/cos per coordinate of every boid each step (7 % of the all-behaviours step
// with one call each). Included by the kernel units only (core/kernels_impl.hpp), which
// compile it once per instruction set: eight lanes with AVX-512 (one register; the wander
// keyframes' and follow slots' sines of the all-behaviours step 35 % cheaper than with four),
// four with AVX (two registers' worth below it made GCC split and partly scalarise the
// vectors, slower than the scalar code), two without. Every lane does sin_cos's operations in its
// order (-ffp-contract=off); the conversion to the nearest integer and the quadrant's select and
// sign flip are done in doubles and bit masks, exactly, so each result has sin_cos's bits on every
// instruction set.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/behaviour_trig.hpp"

namespace boids::beh {

#if defined(__AVX512F__)
inline constexpr std::size_t kTrigLanes = 8;
#elif defined(__AVX__)
inline constexpr std::size_t kTrigLanes = 4;
#else
inline constexpr std::size_t kTrigLanes = 2;
#endif

/// sin_cos() of a[0 .. n) into s and c, kTrigLanes at a time: the same operations on GNU
/// vectors (each lane the scalar code's bits), and the few arguments beyond |q| < 2^20 (or
/// NaN) again through sin_cos() itself. static: each instruction set's unit keeps its own copy.
static inline void sin_cos_n(const double* a, double* s, double* c, std::size_t n) {
  std::size_t i = 0;
#if defined(__GNUC__)
  typedef double V __attribute__((vector_size(8 * kTrigLanes)));
  typedef std::int64_t I __attribute__((vector_size(8 * kTrigLanes)));
  for (; i + kTrigLanes <= n; i += kTrigLanes) {
    V x;
    std::memcpy(&x, a + i, sizeof x);
    const V t = x * 6.36619772367581382433e-01;
    const I in = (t < 1048576.0) & (t > -1048576.0);  // lanes sin_cos computes itself
    const V y = (t >= 0.0) ? t + 0.5 : t - 0.5;
    // q = trunc(y) (the scalar code's conversion to an integer) in doubles: (y + M) - M
    // rounds to the nearest integer (M = 1.5 * 2^52, |y| < 2^51), then a step toward zero
    // where that went past y. The low bits of q + M are q's two's complement bits.
    constexpr double M = 6755399441055744.0;
    const V ry = (y + M) - M;
    const V q = ry + (((y >= 0.0) & (ry > y))  ? V{} - 1.0
                      : ((y < 0.0) & (ry < y)) ? V{} + 1.0
                                               : V{});
    const I qi = (I)(q + M);
    const V r = (((x - q * 1.57079632673412561417e+00) - q * 6.07710050630396597660e-11) -
                 q * 2.02226624871116645580e-21) -
                q * 8.47842766036889956997e-32;
    const V z = r * r;
    const V ps =
        -1.66666666666666324348e-01 +
        z * (8.33333333332248946124e-03 +
             z * (-1.98412698298579493134e-04 +
                  z * (2.75573137070700676789e-06 +
                       z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10))));
    const V pc =
        4.16666666666666019037e-02 +
        z * (-1.38888888888741095749e-03 +
             z * (2.48015872894767294178e-05 +
                  z * (-2.75573143513906633035e-07 +
                       z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))));
    const V sr = r + r * z * ps;
    const V cr = (1.0 - 0.5 * z) + z * z * pc;
    const I odd = I{} - (qi & 1);
    const I sb = (I)sr, cb = (I)cr;
    const I s0 = (cb & odd) | (sb & ~odd), c0 = (sb & odd) | (cb & ~odd);
    const V so = (V)(s0 ^ ((qi & 2) << 62)), co = (V)(c0 ^ (((qi + 1) & 2) << 62));
    std::memcpy(s + i, &so, sizeof so);
    std::memcpy(c + i, &co, sizeof co);
    std::int64_t all = -1;
    for (std::size_t l = 0; l < kTrigLanes; ++l) all &= in[l];
    if (all == 0) {
      for (std::size_t l = i; l < i + kTrigLanes; ++l) sin_cos(a[l], s[l], c[l]);
    }
  }
#endif
  for (; i < n; ++i) sin_cos(a[i], s[i], c[i]);
}

/// std::cbrt() of a[0 .. n) into r, kTrigLanes at a time: glibc's cbrt (sysdeps/ieee754/dbl-64/
/// s_cbrt.c: frexp, a degree-6 polynomial, one rational step, a factor 2^(e mod 3 / 3), ldexp)
/// on GNU vectors for positive normal arguments, each lane its operations in its order (so the
/// bits of the libm call, which tests/test_fastpath.cpp checks against std::cbrt); frexp and
/// ldexp are exact bit operations there. Zeros, negative, subnormal, infinite and NaN
/// arguments, and every argument where the C library is not glibc, go through std::cbrt.
static inline void cbrt_n(const double* a, double* r, std::size_t n) {
  std::size_t i = 0;
#if defined(__GNUC__) && defined(__GLIBC__)
  const std::size_t whole = n - n % kTrigLanes;
  typedef double V __attribute__((vector_size(8 * kTrigLanes)));
  typedef std::int64_t I __attribute__((vector_size(8 * kTrigLanes)));
  constexpr double kCbrt2 = 1.2599210498948731648, kSqrCbrt2 = 1.5874010519681994748;
  for (; i < whole; i += kTrigLanes) {
    V x;
    std::memcpy(&x, a + i, sizeof x);
    const I b = (I)x;
    const I e = (b >> 52) & 0x7ff;
    const I ok = (b > 0) & (e > 0) & (e < 0x7ff);                     // positive, normal, finite
    const V xm = (V)((b & 0x000fffffffffffff) | 0x3fe0000000000000);  // frexp: [0.5, 1)
    const I xe = e - 1022;
    const V u =
        (0.354895765043919860 +
         ((1.50819193781584896 +
           ((-2.11499494167371287 +
             ((2.44693122563534430 +
               ((-1.83469277483613086 + (0.784932344976639262 - 0.145263899385486377 * xm) * xm) *
                xm)) *
              xm)) *
            xm)) *
          xm));
    const V t2 = u * u * u;
    const I q = xe / 3, rem = xe - 3 * q;  // C's / and %: toward zero
    const V f = rem == 0    ? V{} + 1.0
                : rem == 1  ? V{} + kCbrt2
                : rem == 2  ? V{} + kSqrCbrt2
                : rem == -1 ? V{} + 1.0 / kCbrt2
                            : V{} + 1.0 / kSqrCbrt2;
    const V ym = u * (t2 + 2.0 * xm) / (2.0 * t2 + xm) * f;
    const V y = ym * (V)((q + 1023) << 52);  // ldexp(ym, q): exact, the result is normal
    std::memcpy(r + i, &y, sizeof y);
    std::int64_t all = -1;
    for (std::size_t l = 0; l < kTrigLanes; ++l) all &= ok[l];
    if (all == 0) {
      for (std::size_t l = i; l < i + kTrigLanes; ++l)
        if (!(a[l] > 0.0 && a[l] >= 2.2250738585072014e-308 && a[l] < HUGE_VAL))
          r[l] = std::cbrt(a[l]);
    }
  }
#endif
  for (std::size_t j = i; j < n; ++j) r[j] = std::cbrt(a[j]);
}

}  // namespace boids::beh
