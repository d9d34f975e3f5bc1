// boids: what the engine behind a World does, for benchmarks and tools that report on it
// (boids-bench uses this header). None of it changes the simulation; the pair counts and the
// kernel pass are separate, slow passes over the current state, never done inside step().
//
// Thread-safety: like World's const views, the const functions may run concurrently only
// while nobody steps or changes the world; the others need the world to themselves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "boids/export.h"
#include "boids/world.hpp"

namespace boids {

/// Pair statistics of the current state: candidate pairs the engine's neighbour search
/// examines and useful pairs (neighbours actually inside the radius and view cone).
struct PairCounts {
  std::uint64_t candidates = 0;
  std::uint64_t neighbours = 0;
};

/// Counts the pairs one step of `w` would examine and accept (O(n^2) for the naive engine).
BOIDS_API PairCounts count_pairs(const World& w);

/// Bytes the engine of `w` holds per boid (store, buffers, its share of the grid): the
/// engine's own accounting, not the process's resident memory.
BOIDS_API std::size_t engine_bytes_per_boid(const World& w);

/// Grid and cluster engines only (else Error): rebuilds only the cell list from the current
/// state (bounding box, keys, counting sort, gather into cell order), exactly as a step does
/// before its kernel. The state is unchanged.
BOIDS_API void grid_build_cells(World& w);

/// Grid and cluster engines only (else Error): runs only the neighbour kernel, on the world's
/// threads, for every kind-0 boid over the cell list of the last step or grid_build_cells();
/// no integration, the state is unchanged. Returns the total neighbour count (so the work
/// cannot be optimised away); it equals count_pairs(w).neighbours after grid_build_cells(w).
BOIDS_API std::uint64_t grid_neighbour_pass(World& w);

}  // namespace boids
