// Trajectory recording (boids::Recorder, boids/io.hpp): the state every K steps, appended to a
// binary file with a small header (docs/formats.md) or, when the file name ends in ".csv", to
// a CSV table. This header holds the binary format's constants for the readers of this project.
#pragma once

#include <cstdint>

#include "boids/io.hpp"

namespace boids {

inline constexpr char kRecordMagic[8] = {'B', 'O', 'I', 'D', 'S', 'R', 'E', 'C'};
inline constexpr std::uint32_t kRecordVersion = 1;

}  // namespace boids
