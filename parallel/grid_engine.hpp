// The fast engine: cell-list neighbour search, SIMD kernels, TBB threads.
#pragma once

#include <memory>

#include "core/engine.hpp"

namespace boids {

/// Creates the grid engine for def.precision.
std::unique_ptr<EngineBase> make_grid_engine(const WorldDef& def);

}  // namespace boids
