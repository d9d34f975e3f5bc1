#include "core/validate.hpp"

#include "core/input_limits.hpp"

#include <cmath>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/behaviour_params.hpp"

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

namespace {

// A vector of world.dims finite numbers (or empty when `may_be_empty`).
std::optional<FieldError> check_vec(const std::vector<double>& v, int dims, const std::string& f,
                                    bool may_be_empty) {
  if (v.empty() && may_be_empty) return std::nullopt;
  if (int(v.size()) != dims)
    return FieldError{f,
                      "needs " + num(dims) + " numbers (world.dims), got " + num(double(v.size()))};
  for (double x : v) {
    if (!std::isfinite(x)) return FieldError{f, "must hold finite numbers"};
  }
  return std::nullopt;
}

std::optional<FieldError> check_kind_behaviour(const WorldDef& d, int k) {
  auto bad = [](std::string f, std::string m) { return FieldError{std::move(f), std::move(m)}; };
  const std::string p = kind_prefix(k);
  const std::string bs = p + "behaviour.";
  const std::string vs = p + "vehicle.";
  const BehaviourDef& b = d.kinds[k].behaviour;
  const VehicleDef& v = d.kinds[k].vehicle;
  // Weights may be negative (a negative seek is a flee); they must be finite.
  const std::pair<const char*, double> finite[] = {
      {"seek", b.seek},
      {"arrive", b.arrive},
      {"flee", b.flee},
      {"pursue", b.pursue},
      {"evade", b.evade},
      {"wander", b.wander},
      {"follow_leader", b.follow_leader},
      {"flee_predators", b.flee_predators},
      {"chase", b.chase},
      {"evade_predators", b.evade_predators},
      {"avoid", b.avoid},
      {"containment", b.containment},
      {"formation", b.formation},
      {"global_cohesion", b.global_cohesion},
      {"destination_alignment", b.destination_alignment},
      {"closest_separation", b.closest_separation},
  };
  for (const auto& [key, x] : finite) {
    if (!std::isfinite(x)) return bad(bs + key, "must be a finite number, got " + num(x));
  }
  const std::pair<const char*, double> nonneg[] = {
      {"flee_radius", b.flee_radius},
      {"wander_distance", b.wander_distance},
      {"wander_radius", b.wander_radius},
      {"follow_distance", b.follow_distance},
      {"cohesion_max_distance", b.cohesion_max_distance},
      {"closest_min_distance", b.closest_min_distance},
  };
  for (const auto& [key, x] : nonneg) {
    if (!std::isfinite(x) || x < 0)
      return bad(bs + key, "must be a finite number >= 0, got " + num(x));
  }
  const std::pair<const char*, double> pos[] = {
      {"wander_period", b.wander_period},
      {"avoid_distance", b.avoid_distance},
      {"containment_margin", b.containment_margin},
  };
  for (const auto& [key, x] : pos) {
    if (!std::isfinite(x) || !(x > 0))
      return bad(bs + key, "must be a finite number > 0, got " + num(x));
  }
  if (!std::isfinite(b.flee_boost) || b.flee_boost < 1)
    return bad(bs + "flee_boost", "must be a finite number >= 1, got " + num(b.flee_boost));
  if (b.wander != 0 && !(b.wander_radius < b.wander_distance))
    return bad(bs + "wander_radius", "must be < behaviour.wander_distance (" +
                                         num(b.wander_distance) + "), got " + num(b.wander_radius));
  if (!std::isfinite(v.mass) || !(v.mass > 0))
    return bad(vs + "mass", "must be a finite number > 0, got " + num(v.mass));
  if (!std::isfinite(v.lateral_force) || !(v.lateral_force > 0))
    return bad(vs + "lateral_force", "must be a finite number > 0, got " + num(v.lateral_force));
  if (!std::isfinite(v.accel_force) || v.accel_force < v.lateral_force)
    return bad(vs + "accel_force", "must be >= vehicle.lateral_force (" + num(v.lateral_force) +
                                       "), got " + num(v.accel_force));
  if (!std::isfinite(v.brake_force) || v.brake_force < v.accel_force)
    return bad(vs + "brake_force", "must be >= vehicle.accel_force (" + num(v.accel_force) +
                                       "), got " + num(v.brake_force));
  if (!std::isfinite(v.lateral_falloff) || v.lateral_falloff < 0 || v.lateral_falloff >= 1)
    return bad(vs + "lateral_falloff", "must be in [0, 1), got " + num(v.lateral_falloff));
  if (!std::isfinite(v.turn_rate) || !(v.turn_rate > 0) || v.turn_rate * d.dt > 180)
    return bad(vs + "turn_rate",
               "must be > 0 deg/s with turn_rate * dt <= 180, got " + num(v.turn_rate));
  if (v.model == Vehicle::turn_rate && !(d.kinds[k].motion.max_speed > 0))
    return bad(p + "motion.max_speed", "must be > 0 for the turn_rate vehicle");
  return std::nullopt;
}

// The couzin profile's radii and what it does not combine with; the topological rule's k.
std::optional<FieldError> check_couzin_topological(const WorldDef& d) {
  auto bad = [](std::string f, std::string m) { return FieldError{std::move(f), std::move(m)}; };
  const RuleDef& r = d.kinds[0].rules;
  if (r.neighbours != NeighbourRule::metric && r.neighbours != NeighbourRule::topological)
    return bad("rules.neighbours", "must be \"metric\" or \"topological\"");
  if (r.topological_k < 1)
    return bad("rules.topological_k", "must be an integer >= 1, got " + num(r.topological_k));
  if (!std::isfinite(r.orientation_radius) || r.orientation_radius < 0)
    return bad("rules.orientation_radius",
               "must be a finite number >= 0, got " + num(r.orientation_radius));
  if (d.profile != Profile::couzin) return std::nullopt;
  if (r.orientation_radius < r.separation_radius || r.orientation_radius > r.radius)
    return bad("rules.orientation_radius",
               "must be in [rules.separation_radius, rules.radius] = [" + num(r.separation_radius) +
                   ", " + num(r.radius) + "] in the couzin profile, got " +
                   num(r.orientation_radius));
  if (d.predators > 0) return bad("predators.count", "must be 0 in the couzin profile");
  if (d.leaders > 0) return bad("leaders.count", "must be 0 in the couzin profile");
  if (!d.spheres.empty()) return bad("obstacles.spheres", "must be empty in the couzin profile");
  if (!d.boxes.empty()) return bad("obstacles.boxes", "must be empty in the couzin profile");
  if (behaviour_params<double>(d.kinds[0], d.dt).active)
    return bad("world.profile",
               "\"couzin\" moves the boids by its own zones: steering behaviours and vehicle "
               "models other than point_mass cannot be combined with it");
  return std::nullopt;
}

std::optional<FieldError> check_behaviour_world(const WorldDef& d) {
  auto bad = [](std::string f, std::string m) { return FieldError{std::move(f), std::move(m)}; };
  if (std::uint64_t(d.predators) + d.leaders > d.count)
    return bad("predators.count", "predators.count + leaders.count (" +
                                      num(double(d.predators) + d.leaders) +
                                      ") must be <= boids.count (" + num(d.count) + ")");
  if (d.profile != Profile::standard && d.profile != Profile::abm && d.profile != Profile::vicsek &&
      d.profile != Profile::couzin)
    return bad("world.profile", "must be \"standard\", \"abm\", \"vicsek\" or \"couzin\"");
  if (auto e = check_couzin_topological(d)) return e;
  if (d.profile == Profile::abm) {
    const MotionDef& m = d.kinds[0].motion;
    if (m.min_speed != m.max_speed)
      return bad("motion.min_speed",
                 "must equal motion.max_speed (the fixed speed) in the abm "
                 "profile, got " +
                     num(m.min_speed));
  }
  if (auto e = check_vec(d.goal, d.dims, "goal.position", true)) return e;
  if (auto e = check_vec(d.target.position, d.dims, "target.position", true)) return e;
  if (auto e = check_vec(d.target.velocity, d.dims, "target.velocity", true)) return e;
  if (!std::isfinite(d.target.hold) || d.target.hold < 0)
    return bad("target.hold", "must be a finite number >= 0, got " + num(d.target.hold));
  if (!std::isfinite(d.target.move) || d.target.move < 0)
    return bad("target.move", "must be a finite number >= 0, got " + num(d.target.move));
  const FormationDef& f = d.formation;
  if (!std::isfinite(f.radius) || f.radius < 0)
    return bad("formation.radius", "must be a finite number >= 0, got " + num(f.radius));
  if (!std::isfinite(f.settle_time) || !(f.settle_time > 0))
    return bad("formation.settle_time", "must be a finite number > 0, got " + num(f.settle_time));
  if (!std::isfinite(f.glide_speed) || f.glide_speed < 0)
    return bad("formation.glide_speed", "must be a finite number >= 0, got " + num(f.glide_speed));
  if (!std::isfinite(f.attack_speed) || f.attack_speed < 0)
    return bad("formation.attack_speed",
               "must be a finite number >= 0, got " + num(f.attack_speed));
  for (std::size_t i = 0; i < d.spheres.size(); ++i) {
    const std::string key = "obstacles.spheres";
    const std::string at = "sphere " + std::to_string(i + 1) + ": ";
    if (auto e = check_vec(d.spheres[i].center, d.dims, key, false))
      return bad(key, at + "center " + e->message);
    const double r = d.spheres[i].radius;
    if (!std::isfinite(r) || !(r > 0))
      return bad(key, at + "radius must be a finite number > 0, got " + num(r));
  }
  for (std::size_t i = 0; i < d.boxes.size(); ++i) {
    const std::string key = "obstacles.boxes";
    const std::string at = "box " + std::to_string(i + 1) + ": ";
    if (auto e = check_vec(d.boxes[i].lo, d.dims, key, false))
      return bad(key, at + "lo " + e->message);
    if (auto e = check_vec(d.boxes[i].hi, d.dims, key, false))
      return bad(key, at + "hi " + e->message);
    for (int c = 0; c < d.dims; ++c) {
      if (!(d.boxes[i].lo[std::size_t(c)] < d.boxes[i].hi[std::size_t(c)]))
        return bad(key, at + "lo must be < hi in every coordinate");
    }
  }
  return std::nullopt;
}

// Every number of the def in a float (double) world must lie within 1e12 (1e100) of zero, and
// the ones that divide (the "> 0" keys) at least 1e-12 (1e-100) from it, so that no product
// or quotient the model forms from two or three of them (r^2, w/dt, v*dt, 1/size, ...)
// overflows to inf or NaN in that precision. Non-finite values are left to the checks that
// give them their own message.
std::optional<FieldError> check_magnitudes(const WorldDef& d) {
  const bool f32 = d.precision == Precision::f32;
  const double hi = max_magnitude(d.precision), lo = 1 / hi;
  const char* world = f32 ? " in a float world" : " in a double world";
  auto check = [&](const std::string& key, double v, bool divides) -> std::optional<FieldError> {
    if (!std::isfinite(v)) return std::nullopt;
    if (std::fabs(v) > hi)
      return FieldError{key, "must be at most " + num(hi) + " in magnitude" + world +
                                 " (larger values overflow the model's products), got " + num(v)};
    if (divides && v != 0 && std::fabs(v) < lo)
      return FieldError{key, "must be at least " + num(lo) + " in magnitude" + world +
                                 " (the model divides by it), got " + num(v)};
    return std::nullopt;
  };
  auto list = [&](const std::string& key, const std::vector<double>& v, bool divides) {
    std::optional<FieldError> e;
    for (double x : v) {
      if (!e) e = check(key, x, divides);
    }
    return e;
  };
  std::vector<std::optional<FieldError>> found;
  found.push_back(check("world.size", d.size, true));
  found.push_back(check("motion.dt", d.dt, true));
  for (int k = 0; k < kKindCount; ++k) {
    const std::string p = kind_prefix(k);
    const RuleDef& r = d.kinds[k].rules;
    const MotionDef& m = d.kinds[k].motion;
    const BehaviourDef& b = d.kinds[k].behaviour;
    const VehicleDef& v = d.kinds[k].vehicle;
    const std::pair<const char*, double> rules[] = {
        {"rules.radius", r.radius},         {"rules.separation_radius", r.separation_radius},
        {"rules.separation", r.separation}, {"rules.alignment", r.alignment},
        {"rules.cohesion", r.cohesion},     {"motion.max_speed", m.max_speed},
        {"motion.min_speed", m.min_speed},  {"motion.max_force", m.max_force}};
    for (const auto& [key, x] : rules) {
      const bool weight =
          key[0] == 'r' && std::string_view(key).find("radius") == std::string_view::npos;
      found.push_back(check(p + key, x, !weight));
    }
    const std::tuple<const char*, double, bool> beh[] = {
        {"seek", b.seek, false},
        {"arrive", b.arrive, false},
        {"flee", b.flee, false},
        {"flee_radius", b.flee_radius, true},
        {"pursue", b.pursue, false},
        {"evade", b.evade, false},
        {"wander", b.wander, false},
        {"wander_distance", b.wander_distance, true},
        {"wander_radius", b.wander_radius, true},
        {"wander_period", b.wander_period, true},
        {"follow_leader", b.follow_leader, false},
        {"follow_distance", b.follow_distance, true},
        {"flee_predators", b.flee_predators, false},
        {"evade_predators", b.evade_predators, false},
        {"chase", b.chase, false},
        {"avoid", b.avoid, false},
        {"avoid_distance", b.avoid_distance, true},
        {"containment", b.containment, false},
        {"containment_margin", b.containment_margin, true},
        {"formation", b.formation, false},
        {"global_cohesion", b.global_cohesion, false},
        {"destination_alignment", b.destination_alignment, false},
        {"cohesion_max_distance", b.cohesion_max_distance, true},
        {"closest_separation", b.closest_separation, false},
        {"closest_min_distance", b.closest_min_distance, true}};
    for (const auto& [key, x, divides] : beh)
      found.push_back(check(p + "behaviour." + key, x, divides));
    const std::pair<const char*, double> veh[] = {{"mass", v.mass},
                                                  {"accel_force", v.accel_force},
                                                  {"brake_force", v.brake_force},
                                                  {"lateral_force", v.lateral_force},
                                                  {"turn_rate", v.turn_rate}};
    for (const auto& [key, x] : veh) found.push_back(check(p + "vehicle." + key, x, true));
  }
  found.push_back(list("goal.position", d.goal, false));
  found.push_back(list("target.position", d.target.position, false));
  found.push_back(list("target.velocity", d.target.velocity, false));
  found.push_back(check("target.hold", d.target.hold, false));
  found.push_back(check("target.move", d.target.move, false));
  found.push_back(check("formation.radius", d.formation.radius, true));
  found.push_back(check("formation.settle_time", d.formation.settle_time, true));
  found.push_back(check("formation.glide_speed", d.formation.glide_speed, true));
  found.push_back(check("formation.attack_speed", d.formation.attack_speed, true));
  for (const auto& s : d.spheres) {
    found.push_back(list("obstacles.spheres", s.center, false));
    found.push_back(check("obstacles.spheres", s.radius, true));
  }
  for (const auto& b : d.boxes) {
    found.push_back(list("obstacles.boxes", b.lo, false));
    found.push_back(list("obstacles.boxes", b.hi, false));
  }
  for (auto& e : found) {
    if (e) return e;
  }
  return std::nullopt;
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
    if (k == 0 && (!std::isfinite(r.noise) || r.noise < 0 || r.noise > 360))
      return bad("rules.noise", "must be in [0, 360] degrees, got " + num(r.noise));
    if (k == 0 && r.noise > 0 && d.profile == Profile::abm)
      return bad("rules.noise",
                 "works with the standard model and the vicsek and couzin profiles, "
                 "not with the abm profile");
    if (!(m.max_speed > 0))
      return bad(p + "motion.max_speed", "must be > 0, got " + num(m.max_speed));
    if (m.min_speed > m.max_speed)
      return bad(p + "motion.min_speed",
                 "must be <= motion.max_speed (" + num(m.max_speed) + "), got " + num(m.min_speed));
    // Only the flocking boids go through the cell list, whose wrap stencil needs r < L/2.
    if (k == 0 && d.boundary == Boundary::wrap && !(r.radius < d.size / 2))
      return bad(p + "rules.radius", "must be < world.size / 2 (" + num(d.size / 2) +
                                         ") in a wrapping world, got " + num(r.radius));
    if (!(m.max_speed * d.dt <= max_magnitude(d.precision)))
      return bad(p + "motion.max_speed", "times motion.dt must be at most " +
                                             num(max_magnitude(d.precision)) +
                                             " (a step longer than that overflows the model)");
    if (d.boundary != Boundary::open && !(m.max_speed * d.dt < d.size))
      return bad(p + "motion.max_speed",
                 "times motion.dt must be < world.size so a boid cannot cross the box in one step");
    if (auto e = check_kind_behaviour(d, k)) return e;
  }
  if (auto e = check_behaviour_world(d)) return e;
  if (auto e = check_magnitudes(d)) return e;
  return std::nullopt;
}

}  // namespace boids
