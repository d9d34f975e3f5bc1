// Scenario reader. The schema is a flat table of "section.key" entries, each with a setter
// that type-checks the TOML node; unknown keys and sections are refused with the nearest
// valid name. Range checks live in check_def() so the API and the files share them.
#include "core/scenario.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "boids/world.hpp"
#include "core/files.hpp"
#include "core/input_limits.hpp"
#include "core/scenario_fields.hpp"
#include "core/validate.hpp"

namespace boids {

namespace {

using namespace scenario_fields;  // Field and its typed setters

constexpr std::string_view kDefaultScenario =
    R"(# The built-in default scenario: a 3D periodic box in which a boid has
# about 30 neighbours on average (density 0.01 per u^3, radius 9).
[world]
dims = 3
size = 100.0
boundary = "wrap"

[boids]
count = 10000
seed = 1

[rules]
radius = 9.0
separation_radius = 3.0
view_angle = 360.0
separation = 1.5
alignment = 1.0
cohesion = 0.2

[motion]
dt = 0.1
max_speed = 4.0
min_speed = 1.0
max_force = 2.0
)";

// The couzin profile's defaults: the parameters of Couzin et al. (2002), Fig. 1 and 2
// (sigma = 0.05 rad in degrees); r_o and r_a are this project's choice (docs/profiles.md).
const std::pair<const char*, double> kCouzinDefaults[] = {
    {"rules.separation_radius", 1.0},
    {"rules.orientation_radius", 3.0},
    {"rules.radius", 17.0},
    {"rules.view_angle", 270.0},
    {"rules.noise", 2.8647889756541161},
    {"vehicle.turn_rate", 40.0},
    {"motion.max_speed", 3.0},
    {"motion.min_speed", 3.0},
    {"motion.dt", 0.1},
};

// Where a key's value came from, for messages: "file:line" or "--set key=value".
struct Origin {
  std::string where;
};

// The behaviour and vehicle keys of one kind, under p + "behaviour." and p + "vehicle.".
void behaviour_fields(std::vector<Field>& f, const std::string& p, KindDef& kd) {
  BehaviourDef& b = kd.behaviour;
  VehicleDef& v = kd.vehicle;
  const std::string bs = p + "behaviour.";
  f.push_back(number(bs + "seek", &b.seek));
  f.push_back(number(bs + "arrive", &b.arrive));
  f.push_back(number(bs + "flee", &b.flee));
  f.push_back(number(bs + "flee_radius", &b.flee_radius));
  f.push_back(number(bs + "pursue", &b.pursue));
  f.push_back(number(bs + "evade", &b.evade));
  f.push_back(number(bs + "wander", &b.wander));
  f.push_back(number(bs + "wander_distance", &b.wander_distance));
  f.push_back(number(bs + "wander_radius", &b.wander_radius));
  f.push_back(number(bs + "wander_period", &b.wander_period));
  f.push_back(number(bs + "follow_leader", &b.follow_leader));
  f.push_back(number(bs + "follow_distance", &b.follow_distance));
  f.push_back(number(bs + "flee_predators", &b.flee_predators));
  f.push_back(number(bs + "flee_boost", &b.flee_boost));
  f.push_back(number(bs + "evade_predators", &b.evade_predators));
  f.push_back(number(bs + "chase", &b.chase));
  f.push_back(choice(bs + "chase_mode", &b.chase_mode,
                     {{"centroid", ChaseMode::centroid}, {"nearest", ChaseMode::nearest}}));
  f.push_back(number(bs + "avoid", &b.avoid));
  f.push_back(number(bs + "avoid_distance", &b.avoid_distance));
  f.push_back(number(bs + "containment", &b.containment));
  f.push_back(number(bs + "containment_margin", &b.containment_margin));
  f.push_back(number(bs + "formation", &b.formation));
  f.push_back(number(bs + "global_cohesion", &b.global_cohesion));
  f.push_back(number(bs + "destination_alignment", &b.destination_alignment));
  f.push_back(number(bs + "cohesion_max_distance", &b.cohesion_max_distance));
  f.push_back(number(bs + "closest_separation", &b.closest_separation));
  f.push_back(number(bs + "closest_min_distance", &b.closest_min_distance));
  const std::string vs = p + "vehicle.";
  f.push_back(choice(vs + "model", &v.model,
                     {{"point_mass", Vehicle::point_mass},
                      {"ellipse", Vehicle::ellipse},
                      {"turn_rate", Vehicle::turn_rate}}));
  f.push_back(number(vs + "mass", &v.mass));
  f.push_back(number(vs + "accel_force", &v.accel_force));
  f.push_back(number(vs + "brake_force", &v.brake_force));
  f.push_back(number(vs + "lateral_force", &v.lateral_force));
  f.push_back(number(vs + "lateral_falloff", &v.lateral_falloff));
  f.push_back(number(vs + "turn_rate", &v.turn_rate));
}

std::vector<Field> schema(WorldDef& d) {
  std::vector<Field> f;
  f.push_back(integer("world.dims", &d.dims, 2, 3));
  f.push_back(number("world.size", &d.size));
  f.push_back(
      choice("world.boundary", &d.boundary,
             {{"wrap", Boundary::wrap}, {"reflect", Boundary::reflect}, {"open", Boundary::open}}));
  f.push_back(choice("world.profile", &d.profile,
                     {{"standard", Profile::standard},
                      {"abm", Profile::abm},
                      {"vicsek", Profile::vicsek},
                      {"couzin", Profile::couzin}}));
  f.push_back(
      choice("world.update", &d.update,
             {{"synchronous", UpdateOrder::synchronous}, {"sequential", UpdateOrder::sequential}}));
  f.push_back(integer("boids.count", &d.count, 0, std::numeric_limits<std::int32_t>::max()));
  f.push_back(seed_field("boids.seed", &d.seed));
  f.push_back(
      integer("predators.count", &d.predators, 0, std::numeric_limits<std::int32_t>::max()));
  f.push_back(integer("leaders.count", &d.leaders, 0, std::numeric_limits<std::int32_t>::max()));
  for (int k = 0; k < kKindCount; ++k) {
    const std::string p = kind_prefix(k);
    RuleDef& r = d.kinds[k].rules;
    MotionDef& m = d.kinds[k].motion;
    f.push_back(number(p + "rules.radius", &r.radius));
    f.push_back(number(p + "rules.separation_radius", &r.separation_radius));
    f.push_back(number(p + "rules.view_angle", &r.view_angle));
    f.push_back(number(p + "rules.separation", &r.separation));
    f.push_back(number(p + "rules.alignment", &r.alignment));
    f.push_back(number(p + "rules.cohesion", &r.cohesion));
    if (k == 0) {
      f.push_back(number("rules.noise", &r.noise));
      f.push_back(number("rules.orientation_radius", &r.orientation_radius));
      f.push_back(
          choice("rules.neighbours", &r.neighbours,
                 {{"metric", NeighbourRule::metric}, {"topological", NeighbourRule::topological}}));
      f.push_back(integer("rules.topological_k", &r.topological_k, 1,
                          std::numeric_limits<std::int32_t>::max()));
    }
    if (k == 0) f.push_back(number("motion.dt", &d.dt));
    f.push_back(number(p + "motion.max_speed", &m.max_speed));
    f.push_back(number(p + "motion.min_speed", &m.min_speed));
    f.push_back(number(p + "motion.max_force", &m.max_force));
    behaviour_fields(f, p, d.kinds[k]);
  }
  f.push_back(vector_field("goal.position", &d.goal));
  f.push_back(vector_field("target.position", &d.target.position));
  f.push_back(vector_field("target.velocity", &d.target.velocity));
  f.push_back(number("target.hold", &d.target.hold));
  f.push_back(number("target.move", &d.target.move));
  f.push_back(number("formation.radius", &d.formation.radius));
  f.push_back(number("formation.settle_time", &d.formation.settle_time));
  f.push_back(number("formation.glide_speed", &d.formation.glide_speed));
  f.push_back(number("formation.attack_speed", &d.formation.attack_speed));
  f.push_back(spheres_field("obstacles.spheres", &d.spheres));
  f.push_back(boxes_field("obstacles.boxes", &d.boxes));
  f.push_back(choice("engine.kind", &d.engine,
                     {{"grid", EngineKind::grid},
                      {"grid-rows", EngineKind::grid},
                      {"cluster", EngineKind::cluster},
                      {"naive", EngineKind::naive}}));
  f.push_back(integer("engine.threads", &d.threads, 0, 1024));
  f.push_back(choice("engine.precision", &d.precision,
                     {{"float", Precision::f32}, {"double", Precision::f64}}));
  f.push_back(boolean("engine.simd", &d.simd));
  f.push_back(integer("engine.cells_per_radius", &d.cells_per_radius, 1, 2));
  return f;
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    const std::size_t dist = edit_distance(word, c);
    if (dist < best_d) {
      best_d = dist;
      best = c;
    }
  }
  return best;
}

