// Replay sources: recorded states the viewer plays back instead of a live World.
//
// The viewer's simulation thread asks a ReplaySource for recorded frame i and publishes it
// exactly like a live state, so everything the window does (density rendering, kinds, the
// timeline) works the same on a recording. The interface is deliberately small so that other
// recording formats (an H5MD reader is being written) only have to implement these four
// functions; open_recording() picks the reader by the file's magic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace boids::view {

/// One recorded state, in id order, as floats.
struct RecordedState {
  std::uint64_t step = 0;
  std::vector<std::uint32_t> id;
  std::vector<std::uint8_t> kind;
  std::vector<float> x, y, z, vx, vy, vz;  // z, vz hold zeros in 2D
};

class ReplaySource {
 public:
  virtual ~ReplaySource() = default;
  virtual int dims() const = 0;
  /// Number of recorded frames (>= 1).
  virtual std::size_t frames() const = 0;
  /// Step count of frame i, without reading its payload.
  virtual std::uint64_t step_of(std::size_t i) const = 0;
  /// Reads frame i. Throws boids::Error with one line naming the file on a read failure.
  virtual void read(std::size_t i, RecordedState& out) = 0;
};

/// Opens a recording written by `boids run --record FILE` (the binary BOIDSREC format of
/// docs/formats.md). Throws boids::Error ("FILE: ...") when it is missing, a directory, not a
/// recording, of another version, truncated or empty.
std::unique_ptr<ReplaySource> open_recording(const std::string& path);

/// Index of the frame whose step is the largest not above `step` (0 when all are later).
std::size_t frame_at_step(const ReplaySource& src, std::uint64_t step);

}  // namespace boids::view
