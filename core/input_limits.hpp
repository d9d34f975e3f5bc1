// Limits on everything that comes from outside (docs/formats.md, "Input limits"): how large a
// file may be, how deeply TOML may nest, how many boids fit in memory, how large a number may
// be in a float or double world. Every reader checks them BEFORE it parses or allocates, so a
// hostile or mistaken input costs one error line, never a crash, a hang or an OOM kill.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "boids/io.hpp"
#include "boids/world.hpp"

namespace boids {

/// A scenario (or --set value, or the TOML inside a snapshot) is at most this many bytes.
inline constexpr std::uint64_t kMaxScenarioBytes = std::uint64_t(1) << 20;

/// TOML may nest arrays and inline tables, and split keys with dots, at most this deep. The
/// real schema needs 3; the cap keeps the recursive parser far from any stack limit, even on
/// a host thread with a small stack.
inline constexpr int kMaxTomlDepth = 16;

/// Live boids in one world at most: every index the engines use fits in 32 bits.
inline constexpr std::uint64_t kMaxBoids = 0x7FFFFFFFull;

/// Checks TOML text before parsing: size, bracket nesting and dots per key (outside strings
/// and comments). Throws Error "NAME:LINE: ..." naming the first line that is too deep.
void check_toml_text(std::string_view text, const std::string& name);

// escape_control() and check_boid_count() are public (boids/io.hpp).

/// The limit of a cgroup memory file ("max" or a byte count, as in memory.max or
/// memory.limit_in_bytes); nothing when unlimited or unreadable.
std::optional<std::uint64_t> parse_memory_limit(std::string_view text);

/// Bytes this process may use: the smallest of physical RAM, the cgroup v2 memory.max, the
/// cgroup v1 memory.limit_in_bytes and, when set, the environment variable
/// BOIDS_MEMORY_LIMIT (bytes; it can only lower the limit).
std::uint64_t memory_limit_bytes();

/// MemAvailable of /proc/meminfo in bytes (what the kernel can give without swapping), or
/// nothing where that file is missing.
std::optional<std::uint64_t> available_memory_bytes();

/// The largest magnitude any number of a def or a state may have in a world of this precision
/// (1e12 for float, 1e100 for double), so that the model's products of two or three of them
/// stay finite; numbers the model divides by must be at least its inverse.
inline double max_magnitude(Precision p) { return p == Precision::f32 ? 1e12 : 1e100; }

/// Throws Error "WHAT: position (or velocity) of row R is V, more than M in magnitude ..."
/// when a state value is finite as a double but too large for the world's precision (1e39
/// becomes inf in float). Non-finite values are left to the engine's own checks.
void check_state_values(const State& s, const WorldDef& def, const std::string& what);

/// Upper bound on the bytes one boid costs at the peak of a run of `def` (every engine, every
/// buffer, the id-order view copy and a State copy; population changes excepted).
std::uint64_t bytes_per_boid(const WorldDef& def);

}  // namespace boids
