// Scenario files: the internals behind the public boids/scenario.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boids/scenario.hpp"
#include "boids/world_def.hpp"

namespace boids {

/// Sets the profile's own defaults (only couzin has any; docs/profiles.md) on `d`, except the
/// scenario keys listed in `keep` (the ones a file or --set gave explicitly).
void apply_profile_defaults(WorldDef& d, const std::vector<std::string>& keep = {});

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace boids