std::string line_of(const std::string& name, const toml::source_region& src) {
  if (src.begin.line == 0) return name;
  return name + ":" + std::to_string(src.begin.line);
}

// Applies one --set override to the parsed table; returns its "section.key".
std::string apply_override(toml::table& root, const std::string& arg,
                           std::map<std::string, std::string>& origins) {
  const std::string where = "--set " + escape_control(arg);
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) throw Error(where + ": expected section.key=value");
  const std::string key = arg.substr(0, eq);
  const std::string value = arg.substr(eq + 1);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  if (parts.size() < 2 || key.back() == '.')
    throw Error(where + ": " + escape_control(key) + ": expected section.key=value");
  if (parts.size() > std::size_t(kMaxTomlDepth))
    throw Error(where + ": key has more than " + std::to_string(kMaxTomlDepth) + " dotted parts");
  check_toml_text("v = " + value, where);
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    // A bare word such as boundary=reflect: take it as a string.
    parsed = toml::table{{"v", value}};
  }
  toml::table* t = &root;
  std::string section;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    section += (i ? "." : "") + parts[i];
    toml::node* child = t->get(parts[i]);
    if (!child) {  // a section this override creates: errors about it name the override
      t->insert(parts[i], toml::table{});
      child = t->get(parts[i]);
      origins.emplace(section, where);
    }
    if (!child->is_table())
      throw Error(where + ": " + escape_control(key) + ": " + escape_control(parts[i]) +
                  " is not a section");
    t = child->as_table();
  }
  t->insert_or_assign(parts.back(), std::move(*parsed.get("v")));
  origins[key] = where;
  return key;
}

