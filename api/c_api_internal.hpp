// Shared by the C API's source files (api/c_api*.cpp): the handle behind boids_world and the
// thread-local last-error message.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "boids/boids.h"
#include "boids/world.hpp"

struct boids_world {
  boids::World world;
};

namespace boids::capi {
/// Sets the message boids_last_error() returns on this thread.
void set_last_error(std::string message);

/// Sets the message (control bytes escaped: one line, whatever the input held) and returns `s`.
boids_status fail(boids_status s, const std::string& message);

/// Runs f(); maps boids::Error to `error_status`, bad_alloc to out-of-memory, anything else to
/// an internal error. `where` names the C function in messages. Every entry point runs its
/// body inside it, so nothing is ever thrown across the C boundary.
template <class F>
boids_status guard(const char* where, boids_status error_status, F&& f) noexcept {
  try {
    f();
    return BOIDS_OK;
  } catch (const boids::Error& e) {
    return fail(error_status, std::string(where) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return fail(BOIDS_ERROR_OUT_OF_MEMORY, std::string(where) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(BOIDS_ERROR_INTERNAL, std::string(where) + ": internal error: " + e.what());
  } catch (...) {
    return fail(BOIDS_ERROR_INTERNAL, std::string(where) + ": internal error");
  }
}
}  // namespace boids::capi
