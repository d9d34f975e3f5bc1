#include "viewer/behaviours.hpp"

#include <algorithm>
#include <optional>

#include "boids/debug.hpp"  // target_pose: where the scripted target is at a given time
#include "imgui.h"

namespace boids::view {

namespace {

std::vector<double> point(const WorldDef& def, const glm::dvec3& p) {
  std::vector<double> v = {p.x, p.y, p.z};
  v.resize(std::size_t(def.dims));
  if (def.boundary != Boundary::open) {
    for (double& c : v) c = std::clamp(c, 0.0, std::nextafter(def.size, 0.0));
  }
  return v;
}

glm::vec3 vec(const std::vector<double>& v, const WorldDef& def) {
  glm::vec3 out(0.0f);
  for (int c = 0; c < def.dims; ++c) {
    out[c] = c < int(v.size()) ? float(v[std::size_t(c)]) : float(0.5 * def.size);
  }
  return out;
}

// The fields the cursor predator overrides, as they were before.
struct Saved {
  TargetDef target;
  double flee = 0, flee_radius = 0;
};
std::optional<Saved> g_saved;

void cross(LineBatch& lines, const glm::vec3& c, float r, const glm::vec4& rgba, bool flat) {
  lines.add(c - glm::vec3(r, 0, 0), c + glm::vec3(r, 0, 0), rgba);
  lines.add(c - glm::vec3(0, r, 0), c + glm::vec3(0, r, 0), rgba);
  if (!flat) lines.add(c - glm::vec3(0, 0, r), c + glm::vec3(0, 0, r), rgba);
}

bool uses_goal(const WorldDef& def) {
  for (int k = 0; k < kKindCount; ++k) {
    const BehaviourDef& b = def.kinds[k].behaviour;
    const bool present = k == 0 || (k == 1 && def.predators > 0) || (k == 2 && def.leaders > 0);
    if (present && (b.seek > 0 || b.arrive > 0 || b.destination_alignment > 0)) return true;
  }
  return false;
}

bool uses_target(const WorldDef& def) {
  for (int k = 0; k < kKindCount; ++k) {
    const BehaviourDef& b = def.kinds[k].behaviour;
    if (b.flee > 0 || b.pursue > 0 || b.evade > 0 || b.formation > 0) return true;
  }
  return false;
}

bool uses_formation(const WorldDef& def) {
  for (int k = 0; k < kKindCount; ++k) {
    if (def.kinds[k].behaviour.formation > 0) return true;
  }
  return false;
}

// One weight: a checkbox (on/off, remembering a default) and a slider.
bool weight(const char* label, double& w, double max, double on_value = 1.0) {
  bool changed = false;
  bool on = w > 0;
  ImGui::PushID(label);
  if (ImGui::Checkbox("##on", &on)) {
    w = on ? on_value : 0.0;
    changed = true;
  }
  ImGui::SameLine();
  float f = float(w);
  if (ImGui::SliderFloat(label, &f, 0.0f, float(max), "%.3g")) {
    w = f;
    changed = true;
  }
  ImGui::PopID();
  return changed;
}

bool value(const char* label, double& v, double lo, double hi) {
  float f = float(v);
  if (ImGui::SliderFloat(label, &f, float(lo), float(hi), "%.3g")) {
    v = f;
    return true;
  }
  return false;
}

}  // namespace

void set_goal(WorldDef& def, const glm::dvec3& p, std::string& note) {
  def.goal = point(def, p);
  note = "goal set";
  if (!uses_goal(def)) {
    def.kinds[0].behaviour.seek = 0.5;
    note = "goal set; boids' seek turned on (0.5) so they head for it";
  }
}

void set_cursor_predator(WorldDef& def, bool on, const glm::dvec3& p) {
  BehaviourDef& b = def.kinds[0].behaviour;
  if (!on) {
    if (!g_saved) return;
    def.target = g_saved->target;
    b.flee = g_saved->flee;
    b.flee_radius = g_saved->flee_radius;
    g_saved.reset();
    return;
  }
  if (!g_saved) g_saved = Saved{def.target, b.flee, b.flee_radius};
  def.target.position = point(def, p);
  def.target.velocity.clear();
  def.target.move = 0;
  b.flee = std::max(g_saved->flee, 4.0);
  b.flee_radius = 3.0 * def.kinds[0].rules.radius;
}

void add_shapes(const WorldDef& def, std::uint64_t step, LineBatch& outlines, LineBatch& lines,
                std::vector<Solid>& solids) {
  const bool flat = def.dims == 2;
  const float unit = float(def.size) * 0.03f;
  const glm::vec4 obstacle(1.0f, 0.6f, 0.2f, 0.9f);
  for (const SphereObstacle& s : def.spheres) {
    outlines.circle(vec(s.center, def), {1, 0, 0}, {0, 1, 0}, float(s.radius), obstacle);
    solids.push_back({true, vec(s.center, def), glm::vec3(float(s.radius))});
  }
  for (const BoxObstacle& b : def.boxes) {
    glm::vec3 lo = vec(b.lo, def), hi = vec(b.hi, def);
    if (flat) lo.z = hi.z = 0;
    outlines.box(lo, hi, obstacle);
    solids.push_back({false, lo, hi});
  }
  if (uses_goal(def)) cross(lines, vec(def.goal, def), unit, kGoalRgba, flat);
  if (uses_target(def) || g_saved) {
    const TargetPose pose = target_pose(def, double(step) * def.dt);
    const double* p = pose.position;
    const glm::vec3 tp{float(p[0]), float(p[1]), flat ? 0.0f : float(p[2])};
    const glm::vec4 magenta(1.0f, 0.3f, 0.9f, 1.0f);
    cross(lines, tp, unit, magenta, flat);
    if (g_saved)
      lines.sphere(tp, float(def.kinds[0].behaviour.flee_radius), {1, 0.3f, 0.3f, 0.5f}, flat);
    if (uses_formation(def))
      lines.sphere(tp, float(def.formation.radius), {1.0f, 0.3f, 0.9f, 0.45f}, flat);
  }
}

bool behaviour_controls(WorldDef& def, int k) {
  BehaviourDef& b = def.kinds[k].behaviour;
  bool ch = false;
  ch |= weight("seek goal", b.seek, 5);
  ch |= weight("arrive at goal", b.arrive, 5);
  ch |= weight("flee target", b.flee, 10);
  if (b.flee > 0) ch |= value("flee radius (0 = all)", b.flee_radius, 0, def.size);
  ch |= weight("pursue target", b.pursue, 5);
  ch |= weight("evade target", b.evade, 5);
  ch |= weight("wander", b.wander, 5);
  ch |= weight("follow leader", b.follow_leader, 5);
  if (k == 0) {
    ch |= weight("flee predators", b.flee_predators, 10);
    if (b.flee_predators > 0) ch |= value("flee speed boost", b.flee_boost, 1, 3);
  }
  if (k == 1) ch |= weight("chase prey", b.chase, 5);
  ch |= weight("avoid obstacles", b.avoid, 10);
  ch |= weight("containment", b.containment, 10);
  ch |= weight("formation", b.formation, 5);
  ch |= weight("global cohesion", b.global_cohesion, 5);
  ch |= weight("destination alignment", b.destination_alignment, 5);
  ch |= weight("closest separation", b.closest_separation, 10);
  return ch;
}

bool world_behaviour_controls(WorldDef& def) {
  bool ch = false;
  int profile = int(def.profile);
  if (ImGui::Combo("profile", &profile, "standard\0abm\0")) {
    def.profile = Profile(profile);
    ch = true;
  }
  if (uses_formation(def)) {
    ch |= value("formation radius", def.formation.radius, 0.5, def.size / 2);
    ch |= value("glide speed", def.formation.glide_speed, 0, 10);
  }
  ImGui::Text("%zu sphere and %zu box obstacles", def.spheres.size(), def.boxes.size());
  if (!def.goal.empty()) {
    ImGui::Text("goal (%.1f, %.1f%s)", def.goal[0], def.goal.size() > 1 ? def.goal[1] : 0.0,
                def.dims == 3 && def.goal.size() > 2 ? ", ..." : "");
  }
  return ch;
}

}  // namespace boids::view
