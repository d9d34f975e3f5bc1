// Boid state as CSV: header "id,x,y,vx,vy" (2D) or "id,x,y,z,vx,vy,vz" (3D), an optional
// "kind" column, rows in id order, numbers written so they read back to the same value.
#pragma once

#include <string>
#include <string_view>

#include "boids/world.hpp"
#include "core/files.hpp"  // write_file_atomically

namespace boids {

/// Reads a state file for a world of `dims` dimensions holding `count` boids. Throws Error
/// "FILE:LINE: column COL: what is wrong" on the first problem.
State read_state_csv(const std::string& path, int dims, std::size_t count);

/// Same for state text already in memory; `name` stands for the file in messages.
State parse_state_csv(std::string_view text, const std::string& name, int dims, std::size_t count);

/// Writes a state atomically: to a temporary file beside `path`, renamed over it only when
/// complete, so a failure never leaves a half-written or clobbered file. `precision` picks
/// the shortest round-trip form of float or double values.
void write_state_csv(const std::string& path, const State& s, int dims, Precision precision);

/// Writes the world's state the same way, streamed: rows are read from the engine's store a
/// chunk at a time (core/id_rows.hpp) and written through a 1 MiB buffer, so the memory it
/// needs does not grow with the flock (no State, no id-order copy, no text of the file).
void write_state_csv(const std::string& path, const World& w);

/// True when every position and velocity of the world is finite (read in place, no copy).
bool state_is_finite(const World& w);

}  // namespace boids
