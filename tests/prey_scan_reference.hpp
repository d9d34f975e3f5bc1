// The prey scan's definition for the tests of core/prey_scan.hpp (tests/test_prey_scan.cpp,
// tests/test_prey_sweep.cpp): every slot of a predator's ranges in ascending order, and the
// scan's arguments over a store.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/prey_scan.hpp"

namespace boids::test {

// The definition the scan must reproduce: every slot of the ranges in ascending order, as
// prepare_behaviours' scalar loop and the distributed engine's chain do.
template <class Real, int D>
inline void reference(const PreyScanArgs<Real>& a,
                      const std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges, bool wrap,
                      PreyScanResult<Real>& out, std::vector<std::uint8_t>& seen) {
  Real best2 = std::numeric_limits<Real>::infinity();
  std::uint32_t best_id = 0;
  for (const auto& [b, e] : ranges) {
    for (std::uint32_t i = b; i < e; ++i) {
      if (a.kind[i] != 0) continue;
      Real d[3] = {0, 0, 0}, e2v[3] = {0, 0, 0}, dist2 = 0, e2 = 0;
      for (int c = 0; c < D; ++c) {
        d[c] = a.p[c][i] - a.ap[c];
        e2v[c] = a.ap[c] - a.p[c][i];
        if (wrap) {
          d[c] = min_image(d[c], a.size, a.inv_size);
          e2v[c] = min_image(e2v[c], a.size, a.inv_size);
        }
        dist2 += d[c] * d[c];
      }
      for (int c = 0; c < D; ++c) e2 += e2v[c] * e2v[c];
      if (a.flee && e2 < a.prey_radius2) {
        Real v[3] = {0, 0, 0}, vv = 0, ev = 0;
        for (int c = 0; c < D; ++c) v[c] = a.v[c][i];
        for (int c = 0; c < D; ++c) vv += v[c] * v[c];
        const Real vl = std::sqrt(vv);
        for (int c = 0; c < D; ++c) ev += e2v[c] * v[c];
        if (a.prey_full_view || !(vl > 0) || ev >= std::sqrt(e2) * vl * a.prey_cos_half_view)
          seen[i] = 1;
      }
      if (!a.chase || !(dist2 < a.radius2)) continue;
      if (!a.full_view && a.av_len > 0) {
        Real dv = 0;
        for (int c = 0; c < D; ++c) dv += d[c] * a.av[c];
        if (!(dv >= std::sqrt(dist2) * a.av_len * a.cos_half_view)) continue;
      }
      ++out.prey;
      for (int c = 0; c < D; ++c) out.sum[c] += double(d[c]);
      if (dist2 < best2 || (dist2 == best2 && a.id[i] < best_id)) {
        best2 = dist2;
        best_id = a.id[i];
        out.best_slot = i;
        for (int c = 0; c < D; ++c) out.nearest_d[c] = d[c];
      }
    }
  }
  out.best2 = best2;
  out.best_id = best_id;
}

// The scan's arguments over store `s` in a box of side L: chase and flee on, both views full
// or both coned (3/4 and 0.6 of half a turn).
template <class Real>
inline PreyScanArgs<Real> scan_args(const BoidStore<Real>& s, double L, bool full_view,
                                    double radius, double prey_radius) {
  PreyScanArgs<Real> a;
  for (int c = 0; c < 3; ++c) {
    a.p[c] = s.p[c].data();
    a.v[c] = s.v[c].data();
  }
  a.readable = s.p[0].size();
  a.kind = s.kind.data();
  a.id = s.id.data();
  a.size = Real(L);
  a.inv_size = Real(1.0 / L);
  a.chase = true;
  a.full_view = full_view;
  a.radius2 = Real(radius * radius);
  a.cos_half_view = Real(std::cos(0.75 * 3.14159265358979));
  a.flee = true;
  a.prey_full_view = full_view;
  a.prey_radius2 = Real(prey_radius * prey_radius);
  a.prey_cos_half_view = Real(std::cos(0.6 * 3.14159265358979));
  return a;
}

}  // namespace boids::test
