// The behaviour path's replacements of libm calls (core/behaviour_trig.hpp,
// core/behaviour_math.hpp): sin_cos against std::sin / std::cos, and min_image_near bit for
// bit against min_image on offsets between points of the world, ties and zeros included.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "core/behaviour_math.hpp"
#include "core/behaviour_trig.hpp"

namespace {

template <class Real>
bool same_bits(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class Real>
void check_min_image_near() {
  std::mt19937_64 g(5);
  long bad = 0, total = 0;
  for (int s = 0; s < 40; ++s) {
    const Real L = Real(std::uniform_real_distribution<double>(1, 5000)(g));
    const Real inv = Real(1) / L;
    std::uniform_real_distribution<double> u(0, double(L));
    for (int i = 0; i < 20000; ++i) {
      Real a = Real(u(g)), b = Real(u(g));
      if (i % 7 == 0) b = a;              // zero offset
      if (i % 11 == 0) a = 0, b = L / 2;  // t = 0.5, a tie
      if (i % 13 == 0) a = L / 2, b = 0;  // t = -0.5
      if (i % 17 == 0) a = 0, b = std::nextafter(L, Real(0));
      const Real d = b - a;
      ++total;
      if (!same_bits(boids::beh::min_image_near(d, L, inv), boids::min_image(d, L, inv))) ++bad;
    }
  }
  // Beyond |t| = 1.5 it is min_image itself.
  CHECK(same_bits(boids::beh::min_image_near(Real(7.25), Real(2), Real(0.5)),
                  boids::min_image(Real(7.25), Real(2), Real(0.5))));
  CHECK(total == 800000);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("min_image_near gives min_image's bits", "[behaviour][model]") {
  check_min_image_near<float>();
  check_min_image_near<double>();
}

TEST_CASE("sin_cos agrees with std::sin and std::cos", "[behaviour][model]") {
  std::mt19937_64 g(7);
  double worst = 0;
  auto check = [&](double a) {
    double s = 2, c = 2;
    boids::beh::sin_cos(a, s, c);
    worst = std::max({worst, std::abs(s - std::sin(a)), std::abs(c - std::cos(a))});
  };
  for (int i = 0; i < 200000; ++i) check(std::uniform_real_distribution<double>(-20, 20)(g));
  for (int k = 0; k < 100000; ++k) check((k + 0.5) * 2.39996322972865332);  // the leader slots
  for (double a : {0.0, -0.0, 0.785398163397448, 1.5707963267948966, 3.141592653589793,
                   4.71238898038469, 6.283185307179586, 1.6e6, 3e9, -3e9})
    check(a);
  CHECK(worst < 1e-15);
  double s = 0, c = 0;
  boids::beh::sin_cos(0.0, s, c);
  CHECK(s == 0.0);
  CHECK(c == 1.0);
}
