// Replay: the viewer plays recordings through the public reader boids::Recording
// (include/boids/recording.hpp, implemented in io/), which opens both formats `boids run
// --record` writes, H5MD (.h5/.h5md) and BOIDSREC, telling them apart by their first bytes.
//
// The viewer's simulation thread asks the recording for frame i and publishes it exactly like
// a live state, so everything the window does (density rendering, kinds, the timeline) works
// the same on a recording. These names keep the viewer's own vocabulary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "boids/recording.hpp"

namespace boids::view {

/// One recorded state, in id order, as floats (z, vz hold zeros in 2D).
using RecordedState = boids::RecordingFrame;
using ReplaySource = boids::Recording;

/// Opens a recording of `boids run --record FILE` (H5MD or BOIDSREC). Throws boids::Error
/// ("FILE: ...") when it is missing, a directory, not a recording, truncated or malformed.
inline std::unique_ptr<ReplaySource> open_recording(const std::string& path) {
  return std::make_unique<ReplaySource>(ReplaySource::open(path));
}

/// Index of the frame whose step is the largest not above `step` (0 when all are later).
inline std::size_t frame_at_step(const ReplaySource& src, std::uint64_t step) {
  return src.frame_at_step(step);
}

}  // namespace boids::view
