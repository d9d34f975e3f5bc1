// Parameters and per-step data of the steering behaviours (docs/behaviours.md), converted to
// the state type once per world. Included by core/model.hpp, which embeds BehaviourParams in
// KindParams, WorldBehaviour in ModelParams and BehaviourContext in StepContext.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "boids/world_def.hpp"

#include "core/kind_grid.hpp"
#include "core/obstacle_grid.hpp"

namespace boids {

/// One kind's behaviour weights and vehicle, in the state type.
template <class Real>
struct BehaviourParams {
  bool active = false;  // any term or vehicle that needs the behaviour path (besides specials)
  Real seek = 0, arrive = 0, flee = 0, flee_radius2 = 0, pursue = 0, evade = 0;
  Real wander = 0, wander_distance = 0, wander_radius = 0;
  double wander_period = 1;  // s
  Real follow_leader = 0, follow_distance = 0;
  Real flee_predators = 0, flee_boost = 1, evade_predators = 0, chase = 0;
  ChaseMode chase_mode = ChaseMode::centroid;
  Real avoid = 0, avoid_distance = 0, containment = 0, containment_margin = 0;
  Real formation = 0, global_cohesion = 0, destination_alignment = 0;
  Real cohesion_max2 = 0;  // 0 = off
  Real closest_separation = 0, closest_min2 = 0;
  Vehicle vehicle = Vehicle::point_mass;
  Real mass = 1, inv_mass = 1, accel = 0, brake = 0, lateral = 0, lateral_falloff = 0;
  double turn_per_step = 0;  // the hard turn limit: vehicle.turn_rate * dt in radians
};

template <class Real>
struct SphereP {
  Real c[3];
  Real r;
};
template <class Real>
struct BoxP {
  Real lo[3], hi[3];
};

/// World-level behaviour data: goal, target script, formation, obstacles, profile.
template <class Real>
struct WorldBehaviour {
  Profile profile = Profile::standard;
  bool any_kind_active = false;  // kind 0 has BehaviourParams::active (see ModelParams)
  bool need_centre = false;      // some kind uses the global centre
  bool obstacles = false;        // spheres or boxes exist (hard push-out always applies)
  Real goal[3] = {0, 0, 0};
  double target_p0[3] = {0, 0, 0}, target_v[3] = {0, 0, 0};
  double target_hold = 0, target_move = 0;
  Real formation_radius = 0, formation_settle = 1, formation_glide = 0, attack_speed = 0;
  std::vector<SphereP<Real>> spheres;
  std::vector<BoxP<Real>> boxes;
  ObstacleGrid<Real> obstacle_grid;  // over spheres and boxes (core/obstacle_grid.hpp)
};

/// A predator or leader as seen by everybody in one step.
template <class Real>
struct SpecialAgent {
  std::uint32_t id = 0;
  Real p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  // Predators only: the prey (kind 0) this predator sees, from prepare_step.
  std::int32_t prey = 0;
  Real prey_offset[3] = {0, 0, 0};  // mean of min-image offsets to the visible prey
  Real nearest_d[3] = {0, 0, 0};    // offset to the nearest visible prey (ties: lower id)
  Real nearest_v[3] = {0, 0, 0};    // its velocity
};

/// From this many leaders on, follow_leader finds the nearest through BehaviourContext's
/// leader_grid instead of a scan over the leaders.
inline constexpr std::size_t kLeaderGridMin = 64;

/// Per-step behaviour data, identical whatever the store's slot order.
template <class Real>
struct BehaviourContext {
  bool active = false;  // false: finish_boid takes the plain standard-model path
  Real target_p[3] = {0, 0, 0}, target_v[3] = {0, 0, 0};
  bool target_moving = false;         // |target velocity| > formation.attack_speed
  Real centre[kKindCount][3] = {};    // global centre of each kind (need_centre only)
  Real dest_dir[kKindCount][3] = {};  // unit direction from that centre to the goal
  std::vector<SpecialAgent<Real>> predators, leaders;  // sorted by id
  // The leaders' coordinates by axis, leader_soa[c * leader_stride + j] (leader_stride a
  // multiple of 4, zero padded), for the nearest-leader scan in lanes (beh::scan_leaders).
  std::vector<Real> leader_soa;
  std::size_t leader_stride = 0;
  // The predators (indices into `predators`) in cells at least the prey's radius wide, for
  // the prey's flee/evade look-ups; built only when kind 0 flees or evades predators.
  KindGrid<Real> predator_grid;
  // The leaders (indices into `leaders`) in cells of about one leader each, for the nearest-
  // leader look-up of follow_leader; built only when someone follows and there are many.
  KindGrid<Real> leader_grid;
  // Per slot of the store prepare_step() saw, 1 where that prey sees a predator (the grid
  // engine, when the prey's terms are kind 0's only behaviour); empty otherwise.
  std::vector<std::uint8_t> prey_sees;

