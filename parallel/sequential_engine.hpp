// world.update = "sequential" on the grid and cluster engines (parallel/sequential_engine.cpp).
#pragma once

#include <memory>

#include "core/engine.hpp"

namespace boids {

/// The in-place, random-order update of the naive engine with a cell index: one thread,
/// O(neighbours) per boid, bit-identical to engine.kind = "naive" with the same update.
std::unique_ptr<EngineBase> make_sequential_engine(const WorldDef& def);

}  // namespace boids
