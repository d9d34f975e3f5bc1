// boids: the plain definition structs of a world, with documented defaults.
//
// Everything a world needs to be created is in WorldDef. Obtain one from default_world_def(),
// change the fields you care about and pass it to World::create(). Units: lengths in world
// units (u), time in seconds (s), angles in degrees. No third-party type appears here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "boids/export.h"

namespace boids {

/// What happens at the faces of the world box [0, size)^dims.
enum class Boundary : std::uint8_t {
  wrap,     ///< periodic: positions are taken mod size, distances use the minimum image
  reflect,  ///< hard walls: a position past a wall is mirrored and that velocity component flips
  open,     ///< unbounded: nothing happens at the faces
};

/// Which stepper advances the world.
enum class EngineKind : std::uint8_t {
  naive,    ///< the O(n^2) scalar reference stepper (core/naive.cpp): the source of truth
  grid,     ///< the cell-list engine with SIMD kernels and TBB threads (parallel/)
  cluster,  ///< the grid engine with the cluster-pair kernels (docs/engine.md, "cluster")
};

/// Floating-point type of the simulation state.
enum class Precision : std::uint8_t { f32, f64 };

/// Agent kinds that share the boid store. Kind 0 is the ordinary flocking boid.
enum class Kind : std::uint8_t { boid = 0, predator = 1, leader = 2 };
inline constexpr int kKindCount = 3;

/// Which of the boids within the perception radius and view cone are a boid's neighbours.
enum class NeighbourRule : std::uint8_t {
  metric,       ///< all of them (the default)
  topological,  ///< only the rules.topological_k nearest (ties broken by the smaller id)
};

/// The flocking rules of one kind of agent (the standard model, docs/model.md).
struct RuleDef {
  double radius = 9.0;             ///< perception radius r (u); neighbours are strictly nearer
  double separation_radius = 3.0;  ///< separation acts on neighbours nearer than this (u), <= r
  double view_angle = 360.0;       ///< full field-of-view cone (deg); 360 = no blind spot
  double separation = 1.5;         ///< weight of the separation term (1/u -> force)
  double alignment = 1.0;          ///< weight of the alignment term (u/s -> force)
  double cohesion = 0.2;           ///< weight of the cohesion term (u -> force)
  /// Angular noise (deg, 0..360), kind 0 only: the standard and vicsek profiles turn the new
  /// heading by a uniform random angle of this full width; the couzin profile draws a Gaussian
  /// angle of this standard deviation (docs/profiles.md); 0 = none.
  double noise = 0.0;
  /// Couzin profile, kind 0 only: radius r_o of the zone of orientation (u), in
  /// [separation_radius, radius]; r_o = separation_radius leaves no orientation zone.
  double orientation_radius = 0.0;
  /// Kind 0 only: which neighbours count (docs/profiles.md, "Topological neighbours").
  NeighbourRule neighbours = NeighbourRule::metric;
  /// Kind 0 only, with neighbours = topological: how many nearest neighbours count (>= 1).
  int topological_k = 7;
};

/// Motion limits of one kind of agent.
struct MotionDef {
  double max_speed = 4.0;  ///< speed ceiling (u/s)
  double min_speed = 1.0;  ///< speed floor for moving boids (u/s); 0 disables it
  double max_force = 2.0;  ///< steering force clamp (u/s^2 at unit mass)
};

/// A task run by a parallel-for over the index range [begin, end).
using ParallelForTask = void (*)(std::size_t begin, std::size_t end, void* task_context);

/// A host application's own parallel-for. It must run task over disjoint ranges that cover
/// [0, count) exactly once (ranges of about `grain` indices are a good size), in any order and
/// on any threads, and return only when all have finished. Results never depend on how the
/// host splits the range.
using HostParallelFor = void (*)(ParallelForTask task, void* task_context, std::size_t count,
                                 std::size_t grain, void* host_context);

/// How a kind turns its total steering force into motion (docs/behaviours.md, "Vehicles").
enum class Vehicle : std::uint8_t {
  point_mass,  ///< |F| <= max_force, a = F / mass, speed kept in [min_speed, max_speed]
  ellipse,     ///< asymmetric force ellipse: accel_force ahead, brake_force behind, lateral_force
  turn_rate,   ///< constant speed max_speed; heading turns toward v + F*1s by <= turn_rate*dt
};

/// What predators steer to among the prey (kind 0) they see.
enum class ChaseMode : std::uint8_t {
  centroid,  ///< seek the centroid of the visible prey ("chase by cohesion")
  nearest,   ///< pursue the nearest visible prey (aim at its predicted position)
};

/// Vehicle model of one kind. Forces are accelerations at unit mass (u/s^2).
struct VehicleDef {
  Vehicle model = Vehicle::point_mass;  ///< see Vehicle
  double mass = 1.0;             ///< m (> 0): acceleration = F / m (point_mass, ellipse, arrive)
  double accel_force = 2.0;      ///< ellipse: forward semi-axis (speeding up)
  double brake_force = 4.0;      ///< ellipse: backward semi-axis (slowing down), >= accel_force
  double lateral_force = 1.0;    ///< ellipse: sideways semi-axis at speed 0, <= accel_force
  double lateral_falloff = 0.0;  ///< ellipse: lateral limit *= 1 - falloff*|v|/max_speed, [0, 1)
  double turn_rate = 90.0;       ///< turn_rate: max heading change (deg/s)
};

/// Steering behaviours of one kind: each term is weight * (its steering vector), added to the
/// flocking force before the vehicle limits. Every weight here is 0 (off); the kinds' default
/// definitions (boid_kind_def(), predator_kind_def(), leader_kind_def()) switch on the three
/// terms that only act when the other kind is present: boids flee predators, predators chase
/// boids, leaders arrive at the goal. docs/behaviours.md has every equation and a table of
/// every key's default per kind.
struct BehaviourDef {
  double seek = 0.0;             ///< steer at max_speed toward the goal
  double arrive = 0.0;           ///< steer to the goal, slowing so as to stop on it
  double flee = 0.0;             ///< steer at max_speed away from the target
  double flee_radius = 0.0;      ///< flee acts only nearer than this (u); 0 = everywhere
  double pursue = 0.0;           ///< seek the target's predicted position
  double evade = 0.0;            ///< flee from the target's predicted position
  double wander = 0.0;           ///< steer to a jittered point on a circle/sphere ahead
  double wander_distance = 4.0;  ///< distance of the wander circle ahead (u)
  double wander_radius = 2.0;    ///< radius of the wander circle (u), < wander_distance
  double wander_period = 1.0;    ///< seconds between independent wander points (s)
  double follow_leader = 0.0;    ///< arrive near the nearest leader (behind it while it moves)
  double follow_distance = 2.0;  ///< the follow point lies this far behind the leader (u)
  double flee_predators = 0.0;   ///< prey: escape the predators seen (away and out of their path)
  double flee_boost = 1.5;       ///< prey: max_speed multiplier while escaping (>= 1)
  double evade_predators = 0.0;  ///< prey: evade the nearest predator seen (predicted position)
  double chase = 0.0;            ///< predators: steer to the prey they see
  ChaseMode chase_mode = ChaseMode::centroid;  ///< predators: what to chase
  double avoid = 0.0;                          ///< steer around obstacles ahead / near
  double avoid_distance = 5.0;                 ///< look-ahead and margin of obstacle avoidance (u)
  double containment = 0.0;            ///< steer back from the box walls (reflect/open worlds)
  double containment_margin = 5.0;     ///< distance from a wall where containment starts (u)
  double formation = 0.0;              ///< sphere formation around the target, attack when it moves
  double global_cohesion = 0.0;        ///< simplified cohesion toward the kind's global centre
  double destination_alignment = 0.0;  ///< simplified alignment: head from the centre to the goal
  double cohesion_max_distance = 0.0;  ///< threshold: cohesions act only beyond this (u); 0 = off
  double closest_separation = 0.0;     ///< threshold: flee the closest neighbour ...
  double closest_min_distance = 2.0;   ///< ... only when it is nearer than this (u)
};

/// Parameters of one agent kind.
struct KindDef {
  RuleDef rules;
  MotionDef motion;
  VehicleDef vehicle;
  BehaviourDef behaviour;
};

/// Default parameters of boids (kind 0): the standard model; they escape predators they see.
inline KindDef boid_kind_def() {
  KindDef k;
  k.behaviour.flee_predators = 1.0;
  return k;
}

/// Default parameters of predators: they see 3x farther than boids, are faster and chase.
inline KindDef predator_kind_def() {
  KindDef k;
  k.rules.radius = 27.0;
  k.motion.max_speed = 6.0;
  k.motion.max_force = 3.0;
  k.behaviour.chase = 1.0;
  return k;
}

/// Default parameters of leaders: they arrive at the goal (min_speed 0 so they can stop).
inline KindDef leader_kind_def() {
  KindDef k;
  k.behaviour.arrive = 1.0;
  k.motion.min_speed = 0.0;
  return k;
}

/// Named rule sets: `standard` is the model of docs/model.md; `abm` is the flocking model of
/// the ABM framework comparison (Agents.jl, MASON, NetLogo, Mesa), see docs/behaviours.md.
/// `vicsek` is the Vicsek et al. (1995) model, `couzin` the zonal model of Couzin et al.
/// (2002) (docs/profiles.md).
enum class Profile : std::uint8_t { standard, abm, vicsek, couzin };

/// How a step updates the agents. `synchronous` (the default): every agent reads the state at
/// the start of the step. `sequential`: in place, one agent at a time in a random order drawn
/// per step from the world seed (the ABM frameworks' random scheduler; naive engine only).
enum class UpdateOrder : std::uint8_t { synchronous, sequential };

/// A static sphere (circle in 2D) obstacle; `center` has world.dims numbers.
struct SphereObstacle {
  std::vector<double> center;
  double radius = 1.0;  ///< (u), > 0
};

/// A static axis-aligned box obstacle; corners have world.dims numbers each, lo < hi.
struct BoxObstacle {
  std::vector<double> lo, hi;
};

/// A scripted moving point: the formation target and the pursue/evade/flee target. It rests
/// `hold` s, moves `move` s with `velocity`, rests, moves back with -velocity, and so on, so
/// it shuttles between `position` and `position + velocity * move`.
struct TargetDef {
  std::vector<double> position;  ///< start (world.dims numbers); empty = centre of the box
  std::vector<double> velocity;  ///< (u/s, world.dims numbers); empty = always at rest
  double hold = 10.0;            ///< seconds at rest per half cycle (s)
  double move = 0.0;             ///< seconds moving per half cycle (s); 0 = always at rest
};

/// Sphere formation around the target: the swarm settles on a sphere (circle in 2D) of radius
/// R around it, glides along it, and attacks when the target moves fast (docs/behaviours.md).
struct FormationDef {
  double radius = 10.0;       ///< sphere (circle) radius R around the target (u)
  double settle_time = 1.0;   ///< time constant of the radial approach (s), > 0
  double glide_speed = 2.0;   ///< speed along the surface (u/s)
  double attack_speed = 0.5;  ///< target speed above which the swarm attacks it (u/s)
};

/// Everything needed to create a world. Obtain defaults from default_world_def().
struct WorldDef {
  int dims = 3;                        ///< 2 or 3
  double size = 100.0;                 ///< edge length L of the world box (u)
  Boundary boundary = Boundary::wrap;  ///< see Boundary
  std::uint32_t count = 10000;         ///< number of agents created at start (all kinds)
  std::uint32_t predators = 0;         ///< of those, predators (kind 1): the ids after the boids
  std::uint32_t leaders = 0;           ///< of those, leaders (kind 2): the highest ids
  std::uint64_t seed = 1;              ///< seeds the counter-based generator (seed, id)
  double dt = 0.1;                     ///< time step (s)
  /// Per-kind rules, motion, vehicle and behaviours; [0] = boids (flee_predators = 1),
  /// [1] = predators (3x the boids' radius, faster, chase = 1), [2] = leaders (arrive = 1).
  KindDef kinds[kKindCount] = {boid_kind_def(), predator_kind_def(), leader_kind_def()};
  Profile profile = Profile::standard;            ///< rule profile of kind 0 (see Profile)
  UpdateOrder update = UpdateOrder::synchronous;  ///< world.update (see UpdateOrder)
  std::vector<double> goal;              ///< goal/destination (world.dims numbers); empty = centre
  TargetDef target;                      ///< scripted moving target
  FormationDef formation;                ///< sphere formation parameters
  std::vector<SphereObstacle> spheres;   ///< sphere (circle) obstacles
  std::vector<BoxObstacle> boxes;        ///< axis-aligned box obstacles
  EngineKind engine = EngineKind::grid;  ///< stepper
  Precision precision = Precision::f32;  ///< state type
  int threads = 0;                       ///< worker threads; 0 = all cores, 1 = no workers
  bool simd = true;                      ///< false forces the scalar kernels (grid engine)
  int cells_per_radius = 1;              ///< grid engine: cell edge = radius / this (1 or 2)
  /// Optional host threading: when set, the engine runs its parallel loops through this
  /// callback instead of its own TBB arena, and `threads` is ignored.
  HostParallelFor host_parallel_for = nullptr;
  void* host_context = nullptr;  ///< passed back to host_parallel_for

  /// Set by default_world_def(); World::create() refuses a def that did not come from it.
  std::uint32_t internal_cookie = 0;
};

/// A WorldDef with every default filled in.
BOIDS_API WorldDef default_world_def();

/// A WorldDef for `profile` with that profile's own defaults, as a scenario file with only
/// `world.profile` set would give: for `couzin` the parameters of Couzin et al. (2002)
/// (r_r 1, r_o 3, r_a 17, alpha 270 deg, theta 40 deg/s, s 3, sigma 0.05 rad, tau 0.1;
/// docs/profiles.md); the other profiles keep default_world_def()'s values.
BOIDS_API WorldDef default_world_def(Profile profile);

}  // namespace boids
