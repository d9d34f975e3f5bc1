// The fast engine: cell-list neighbour search, SIMD kernels, TBB threads. docs/engine.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/engine.hpp"

namespace boids {

/// Creates the grid engine for def.precision.
std::unique_ptr<EngineBase> make_grid_engine(const WorldDef& def);

// The benchmark hooks grid_build_cells() and grid_neighbour_pass() are public
// (boids/engine_info.hpp).

/// Test hook (tests/test_engine_equality.cpp): the neighbour count of every boid, in id order
/// (as World::ids()), that the next step would use, found by the kernel step() runs (SIMD,
/// scalar or generic) over a fresh cell list of the current state, and for kinds 1/2 by their
/// own loop. The state is unchanged.
std::vector<std::int32_t> grid_neighbour_counts(World& w);

}  // namespace boids
