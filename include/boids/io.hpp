// boids: files a host reads and writes besides scenarios and snapshots (boids/scenario.hpp,
// World::save/load): boid state as CSV, trajectory recordings, and the checks a program makes
// before a long run so that bad input costs one error line, not the run. docs/formats.md has
// every layout. (H5MD recordings, `boids run --record FILE.h5`, are not public yet: issue 20.)
//
// Every writer is atomic: it writes a temporary file beside the target and renames it into
// place only when complete, so a failure never leaves a half-written or clobbered file.
// Errors are boids::Error with one line naming the file (and line and column where there is
// one). Thread-safety: the free functions keep no state and may run concurrently; one
// Recorder must not be used from two threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "boids/export.h"
#include "boids/world.hpp"

namespace boids {

// ---- State CSV: header "id,x,y,vx,vy" (2D) or "id,x,y,z,vx,vy,vz" (3D), an optional "kind"
// column, rows in id order, numbers in their shortest round-trip form.

/// Reads a state file for a world of `dims` dimensions holding `count` boids. Throws Error
/// "FILE:LINE: column COL: what is wrong" on the first problem.
BOIDS_API State read_state_csv(const std::string& path, int dims, std::size_t count);

/// Same for state text already in memory; `name` stands for the file in messages.
BOIDS_API State parse_state_csv(std::string_view text, const std::string& name, int dims,
                                std::size_t count);

/// Writes a state (atomically). `precision` picks the shortest round-trip form of float or
/// double values, so reading the file back gives the world's values exactly.
BOIDS_API void write_state_csv(const std::string& path, const State& s, int dims,
                               Precision precision);

/// Writes the world's state the same way, streamed: rows are read from the engine's store a
/// chunk at a time and written through a 1 MiB buffer, so the memory it needs does not grow
/// with the flock (no State, no id-order copy, no text of the file).
BOIDS_API void write_state_csv(const std::string& path, const World& w);

/// True when every position and velocity of the world is finite (read in place, no copy).
BOIDS_API bool state_is_finite(const World& w);

// ---- Trajectory recordings (what `boids run --record FILE` writes when FILE is not H5MD).

/// Writes the state of a world every few steps. A path ending in ".csv" gives one CSV table
/// "step,id,x,y[,z],vx,vy[,vz],kind" (a row per boid per frame); any other path gives the
/// compact binary BOIDSREC format (docs/formats.md), which the viewer's --replay plays.
/// Frames are read in id order a chunk at a time and go through a large buffer, so recording
/// costs the bytes it writes. Nothing appears at `path` until finish(); a Recorder destroyed
/// unfinished (an exception, an interrupted run) removes its temporary file.
class BOIDS_API Recorder {
 public:
  /// Opens a recording of worlds shaped like `w` (dims, precision). `every` (>= 1) is the
  /// number of steps between frames, stored in the header; the caller decides when to call
  /// frame(). Throws Error when `every` is 0 or the file cannot be created.
  Recorder(const std::string& path, const World& w, std::uint64_t every = 1);
  ~Recorder();
  Recorder(Recorder&&) noexcept;
  Recorder& operator=(Recorder&&) noexcept;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Appends the current state of `w` (its step count, ids, kinds, positions, velocities) as
  /// one frame. Throws Error when `w` has another dims or precision, or after finish().
  void frame(const World& w);
  /// Flushes, closes and renames the file into place. Throws Error on a write failure.
  /// Calling it again does nothing.
  void finish();

  /// Frames written so far.
  std::uint64_t frames() const noexcept;
  /// The steps between frames given at construction.
  std::uint64_t every() const noexcept;
  /// True once finish() has run.
  bool finished() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Checks before a run.

/// Throws Error "PATH: ..." unless `path` could be written: its directory exists and takes new
/// files, and `path` is not a directory. Creates and removes a probe file, nothing else.
BOIDS_API void check_output_path(const std::string& path);

/// Throws Error "KEY: N boids need about X GiB, more than the Y GiB this process may use" (or
/// "... more than the limit of 2147483647 boids") unless `boids` live boids of a world of
/// `def` fit in 85 % of the memory this process may use and 90 % of the memory available now.
/// The memory this process may use is the smallest of physical RAM, the cgroup limit and the
/// environment variable BOIDS_MEMORY_LIMIT (bytes). `key` names what set the count in the
/// message, e.g. "boids.count".
BOIDS_API void check_boid_count(std::uint64_t boids, const WorldDef& def, const std::string& key);

/// `text` with control bytes (and DEL) escaped as \xNN, so an error message that quotes user
/// input stays on one line and cannot drive a terminal.
BOIDS_API std::string escape_control(std::string_view text);

}  // namespace boids
