// grid_near_slots(): the grid engine's look-up of the kind-0 slots near a point, for the
// predators' view of the prey (parallel/grid_engine_near.hpp).
#include "parallel/grid_engine_near.hpp"

#include <algorithm>
#include <cmath>

namespace boids {

template <class Real>
void grid_near_slots(const GridPlan& g, const std::uint32_t* cs, double size, const Real* p,
                     double reach, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) {
  const bool wrap = g.wrap != WrapMode::none;
  const double r = reach * 1.0001 + 1e-6 * size;
  long lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  bool whole[3] = {true, true, true};
  auto cell = [&](int c, double x) {
    return long(std::clamp(std::floor((x - g.lo[c]) * g.inv_cell[c]), -4e9, 4e9));
  };
  for (int c = 0; c < g.dims; ++c) {
    const long n = g.n[c];
    lo[c] = cell(c, double(p[c]) - r);
    hi[c] = cell(c, double(p[c]) + r);
    whole[c] = wrap && hi[c] - lo[c] + 1 >= n;
    if (whole[c]) lo[c] = 0, hi[c] = n - 1;
    if (!wrap) lo[c] = std::clamp(lo[c], 0L, n - 1), hi[c] = std::clamp(hi[c], 0L, n - 1);
  }
  double edge[3] = {0, 0, 0};
  for (int c = 0; c < g.dims; ++c) edge[c] = 1.0 / g.inv_cell[c];
  // Distance along axis c from p to cell u (unwrapped index) of it.
  auto gap = [&](int c, long u) {
    if (whole[c] || c >= g.dims) return 0.0;
    const double e = edge[c];
    const double below = g.lo[c] + double(u) * e, above = below + e;
    double d = 0;
    if (double(p[c]) < below && (wrap || u > 0)) d = below - double(p[c]);
    if (double(p[c]) > above && (wrap || u < g.n[c] - 1)) d = double(p[c]) - above;
    return d;
  };
  // The index u names modulo the axis; nearly always u itself (divisions cost more than the
  // rest of a row's work).
  auto wrapped = [&](int c, long u) {
    const long n = g.n[c];
    if (u >= 0 && u < n) return std::uint32_t(u);
    return std::uint32_t(((u % n) + n) % n);
  };
  const std::uint32_t n0 = std::uint32_t(g.n[0]), n1 = std::uint32_t(g.n[1]);
  for (long z = lo[2]; z <= hi[2]; ++z) {
    const double hz = gap(2, z);
    if (hz > r) continue;
    const std::uint32_t wz = wrapped(2, z);
    for (long y = lo[1]; y <= hi[1]; ++y) {
      const double hy = gap(1, y);
      const double rest2 = r * r - hz * hz - hy * hy;
      if (rest2 < 0) continue;
      const std::uint32_t base = n0 * (wrapped(1, y) + n1 * wz);
      long xa = lo[0], xz = hi[0];
      if (!whole[0]) {
        const double w = std::sqrt(rest2);
        xa = std::max(xa, cell(0, double(p[0]) - w));
        xz = std::min(xz, cell(0, double(p[0]) + w));
        if (!wrap) xa = std::clamp(xa, 0L, long(n0) - 1), xz = std::clamp(xz, 0L, long(n0) - 1);
      }
      if (xa > xz) continue;
      const std::uint32_t a = wrapped(0, xa), b = wrapped(0, xz);
      auto put = [&](std::uint32_t x0, std::uint32_t x1) {
        if (cs[base + x0] < cs[base + x1 + 1]) out.emplace_back(cs[base + x0], cs[base + x1 + 1]);
      };
      if (a <= b) {
        put(a, b);
      } else {  // across the seam
        put(a, n0 - 1);
        put(0, b);
      }
    }
  }
}

template void grid_near_slots<float>(const GridPlan&, const std::uint32_t*, double, const float*,
                                     double, std::vector<std::pair<std::uint32_t, std::uint32_t>>&);
template void grid_near_slots<double>(const GridPlan&, const std::uint32_t*, double, const double*,
                                      double,
                                      std::vector<std::pair<std::uint32_t, std::uint32_t>>&);

}  // namespace boids
