// Counter-based random numbers: every draw is a pure function of (seed, id, stream, counter),
// so results never depend on thread count, boid order or how many draws happened before.
#pragma once

#include <cstdint>

namespace boids {

inline constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The part of random_bits() that does not depend on the counter: several draws of one
/// (seed, id, stream) hash it once (random_bits_at).
inline constexpr std::uint64_t random_stream(std::uint64_t seed, std::uint64_t id,
                                             std::uint64_t stream) {
  std::uint64_t h = splitmix64(seed ^ 0x243F6A8885A308D3ull);
  h = splitmix64(h ^ id);
  return splitmix64(h ^ (stream * 0x9E3779B97F4A7C15ull));
}

/// random_bits(seed, id, stream, counter) from random_stream(seed, id, stream).
inline constexpr std::uint64_t random_bits_at(std::uint64_t stream_key, std::uint64_t counter) {
  return splitmix64(stream_key ^ counter);
}

/// 64 random bits for (seed, id, stream, counter).
inline constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t id,
                                           std::uint64_t stream, std::uint64_t counter) {
  return random_bits_at(random_stream(seed, id, stream), counter);
}

/// Uniform double in [0, 1) with 53 random bits.
inline constexpr double random_unit(std::uint64_t seed, std::uint64_t id, std::uint64_t stream,
                                    std::uint64_t counter) {
  return static_cast<double>(random_bits(seed, id, stream, counter) >> 11) * 0x1.0p-53;
}

/// random_unit(seed, id, stream, counter) from random_stream(seed, id, stream).
inline constexpr double random_unit_at(std::uint64_t stream_key, std::uint64_t counter) {
  return static_cast<double>(random_bits_at(stream_key, counter) >> 11) * 0x1.0p-53;
}

/// Streams in use, so no two features draw the same numbers.
enum RngStream : std::uint64_t {
  kStreamInit = 1,
  kStreamWander = 2,
  kStreamNoise = 3,   // rules.noise (core/profile_vicsek.hpp)
  kStreamUpdate = 4,  // world.update = "sequential": the per-step order (core/naive.cpp)
};

}  // namespace boids
