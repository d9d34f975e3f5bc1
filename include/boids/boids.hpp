// boids: everything a C++ application needs, in one include.
//
//   #include <boids/boids.hpp>
//   boids::WorldDef def = boids::default_world_def();
//   boids::World world = boids::World::create(def);
//   world.step(100);
//
// boids/world_def.hpp  the definition structs and their defaults (units in the comments)
// boids/world.hpp      boids::World: stepping, id-ordered views, add/remove, set_def, snapshots
// boids/version.hpp    version macros and boids::version()
// boids/metrics.hpp    flock metrics: polarization, milling, nearest neighbours, clusters
// boids/boids.h        the C API over the same engine (also usable from C++)
#pragma once

#include "boids/boids.h"
#include "boids/metrics.hpp"
#include "boids/version.hpp"
#include "boids/world.hpp"
#include "boids/world_def.hpp"
