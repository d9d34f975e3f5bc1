// Scenario files: the internals behind the public boids/scenario.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boids/scenario.hpp"
#include "boids/world_def.hpp"

namespace boids {

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace boids
