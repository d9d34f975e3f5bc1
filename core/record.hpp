// Trajectory recording: the state every K steps, appended to a binary file with a small
// header (docs/formats.md) or, when the file name ends in ".csv", to a CSV table. Writes go
// through a large stdio buffer, straight from the engine's id-order views, so recording costs
// the bytes it writes and nothing else. The file is an AtomicFile (core/files.hpp), renamed
// into place by finish(), so an interrupted run never leaves a truncated recording behind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "boids/world.hpp"
#include "core/files.hpp"

namespace boids {

inline constexpr char kRecordMagic[8] = {'B', 'O', 'I', 'D', 'S', 'R', 'E', 'C'};
inline constexpr std::uint32_t kRecordVersion = 1;

class Recorder {
 public:
  /// Opens a recording of worlds shaped like `w` (dims, precision) taken every `every`
  /// steps. Throws Error when the file cannot be created.
  Recorder(const std::string& path, const World& w, std::uint64_t every);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Appends the current state of `w` as one frame.
  void frame(const World& w);
  /// Flushes, closes and renames the file into place. Throws Error on a write failure.
  void finish();

  std::uint64_t frames() const noexcept { return frames_; }

 private:
  template <class Real>
  void frame_binary(const World& w);
  template <class Real>
  void frame_csv(const World& w);
  void write(const void* data, std::size_t bytes);

  std::string path_;
  std::unique_ptr<AtomicFile> file_;  // null once finished
  bool csv_ = false;
  int dims_ = 3;
  Precision precision_ = Precision::f32;
  std::uint64_t frames_ = 0;
  std::string line_;
};

}  // namespace boids
