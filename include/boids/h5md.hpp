// H5MD 1.1 recordings (docs/formats.md, "H5MD recording"): the trajectory format that h5py,
// MDAnalysis and ParaView (through the XDMF file written beside it) open.
//
// This header has no HDF5 type in it, so the CLI compiles the same with or without HDF5; in a
// build without it (BOIDS_HDF5=OFF) every function here throws Error saying so.
//
// Layout in one paragraph: /h5md (version, author, creator), /particles/<kind> for each kind
// present (boids, predators, leaders) with a fixed box and the time-dependent elements
// position, velocity, id and species (step, time, value), rows in id order and padded to the
// group's largest population so far with id = -1 (population changes); /parameters with the
// scenario TOML and the main keys as attributes, and next_id per frame (the one piece of
// engine state the particles do not show); /observables/<name> for scalar time series.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "boids/world.hpp"

namespace boids::h5md {

/// True when this build can read and write H5MD (it was built with HDF5).
bool available() noexcept;

/// True when `path` names an H5MD recording: it ends in ".h5" or ".h5md".
bool is_h5md_path(const std::string& path);

struct WriterOptions {
  std::uint64_t every = 1;  ///< steps between frames (stored as a parameter)
  int compress = 0;         ///< deflate level 1..9 with byte shuffle; 0 = uncompressed
};

/// Writes frames as they are made. The HDF5 file is flushed after every frame, so a run that
/// is interrupted leaves a file holding every finished frame; the XDMF file (path with its
/// extension replaced by ".xdmf") is likewise complete after every frame.
class Writer {
 public:
  /// Creates (replaces) `path` for worlds shaped like `w`. Throws Error naming the file.
  Writer(const std::string& path, const World& w, const WriterOptions& options);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Appends the current state of `w` as one frame (step = w.step_count(), time = step * dt).
  void frame(const World& w);
  /// Appends one value to each named observable time series /observables/NAME (created on
  /// first use, float64): `boids run --metrics` puts every metrics row here too.
  void append_observables(std::uint64_t step, double time,
                          const std::vector<std::pair<std::string, double>>& values);
  /// Flushes and closes both files. Throws Error on a write failure.
  void finish();

  std::uint64_t frames() const noexcept;
  /// The XDMF file written beside the recording.
  const std::string& xdmf_path() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One frame of a recording, decoded and checked.
struct RecordedFrame {
  std::string scenario_toml;  ///< the world's def as scenario TOML (parameters/scenario)
  State state;                ///< every kind together, id order; doubles hold the values exactly
  std::uint64_t step = 0;     ///< the world's step count at this frame
  std::uint32_t next_id = 0;  ///< the id the next added boid gets
  int dims = 3;
  Precision precision = Precision::f32;
  std::uint64_t frame = 0;   ///< index of the frame read
  std::uint64_t frames = 0;  ///< frames in the recording
};

/// Reads frame `frame` (0 = the first; -1 = the last) of an H5MD recording written by Writer.
/// Throws Error "PATH: DATASET: what is wrong" for a file that is not HDF5 or is truncated, a
/// missing dataset or attribute, a wrong shape or type, a frame out of range, ids that are
/// not strictly increasing, or non-finite values.
RecordedFrame read_frame(const std::string& path, long long frame = -1);

/// A world continuing frame `f` exactly: created from `def` (normally the recording's own
/// scenario, see read_frame) with the frame's state, step count and id counter restored. The
/// step count is the position of every random stream, so stepping it gives the same states
/// as the run that wrote the recording. Throws Error naming `path` when they do not fit.
World world_from_frame(const WorldDef& def, const RecordedFrame& f, const std::string& path);

}  // namespace boids::h5md
