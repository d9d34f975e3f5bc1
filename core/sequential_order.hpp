// world.update = "sequential": the order in which one step updates the agents in place.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/rng.hpp"

namespace boids {

/// The slots 0 .. n-1 in the random order of step `step`: a Fisher-Yates shuffle drawn from
/// (seed, step) on its own stream, so every engine that updates in place visits the agents in
/// the same order (core/naive.cpp, parallel/sequential_engine.cpp). Slots are id ranks there.
inline void sequential_order(std::uint64_t seed, std::uint64_t step, std::size_t n,
                             std::vector<std::size_t>& order) {
  order.resize(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t k = n; k > 1; --k) {
    const std::uint64_t r = random_bits(seed, step, kStreamUpdate, k);
    std::swap(order[k - 1], order[std::size_t(r % k)]);
  }
}

}  // namespace boids
