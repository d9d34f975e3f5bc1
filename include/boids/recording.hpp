// boids: reading trajectory recordings of `boids run --record` (docs/formats.md), in either
// format the program writes: H5MD (.h5/.h5md, through HDF5) and the binary BOIDSREC format.
// The viewer's replay reads recordings through this header.
//
//   boids::Recording rec = boids::Recording::open("run.h5");
//   boids::RecordingFrame f;
//   for (std::size_t k = 0; k < rec.frames(); ++k) rec.read(k, f);  // f.x[i], f.id[i], ...
//
// Implemented in the boids_io library (io/recording*.cpp), which every program of this project
// links; it is not part of libboids and not installed, because H5MD needs HDF5. Without HDF5
// (BOIDS_HDF5=OFF) opening an H5MD file throws Error saying so; BOIDSREC always works.
//
// Opening checks the header (BOIDSREC: every frame header, so a file cut short is refused at
// once) or the H5MD structure (every dataset's presence, rank, shape and type), and keeps the
// frame index, so reading frame k is one seek (one hyperslab per dataset in H5MD). read()
// checks that frame's values: ids strictly increasing, kinds 0..2, positions and velocities
// finite. Every failure throws boids::Error with one line "PATH: WHERE: what is wrong", WHERE
// being the dataset (H5MD) or the frame and byte (BOIDSREC); HDF5's own error stack is
// silenced.
//
// Thread-safety: a Recording may be used by one thread at a time; distinct Recordings of the
// same file are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "boids/world.hpp"

namespace boids {

/// One recorded state, every kind together, rows in ascending id order, as float32 (the form
/// a renderer wants). z and vz hold zeros in 2D; their size is always the frame's boid count.
struct RecordingFrame {
  std::uint64_t step = 0;  ///< the world's step count at this frame
  std::vector<std::uint32_t> id;
  std::vector<std::uint8_t> kind;  ///< 0 boid, 1 predator, 2 leader
  std::vector<float> x, y, z, vx, vy, vz;
};

enum class RecordingFormat { boidsrec, h5md };

/// A recording opened for reading. Movable, not copyable.
class Recording {
 public:
  /// Opens `path`, telling the format by its first bytes (BOIDSREC magic, or HDF5's
  /// signature). Throws Error "PATH: ..." when the file is missing, a directory, not a
  /// recording, of another version, truncated, malformed, or holds no frame.
  static Recording open(const std::string& path);

  Recording(Recording&&) noexcept;
  Recording& operator=(Recording&&) noexcept;
  ~Recording();

  const std::string& path() const noexcept;
  RecordingFormat format() const noexcept;
  int dims() const noexcept;
  /// The precision the values were recorded in (read() converts to float32).
  Precision precision() const noexcept;
  /// Number of frames (at least 1).
  std::size_t frames() const noexcept;
  /// The step count of frame k (k < frames()), without reading its payload.
  std::uint64_t step_of(std::size_t k) const;
  /// Steps between frames as recorded (the --every of the run).
  std::uint64_t every() const noexcept;
  /// H5MD: the scenario TOML the run used (parameters/scenario, a valid scenario file);
  /// BOIDSREC: empty (that format stores no scenario).
  const std::string& scenario_text() const noexcept;
  /// Index of the frame whose step is the largest not above `step` (0 when all are later).
  std::size_t frame_at_step(std::uint64_t step) const noexcept;

  /// Reads frame k into `out` (its vectors are reused). Throws Error naming the file and the
  /// dataset on a read failure or bad values; `out` is then unspecified.
  void read(std::size_t k, RecordingFrame& out);
  /// Reads frame k exactly (doubles hold float32 and float64 values alike), for
  /// World::set_state() and comparisons; z and vz are empty in 2D, as in World::state().
  void read(std::size_t k, State& out);

  struct Impl;  // internal

 private:
  explicit Recording(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace boids
