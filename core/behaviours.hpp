// The steering behaviours, vehicles and profiles (docs/behaviours.md). Both engines reach them
// through prepare_step() and finish_boid() of core/model.hpp, which declares the two entry
// points; each is compiled once, in its own unit, for float and double:
//
//   prepare_behaviours()  core/behaviour_prepare.cpp  per-step data: target, centres, the
//                                                     predators and leaders, the prey view
//   behaviour_finish()    core/behaviour_finish.cpp   per-boid terms in a fixed order
//                         core/behaviour_kinds.hpp    the terms that look at other kinds
//                         core/behaviour_steer.hpp    the per-boid force accumulator
//                         core/vehicles.hpp           force -> velocity and position
//                         core/obstacles.hpp          the hard obstacle push-out
//                         core/profile_vicsek.hpp     rules.noise and the vicsek profile
//
// Only the small inline helpers that other units share (offsets, visibility, the target
// script: core/behaviour_math.hpp) are included everywhere, here.
//
// Included at the end of core/model.hpp; do not include it directly.
#pragma once

#include "core/behaviour_math.hpp"
