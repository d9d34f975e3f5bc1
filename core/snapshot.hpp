// Snapshots: a whole world (def, state in native precision, step count, id counter) as one
// versioned binary file with a checksum. The layout is documented in docs/formats.md.
//
// Because every random draw is a pure function of (seed, id, stream, step), the step count
// is the RNG position: a loaded world continues bit-identically.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "boids/world.hpp"

namespace boids {

inline constexpr char kSnapshotMagic[8] = {'B', 'O', 'I', 'D', 'S', 'N', 'A', 'P'};
inline constexpr std::uint32_t kSnapshotVersion = 1;
inline constexpr std::size_t kSnapshotHeaderBytes = 32;

/// What a snapshot holds, decoded and checked.
struct SnapshotData {
  WorldDef def;  ///< def.count == state.id.size(); no host threading
  State state;   ///< id order; doubles hold the native values exactly
  std::uint64_t step_count = 0;
  std::uint32_t next_id = 0;
};

/// The snapshot bytes of `world`.
std::string encode_snapshot(const World& world);

/// Writes the snapshot of `world` to `path` atomically, streamed: the same bytes as
/// encode_snapshot() without holding them (or an id-order copy of the state) in memory.
void write_snapshot(const std::string& path, const World& world);

/// Decodes snapshot bytes; `name` (the file) starts every error message. Throws Error on a
/// foreign, truncated, corrupt or inconsistent snapshot, or one of another format version.
SnapshotData decode_snapshot(std::string_view bytes, const std::string& name);

/// Reads a whole snapshot file into memory (a regular file no larger than the memory this
/// process may use allows); throws Error "PATH: ..." on failure.
std::string read_file_bytes(const std::string& path);

}  // namespace boids
