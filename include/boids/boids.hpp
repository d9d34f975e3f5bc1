// boids: everything a C++ application needs, in one include.
//
//   #include <boids/boids.hpp>
//   boids::WorldDef def = boids::default_world_def();
//   boids::World world = boids::World::create(def);
//   world.step(100);
//
// boids/world_def.hpp  the definition structs and their defaults (units in the comments)
// boids/world.hpp      boids::World: stepping, id-ordered views, add/remove, set_def, snapshots
// boids/scenario.hpp   scenario files (TOML) and "section.key=value" overrides
// boids/io.hpp         state CSV, trajectory recordings, checks before a run
// boids/version.hpp    version macros and boids::version()
// boids/metrics.hpp    flock metrics: polarization, milling, nearest neighbours, clusters
// boids/debug.hpp      one boid's forces explained; where the scripted target is
// boids/engine_info.hpp  pair counts and kernel-only passes, for benchmarks
// boids/boids.h        the C API over the same engine (also usable from C++)
#pragma once

#include "boids/boids.h"
#include "boids/debug.hpp"
#include "boids/engine_info.hpp"
#include "boids/io.hpp"
#include "boids/metrics.hpp"
#include "boids/scenario.hpp"
#include "boids/sweep.hpp"
#include "boids/version.hpp"
#include "boids/world.hpp"
#include "boids/world_def.hpp"