  /// As a default-constructed context, but keeping the vectors' and grids' memory: an engine
  /// reuses one context across steps (prepare_step_into, core/model.hpp).
  void reset() {
    BehaviourContext fresh;
    predators.clear();
    leaders.clear();
    leader_soa.clear();
    prey_sees.clear();
    fresh.predators.swap(predators);
    fresh.leaders.swap(leaders);
    fresh.leader_soa.swap(leader_soa);
    fresh.prey_sees.swap(prey_sees);
    predator_grid.clear();
    leader_grid.clear();
    fresh.predator_grid = std::move(predator_grid);
    fresh.leader_grid = std::move(leader_grid);
    *this = std::move(fresh);
  }

  /// Bytes the context holds (capacities, not sizes): the engines' memory reports.
  std::size_t bytes() const {
    return prey_sees.capacity() + predator_grid.bytes() + leader_grid.bytes() +
           (predators.capacity() + leaders.capacity()) * sizeof(SpecialAgent<Real>) +
           leader_soa.capacity() * sizeof(Real);
  }
};

inline double deg_to_rad(double deg) { return deg * 3.14159265358979323846 / 180.0; }

template <class Real>
BehaviourParams<Real> behaviour_params(const KindDef& k, double dt) {
  const BehaviourDef& b = k.behaviour;
  const VehicleDef& ve = k.vehicle;
  BehaviourParams<Real> p;
  p.seek = Real(b.seek);
  p.arrive = Real(b.arrive);
  p.flee = Real(b.flee);
  p.flee_radius2 = Real(b.flee_radius * b.flee_radius);
  p.pursue = Real(b.pursue);
  p.evade = Real(b.evade);
  p.wander = Real(b.wander);
  p.wander_distance = Real(b.wander_distance);
  p.wander_radius = Real(b.wander_radius);
  p.wander_period = b.wander_period;
  p.follow_leader = Real(b.follow_leader);
  p.follow_distance = Real(b.follow_distance);
  p.flee_predators = Real(b.flee_predators);
  p.flee_boost = Real(b.flee_boost);
  p.evade_predators = Real(b.evade_predators);
  p.chase = Real(b.chase);
  p.chase_mode = b.chase_mode;
  p.avoid = Real(b.avoid);
  p.avoid_distance = Real(b.avoid_distance);
  p.containment = Real(b.containment);
  p.containment_margin = Real(b.containment_margin);
  p.formation = Real(b.formation);
  p.global_cohesion = Real(b.global_cohesion);
  p.destination_alignment = Real(b.destination_alignment);
  p.cohesion_max2 = Real(b.cohesion_max_distance * b.cohesion_max_distance);
  p.closest_separation = Real(b.closest_separation);
  p.closest_min2 = Real(b.closest_min_distance * b.closest_min_distance);
  p.vehicle = ve.model;
  p.mass = Real(ve.mass);
  p.inv_mass = Real(1.0 / ve.mass);
  p.accel = Real(ve.accel_force);
  p.brake = Real(ve.brake_force);
  p.lateral = Real(ve.lateral_force);
  p.lateral_falloff = Real(ve.lateral_falloff);
  p.turn_per_step = deg_to_rad(ve.turn_rate) * dt;
  p.active = b.seek != 0 || b.arrive != 0 || b.flee != 0 || b.pursue != 0 || b.evade != 0 ||
             b.wander != 0 || b.avoid != 0 || b.containment != 0 || b.formation != 0 ||
             b.global_cohesion != 0 || b.destination_alignment != 0 ||
             b.cohesion_max_distance > 0 || b.closest_separation != 0 ||
             ve.model != Vehicle::point_mass || ve.mass != 1.0;
  return p;
}

template <class Real>
WorldBehaviour<Real> world_behaviour(const WorldDef& d) {
  WorldBehaviour<Real> w;
  w.profile = d.profile;
  for (int c = 0; c < 3; ++c) {
    const bool has = std::size_t(c) < d.goal.size();
    w.goal[c] = Real(c < d.dims ? (has ? d.goal[std::size_t(c)] : 0.5 * d.size) : 0.0);
    const bool hp = std::size_t(c) < d.target.position.size();
    w.target_p0[c] = c < d.dims ? (hp ? d.target.position[std::size_t(c)] : 0.5 * d.size) : 0.0;
    const bool hv = std::size_t(c) < d.target.velocity.size();
    w.target_v[c] = c < d.dims && hv ? d.target.velocity[std::size_t(c)] : 0.0;
  }
  w.target_hold = d.target.hold;
  w.target_move = d.target.move;
  w.formation_radius = Real(d.formation.radius);
  w.formation_settle = Real(d.formation.settle_time);
  w.formation_glide = Real(d.formation.glide_speed);
  w.attack_speed = Real(d.formation.attack_speed);
  for (const SphereObstacle& s : d.spheres) {
    SphereP<Real> o{{0, 0, 0}, Real(s.radius)};
    for (int c = 0; c < d.dims && std::size_t(c) < s.center.size(); ++c)
      o.c[c] = Real(s.center[std::size_t(c)]);
    w.spheres.push_back(o);
  }
  for (const BoxObstacle& b : d.boxes) {
    BoxP<Real> o{{0, 0, 0}, {0, 0, 0}};
    for (int c = 0; c < d.dims && std::size_t(c) < b.lo.size() && std::size_t(c) < b.hi.size();
         ++c) {
      o.lo[c] = Real(b.lo[std::size_t(c)]);
      o.hi[c] = Real(b.hi[std::size_t(c)]);
    }
    w.boxes.push_back(o);
  }
  w.obstacles = !w.spheres.empty() || !w.boxes.empty();
  for (int k = 0; k < kKindCount; ++k) {
    const BehaviourDef& b = d.kinds[k].behaviour;
    if (b.global_cohesion != 0 || b.destination_alignment != 0 || b.formation != 0)
      w.need_centre = true;
  }
  if (w.obstacles) {
    // Everything an obstacle look-up needs (core/obstacle_grid.hpp): avoidance within 1.5
    // avoid_distance of the point, inside tests within the skin, with room for rounding.
    double avoid = 0;
    for (int k = 0; k < kKindCount; ++k) {
      const BehaviourDef& b = d.kinds[k].behaviour;
      if (b.avoid != 0) avoid = std::max(avoid, b.avoid_distance);
    }
    const double eps = sizeof(Real) == 4 ? 1.2e-7 : 2.3e-16;
    const double reach = 1.5 * avoid * 1.001 + 64.0 * eps * d.size + 1e-3;
    w.obstacle_grid.build(d.dims, d.boundary == Boundary::wrap, d.size, reach, w.spheres, w.boxes);
  }
  return w;
}

}  // namespace boids
