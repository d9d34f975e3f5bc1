// Range and consistency checks of a WorldDef. Field names are the scenario file's keys
// ("rules.radius", "motion.dt"), so the scenario reader can point at the offending line.
#pragma once

#include <optional>
#include <string>

#include "boids/world_def.hpp"

namespace boids {

struct FieldError {
  std::string field;    ///< scenario key, e.g. "rules.separation_radius"
  std::string message;  ///< what is wrong, e.g. "must be <= rules.radius (9)"
};

/// Scenario-key prefix of a kind's sections: "" for boids, "predators." and "leaders.".
std::string kind_prefix(int kind);

/// The first problem with `def`, or nothing when it is valid.
std::optional<FieldError> check_def(const WorldDef& def);

}  // namespace boids
