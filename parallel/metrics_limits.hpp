// Thresholds that let the flock metrics compare where the definition divides or takes a root,
// with the same outcome for every input (tests/test_metrics_fused.cpp checks them ulp by ulp).
// In an anonymous namespace, like everything the per-ISA units include.
#pragma once

#include <cmath>
#include <limits>

namespace boids::metrics_detail {
namespace {

// The smallest double t with r / size > 0.5 (the quotient rounded): r / size rounds
// monotonically in r, so that test is r >= t, and r / size < -0.5 is r <= -t (rounding is
// symmetric). Pass B's lanes compare instead of dividing (parallel/metrics_moments.hpp).
inline double half_turn(double size) {
  const double inf = std::numeric_limits<double>::infinity();
  double t = size * 0.5;
  while (t < inf && !(t / size > 0.5)) t = std::nextafter(t, inf);
  while (std::nextafter(t, -inf) / size > 0.5) t = std::nextafter(t, -inf);
  return t;
}

// The largest Real t with sqrt(double(t)) <= edge. The widening and sqrt are monotone, so the
// pair pass's test for a ring search, !(sqrt(double(nearest2)) <= edge), is !(nearest2 <= t)
// (the fused row, parallel/metrics.cpp).
template <class Real>
Real ring_limit(double edge) {
  const Real inf = std::numeric_limits<Real>::infinity();
  auto within = [&](Real x) { return std::sqrt(double(x)) <= edge; };
  Real t = Real(edge * edge);
  while (t > 0 && !within(t)) t = std::nextafter(t, Real(0));
  while (t < inf && within(std::nextafter(t, inf))) t = std::nextafter(t, inf);
  return t;
}

}  // namespace
}  // namespace boids::metrics_detail
