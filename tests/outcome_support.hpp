// Helpers of the behaviour outcome tests (tests/test_outcomes_*.cpp): each outcome is checked
// over many steps in both engines, 2D and 3D, from the public World API.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "boids/world.hpp"

namespace boids::test {

/// Engine and precision of one run, with a name for INFO().
struct Flavour {
  EngineKind engine;
  Precision precision;
  std::string name() const {
    return std::string(engine == EngineKind::grid ? "grid" : "naive") +
           (precision == Precision::f32 ? "/float" : "/double");
  }
};

inline std::vector<Flavour> both_engines(bool doubles = true) {
  std::vector<Flavour> f = {{EngineKind::naive, Precision::f32},
                            {EngineKind::grid, Precision::f32}};
  if (doubles) {
    f.push_back({EngineKind::naive, Precision::f64});
    f.push_back({EngineKind::grid, Precision::f64});
  }
  return f;
}

/// Position and velocity of row i as 3-vectors (z = 0 in 2D).
struct Row {
  double p[3], v[3];
};
inline Row row(const State& s, std::size_t i) {
  const bool z = !s.z.empty();
  return {{s.x[i], s.y[i], z ? s.z[i] : 0.0}, {s.vx[i], s.vy[i], z ? s.vz[i] : 0.0}};
}

inline double norm3(const double* a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/// Minimum-image offset b - a in a world of edge L (wrap) or the plain offset.
inline void offset3(const double* a, const double* b, double L, bool wrap, double* out) {
  for (int c = 0; c < 3; ++c) {
    out[c] = b[c] - a[c];
    if (wrap) out[c] -= L * std::nearbyint(out[c] / L);
  }
}

/// Angle between two vectors, accurate for small and near-opposite angles (atan2 form).
inline double angle3(const double* a, const double* b) {
  const double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2],
               cz = a[0] * b[1] - a[1] * b[0];
  return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz),
                    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

/// The same state as `s` for a def whose kinds are given per row.
inline State with_kinds(State s, const std::vector<std::uint8_t>& kinds) {
  s.kind = kinds;
  return s;
}

}  // namespace boids::test
