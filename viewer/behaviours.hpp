// The viewer's side of the steering behaviours (include/boids/world_def.hpp): what a click,
// the cursor-predator key and the panel's behaviour toggles change in a WorldDef, and the
// shapes (goal, target, formation sphere, obstacles) drawn for a def. Only WorldDef fields
// are touched here; the simulation itself stays in the library.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <string>
#include <vector>

#include "boids/world_def.hpp"
#include "viewer/renderer.hpp"

namespace boids::view {

/// Moves the goal to `p`. When no kind steers to the goal yet, turns the boids' seek on so
/// the click has a visible effect, and says so in `note`.
void set_goal(WorldDef& def, const glm::dvec3& p, std::string& note);

/// While `on`, the cursor at `p` is a predator: the target sits at `p` and the boids flee it
/// within three perception radii. Turning it off restores the fields it changed.
void set_cursor_predator(WorldDef& def, bool on, const glm::dvec3& p);

/// Colour of the goal marker.
inline constexpr glm::vec4 kGoalRgba{0.3f, 1.0f, 0.4f, 1.0f};

/// Adds the shapes of `def` at step `step`: the obstacles' outlines and shaded solids, and
/// the markers drawn on top of everything (goal, target, formation sphere, flee radius).
void add_shapes(const WorldDef& def, std::uint64_t step, LineBatch& outlines, LineBatch& markers,
                std::vector<Solid>& solids);

/// The panel's behaviour section for kind `k`; returns whether `def` changed.
bool behaviour_controls(WorldDef& def, int k);
/// The panel's world-level behaviour section (goal, target, formation, profile, obstacles).
bool world_behaviour_controls(WorldDef& def);

}  // namespace boids::view
