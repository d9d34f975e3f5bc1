// boids: explaining one boid's steering, for debug views that draw each force of a chosen boid
// (the viewer's debug mode), and where the scripted target is.
//
// Thread-safety: both functions only read; like World's const views they may run while nobody
// steps or changes the world.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boids/world.hpp"

namespace boids {

/// One named steering term of a boid (u/s^2 at unit mass); z = 0 in 2D.
struct ForceTerm {
  std::string name;  ///< "separation", "alignment", "cohesion", "seek", "arrive", ... "total"
  double x = 0, y = 0, z = 0;
};

/// What moves one boid in the next step.
struct ForceExplanation {
  /// Every active term in the order they are summed, then "total" (their sum, before the
  /// vehicle's limits) and "applied" ((v' - v) / dt: what the vehicle and the speed limits
  /// made of the total, boundary and obstacle corrections included).
  std::vector<ForceTerm> terms;
  std::vector<std::uint32_t> neighbours;  ///< ids of the same-kind neighbours it sees, ascending
};

/// Re-runs the next step's scalar math for the boid with this id (the naive stepper's sums
/// over the id-ordered state), without changing the world. Throws Error for an unknown id.
/// With topological neighbours the neighbours are the k nearest visible ones the step uses.
/// The couzin profile has no forces: its terms are the zone directions "repulsion" (d_r),
/// "orientation" (d_o, without the own heading) and "attraction" (d_a), "total" is the desired
/// unit direction before the noise, and "applied" what the turn limit made of it.
/// Cost O(n) (O(n * predators) with chasing predators): meant for one boid per frame.
BOIDS_API ForceExplanation explain_forces(const World& world, std::uint32_t id);

/// Where the scripted target of `def.target` is, and how fast it moves, at time `t` (s): the
/// same script the seek, flee and formation behaviours follow (docs/behaviours.md). Units u
/// and u/s; z = 0 in 2D. Pure: depends on `def` and `t` only.
struct TargetPose {
  double position[3] = {0, 0, 0};
  double velocity[3] = {0, 0, 0};
};
BOIDS_API TargetPose target_pose(const WorldDef& def, double t);

}  // namespace boids
