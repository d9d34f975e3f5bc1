// boids: the library version for C++ (the macros come from the generated boids/version.h).
#pragma once

#include "boids/export.h"
#include "boids/version.h"

namespace boids {

inline constexpr int kVersionMajor = BOIDS_VERSION_MAJOR;
inline constexpr int kVersionMinor = BOIDS_VERSION_MINOR;
inline constexpr int kVersionPatch = BOIDS_VERSION_PATCH;

/// Version of the library actually linked, "MAJOR.MINOR.PATCH". Equal to BOIDS_VERSION_STRING
/// unless the headers and the library come from different releases.
BOIDS_API const char* version() noexcept;

}  // namespace boids