// Walks the table, setting every known key and refusing unknown ones. Records each key's
// origin so range errors found later can point at it.
void walk(const toml::table& t, const std::string& prefix, const std::string& name,
          const std::map<std::string, Field*>& fields, const std::vector<std::string>& all_keys,
          std::map<std::string, std::string>& origins) {
  for (auto&& [k, node] : t) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    auto it = origins.find(key);
    const std::string where = it != origins.end() ? it->second : line_of(name, k.source());
    if (node.is_table()) {
      bool known_section = false;
      for (const auto& f : all_keys) {
        if (f.rfind(key + ".", 0) == 0) known_section = true;
      }
      if (!known_section) {
        std::vector<std::string> sections;
        for (const auto& f : all_keys) sections.push_back(f.substr(0, f.rfind('.')));
        fail(where, key, "unknown section (did you mean [" + nearest(key, sections) + "]?)");
      }
      walk(*node.as_table(), key, name, fields, all_keys, origins);
      continue;
    }
    auto f = fields.find(key);
    if (f == fields.end()) {
      if (prefix.empty()) fail(where, key, "keys must be inside a section such as [world]");
      fail(where, key, "unknown key (did you mean " + nearest(key, all_keys) + "?)");
    }
    f->second->set(node, where);
    origins[key] = where;
  }
}

WorldDef build(const toml::table& root_in, const std::string& name,
               const std::vector<std::string>& overrides) {
  toml::table root = root_in;
  std::map<std::string, std::string> origins;
  for (const auto& o : overrides) apply_override(root, o, origins);

  WorldDef def = default_world_def();
  std::vector<Field> fields = schema(def);
  std::map<std::string, Field*> by_key;
  std::vector<std::string> keys;
  for (auto& f : fields) {
    by_key[f.key] = &f;
    keys.push_back(f.key);
  }
  walk(root, "", name, by_key, keys, origins);
  // The profile's own defaults for every key the scenario leaves unset.
  std::vector<std::string> given;
  for (const auto& o : origins) given.push_back(o.first);
  apply_profile_defaults(def, given);

  if (auto e = check_def(def)) {
    auto it = origins.find(e->field);
    std::string where = it != origins.end() ? it->second : name;
    std::string msg = e->message;
    if (it == origins.end()) msg += " (the default; set it explicitly)";
    fail(where, e->field, msg);
  }
  return def;
}

}  // namespace

void apply_profile_defaults(WorldDef& d, const std::vector<std::string>& keep) {
  if (d.profile != Profile::couzin) return;
  std::vector<Field> fields = schema(d);
  for (const auto& entry : kCouzinDefaults) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string key = entry.first;
    if (std::find(keep.begin(), keep.end(), key) != keep.end()) continue;
    auto f =
        std::find_if(fields.begin(), fields.end(), [&](const Field& x) { return x.key == key; });
    toml::table t{{"v", entry.second}};
    f->set(*t.get("v"), "profile defaults");
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view default_scenario_text() { return kDefaultScenario; }

std::vector<std::string> scenario_keys() {
  WorldDef d = default_world_def();
  std::vector<std::string> keys;
  for (const auto& f : schema(d)) keys.push_back(f.key);
  return keys;
}

std::string scenario_to_toml(const WorldDef& def_in) {
  WorldDef def = def_in;
  std::string out, section;
  for (const auto& f : schema(def)) {
    const std::size_t dot = f.key.rfind('.');
    const std::string sec = f.key.substr(0, dot);
    if (sec != section) {
      out += (out.empty() ? "[" : "\n[") + sec + "]\n";
      section = sec;
    }
    out += f.key.substr(dot + 1) + " = " + f.show() + "\n";
  }
  return out;
}

WorldDef parse_scenario(std::string_view text, const std::string& name,
                        const std::vector<std::string>& overrides) {
  check_toml_text(text, name);  // size and depth, before the recursive parser sees it
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    throw Error(name + ":" + std::to_string(src.begin.line) + ":" +
                std::to_string(src.begin.column) +
                ": TOML syntax error: " + escape_control(e.description()));
  }
  return build(root, name, overrides);
}

WorldDef load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_scenario(read_input_file(path, "scenario file", kMaxScenarioBytes), path, overrides);
}

}  // namespace boids
