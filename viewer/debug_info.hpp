// What the debug view shows for the selected boid: its perception radii, its neighbours and
// each steering term, taken from the library's explain_forces() (include/boids/debug.hpp) on
// the simulation thread, so the render loop never pays for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace boids::view {

struct DebugTerm {
  std::string name;
  float v[3] = {0, 0, 0};    // force (u/s^2)
  float rgb[3] = {1, 1, 1};  // colour of its arrow
};

struct DebugInfo {
  std::int64_t index = -1;  // id-order index of the selected boid, -1 = none
  std::uint32_t id = 0;
  float radius = 0, separation_radius = 0, view_angle = 360;
  std::vector<std::uint32_t> neighbours;  // id-order indices
  std::vector<DebugTerm> terms;           // every active term except the two below
  float total[3] = {0, 0, 0};             // sum of the terms, before the vehicle's limits
  float applied[3] = {0, 0, 0};           // (v' - v) / dt: what the step made of it
};

/// A fixed, distinguishable colour for each term name.
inline void term_colour(const std::string& name, float rgb[3]) {
  struct Entry {
    const char* name;
    float r, g, b;
  };
  static const Entry kTable[] = {
      {"separation", 1.0f, 0.35f, 0.3f},
      {"alignment", 0.35f, 1.0f, 0.4f},
      {"cohesion", 0.4f, 0.6f, 1.0f},
      {"seek", 0.75f, 1.0f, 0.3f},
      {"arrive", 0.6f, 0.9f, 0.2f},
      {"flee", 1.0f, 0.6f, 0.2f},
      {"pursue", 1.0f, 0.3f, 0.8f},
      {"evade", 1.0f, 0.75f, 0.4f},
      {"wander", 0.7f, 0.5f, 1.0f},
      {"follow_leader", 1.0f, 0.85f, 0.2f},
      {"flee_predators", 1.0f, 0.2f, 0.2f},
      {"chase", 0.85f, 0.1f, 0.1f},
      {"avoid", 1.0f, 0.55f, 0.0f},
      {"containment", 0.7f, 0.7f, 0.7f},
      {"formation", 1.0f, 0.45f, 0.85f},
      {"attack", 1.0f, 0.1f, 0.5f},
      {"global_cohesion", 0.3f, 0.85f, 1.0f},
      {"destination_alignment", 0.5f, 1.0f, 0.8f},
      {"closest_separation", 1.0f, 0.5f, 0.5f},
  };
  for (const Entry& e : kTable) {
    if (name == e.name) {
      rgb[0] = e.r;
      rgb[1] = e.g;
      rgb[2] = e.b;
      return;
    }
  }
  // Unknown names: a stable hue from the name.
  unsigned h = 2166136261u;
  for (char c : name) h = (h ^ unsigned(char(c))) * 16777619u;
  rgb[0] = 0.4f + 0.6f * float(h & 255) / 255.0f;
  rgb[1] = 0.4f + 0.6f * float((h >> 8) & 255) / 255.0f;
  rgb[2] = 0.4f + 0.6f * float((h >> 16) & 255) / 255.0f;
}

}  // namespace boids::view
