// Scenario files: TOML in, a validated WorldDef out, or one line naming file, line and key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boids/world_def.hpp"

namespace boids {

/// Reads a scenario file and applies `overrides` ("section.key=value", as given to --set)
/// on top of it. Every key is checked for name, type and range, then the whole def with
/// check_def(). Throws boids::Error with "FILE:LINE: KEY: what is wrong" on the first problem.
WorldDef load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same for scenario text already in memory; `name` stands for the file in messages.
WorldDef parse_scenario(std::string_view text, const std::string& name,
                        const std::vector<std::string>& overrides = {});

/// The built-in default scenario (3D, wrap, about 20-40 neighbours per boid) as TOML text.
std::string_view default_scenario_text();

/// Writes every key of `def` as scenario TOML, such that parse_scenario() gives `def` back
/// exactly (doubles are written with 17 significant digits). Used by snapshots.
std::string scenario_to_toml(const WorldDef& def);

/// Every key a scenario may contain, "section.key", in documentation order.
std::vector<std::string> scenario_keys();

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace boids
