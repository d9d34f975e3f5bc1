// Shared by the C API's source files (api/c_api*.cpp): the handle behind boids_world and the
// thread-local last-error message.
#pragma once

#include <string>

#include "boids/world.hpp"

struct boids_world {
  boids::World world;
};

namespace boids::capi {
/// Sets the message boids_last_error() returns on this thread.
void set_last_error(std::string message);
}  // namespace boids::capi
