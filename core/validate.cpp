#include "core/validate.hpp"

#include <cmath>
#include <sstream>

namespace boids {

std::string kind_prefix(int kind) {
  switch (kind) {
    case 1:
      return "predators.";
    case 2:
      return "leaders.";
    default:
      return "";
  }
}

namespace {
std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

std::optional<FieldError> check_def(const WorldDef& d) {
  auto bad = [](std::string f, std::string m) { return FieldError{std::move(f), std::move(m)}; };
  if (d.dims != 2 && d.dims != 3) return bad("world.dims", "must be 2 or 3, got " + num(d.dims));
  if (!std::isfinite(d.size) || !(d.size > 0))
    return bad("world.size", "must be a finite number > 0, got " + num(d.size));
  if (d.boundary != Boundary::wrap && d.boundary != Boundary::reflect &&
      d.boundary != Boundary::open)
    return bad("world.boundary", "must be \"wrap\", \"reflect\" or \"open\"");
  if (!std::isfinite(d.dt) || !(d.dt > 0))
    return bad("motion.dt", "must be a finite number > 0, got " + num(d.dt));
  if (d.threads < 0 || d.threads > 1024)
    return bad("engine.threads", "must be between 0 (all cores) and 1024, got " + num(d.threads));
  if (d.cells_per_radius != 1 && d.cells_per_radius != 2)
    return bad("engine.cells_per_radius", "must be 1 or 2, got " + num(d.cells_per_radius));
  for (int k = 0; k < kKindCount; ++k) {
    const std::string p = kind_prefix(k);
    const RuleDef& r = d.kinds[k].rules;
    const MotionDef& m = d.kinds[k].motion;
    const std::pair<const char*, double> finite_nonneg[] = {
        {"rules.radius", r.radius},         {"rules.separation_radius", r.separation_radius},
        {"rules.separation", r.separation}, {"rules.alignment", r.alignment},
        {"rules.cohesion", r.cohesion},     {"motion.max_speed", m.max_speed},
        {"motion.min_speed", m.min_speed},  {"motion.max_force", m.max_force},
    };
    for (const auto& [key, v] : finite_nonneg) {
      if (!std::isfinite(v) || v < 0)
        return bad(p + key, "must be a finite number >= 0, got " + num(v));
    }
    if (!(r.radius > 0)) return bad(p + "rules.radius", "must be > 0, got " + num(r.radius));
    if (r.separation_radius > r.radius)
      return bad(p + "rules.separation_radius", "must be <= rules.radius (" + num(r.radius) +
                                                    "), got " + num(r.separation_radius));
    if (!std::isfinite(r.view_angle) || r.view_angle <= 0 || r.view_angle > 360)
      return bad(p + "rules.view_angle", "must be in (0, 360] degrees, got " + num(r.view_angle));
    if (!(m.max_speed > 0))
      return bad(p + "motion.max_speed", "must be > 0, got " + num(m.max_speed));
    if (m.min_speed > m.max_speed)
      return bad(p + "motion.min_speed",
                 "must be <= motion.max_speed (" + num(m.max_speed) + "), got " + num(m.min_speed));
    // Only the flocking boids go through the cell list, whose wrap stencil needs r < L/2.
    if (k == 0 && d.boundary == Boundary::wrap && !(r.radius < d.size / 2))
      return bad(p + "rules.radius", "must be < world.size / 2 (" + num(d.size / 2) +
                                         ") in a wrapping world, got " + num(r.radius));
    if (d.boundary != Boundary::open && !(m.max_speed * d.dt < d.size))
      return bad(p + "motion.max_speed",
                 "times motion.dt must be < world.size so a boid cannot cross the box in one step");
  }
  return std::nullopt;
}

}  // namespace boids
