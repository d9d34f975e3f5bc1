// The naive reference stepper: a plain scalar O(n^2) implementation of the model.
#pragma once

#include <memory>

#include "core/engine.hpp"

namespace boids {

/// Creates the naive engine for def.precision.
std::unique_ptr<EngineBase> make_naive_engine(const WorldDef& def);

}  // namespace boids
