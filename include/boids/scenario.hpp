// boids: scenario files (TOML) and "section.key=value" overrides, the one loader that the
// command-line program, the viewer, the bench, the tests and the Python package share.
// docs/formats.md lists every key; docs/model.md and docs/behaviours.md say what they mean.
//
// Thread-safety: every function here is pure (no global state) and may run concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boids/world_def.hpp"

namespace boids {

/// Reads a scenario file and applies `overrides` ("section.key=value", as given to the CLI's
/// --set, values in TOML syntax) on top of it. Every key is checked for name, type and
/// range, then the whole def with validate(). Throws boids::Error with one line,
/// "FILE:LINE: KEY: what is wrong", on the first problem. Keys the file leaves out keep the
/// defaults of default_world_def().
BOIDS_API WorldDef load_scenario(const std::string& path,
                                 const std::vector<std::string>& overrides = {});

/// Same for scenario text already in memory; `name` stands for the file in messages.
BOIDS_API WorldDef parse_scenario(std::string_view text, const std::string& name,
                                  const std::vector<std::string>& overrides = {});

/// The built-in default scenario (3D, wrap, about 30 neighbours per boid) as TOML text.
BOIDS_API std::string_view default_scenario_text();

/// Writes every key of `def` as scenario TOML, such that parse_scenario() gives `def` back
/// exactly (doubles are written with 17 significant digits). Snapshots store this text.
BOIDS_API std::string scenario_to_toml(const WorldDef& def);

/// Every key a scenario may contain, "section.key", in documentation order.
BOIDS_API std::vector<std::string> scenario_keys();

}  // namespace boids
