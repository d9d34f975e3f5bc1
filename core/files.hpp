// Whole files in and out, safely. Inputs must be regular, readable files no larger than a
// limit the caller gives (so a directory, a FIFO or /dev/zero is an error naming the path,
// never a silent empty read or an endless one). Outputs are written atomically: to a unique
// temporary file in the same directory, fsync'ed, renamed over the target and the directory
// fsync'ed, so a failure or a crash never leaves a half-written or clobbered file, and two
// writers (threads or processes) never share a temporary name. Every writer of the project
// (state CSV, snapshots, recordings, the CLI's outputs) goes through AtomicFile.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "boids/io.hpp"

namespace boids {

/// Reads the whole regular file at `path`. `what` names it in messages ("scenario file").
/// Throws Error "PATH: is a directory, not a WHAT", "PATH: cannot open WHAT (REASON)" or
/// "PATH: WHAT is N bytes, more than the limit of MAX".
std::string read_input_file(const std::string& path, const char* what, std::uint64_t max_bytes);

/// A file being written atomically to `path`; it appears there only when commit() succeeds.
class AtomicFile {
 public:
  /// Creates the temporary file; throws Error "PATH: cannot write here (REASON)". A non-zero
  /// `buffer_bytes` gives the stream a buffer of that size (large sequential writers).
  explicit AtomicFile(const std::string& path, std::size_t buffer_bytes = 0);
  /// Removes the temporary file unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes; throws Error "PATH: write failed (REASON)".
  void write(const void* data, std::size_t bytes);
  void write(std::string_view s) { write(s.data(), s.size()); }
  /// Flushes, fsyncs, renames over the target and fsyncs the directory.
  void commit();

  const std::string& path() const noexcept { return path_; }
  const std::string& temp_path() const noexcept { return tmp_; }

 private:
  void discard() noexcept;

  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  std::unique_ptr<char[]> buffer_;
};

/// Writes `contents` to `path` atomically (AtomicFile). Throws Error on failure.
void write_file_atomically(const std::string& path, std::string_view contents);

// check_output_path() is public (boids/io.hpp).

}  // namespace boids
