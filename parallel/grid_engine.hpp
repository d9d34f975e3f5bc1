// The fast engine: cell-list neighbour search, SIMD kernels, TBB threads. docs/engine.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/engine.hpp"

namespace boids {

/// Creates the grid engine for def.precision.
std::unique_ptr<EngineBase> make_grid_engine(const WorldDef& def);

// Benchmark hooks (bench/): a World created with engine = grid, else they throw Error.

/// Rebuilds only the cell list from the current state (bounding box, keys, counting sort,
/// gather into cell order), exactly as a step does before its kernel. The state is unchanged.
void grid_build_cells(World& w);

/// Runs only the neighbour kernel, on the world's threads, for every kind-0 boid over the cell
/// list of the last step or grid_build_cells(); no integration, the state is unchanged.
/// Returns the total neighbour count (so the work cannot be optimised away).
std::uint64_t grid_neighbour_pass(World& w);

/// Test hook (tests/test_engine_equality.cpp): the neighbour count of every boid, in id order
/// (as World::ids()), that the next step would use, found by the kernel step() runs (SIMD,
/// scalar or generic) over a fresh cell list of the current state, and for kinds 1/2 by their
/// own loop. The state is unchanged.
std::vector<std::int32_t> grid_neighbour_counts(World& w);

}  // namespace boids
