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

namespace boids {

/// What happens at the faces of the world box [0, size)^dims.
enum class Boundary : std::uint8_t {
  wrap,     ///< periodic: positions are taken mod size, distances use the minimum image
  reflect,  ///< hard walls: a position past a wall is mirrored and that velocity component flips
  open,     ///< unbounded: nothing happens at the faces
};

/// Which stepper advances the world.
enum class EngineKind : std::uint8_t {
  naive,  ///< the O(n^2) scalar reference stepper (core/naive.cpp): the source of truth
  grid,   ///< the cell-list engine with SIMD kernels and TBB threads (parallel/)
};

/// Floating-point type of the simulation state.
enum class Precision : std::uint8_t { f32, f64 };

/// Agent kinds that share the boid store. Kind 0 is the ordinary flocking boid.
enum class Kind : std::uint8_t { boid = 0, predator = 1, leader = 2 };
inline constexpr int kKindCount = 3;

/// The flocking rules of one kind of agent (the standard model, docs/model.md).
struct RuleDef {
  double radius = 9.0;             ///< perception radius r (u); neighbours are strictly nearer
  double separation_radius = 3.0;  ///< separation acts on neighbours nearer than this (u), <= r
  double view_angle = 360.0;       ///< full field-of-view cone (deg); 360 = no blind spot
  double separation = 1.5;         ///< weight of the separation term (1/u -> force)
  double alignment = 1.0;          ///< weight of the alignment term (u/s -> force)
  double cohesion = 0.2;           ///< weight of the cohesion term (u -> force)
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

/// Parameters of one agent kind.
struct KindDef {
  RuleDef rules;
  MotionDef motion;
};

/// Everything needed to create a world. Obtain defaults from default_world_def().
struct WorldDef {
  int dims = 3;                          ///< 2 or 3
  double size = 100.0;                   ///< edge length L of the world box (u)
  Boundary boundary = Boundary::wrap;    ///< see Boundary
  std::uint32_t count = 10000;           ///< number of boids (kind 0) created at start
  std::uint64_t seed = 1;                ///< seeds the counter-based generator (seed, id)
  double dt = 0.1;                       ///< time step (s)
  KindDef kinds[kKindCount];             ///< per-kind rules and motion; [0] = boids
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
WorldDef default_world_def();

}  // namespace boids
