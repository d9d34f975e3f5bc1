// The wander keyframes' draws (beh::wander_key: random_stream(seed, id, kStreamWander), then
// random_unit_at(stream, 4 key) and random_unit_at(stream, 4 key + 1) for the keys key and
// key + 1) for many boids at once, in 64-bit integer lanes: the behaviour lanes took them one
// boid at a time, seven splitmix64 chains per boid (about 15 % of their samples in the
// all-behaviours step). Included by the kernel units only (core/behaviour_lanes_impl.hpp),
// which compile it once per instruction set, with as many lanes as beh::sin_cos_n. Integer
// arithmetic is exact, and the conversion of the 53 random bits to double is split into two
// exact halves, so every value has the scalar code's bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/behaviour_trig_n.hpp"
#include "core/rng.hpp"

namespace boids::beh {

/// For boid l < n with id ids[l] and j = 0, 1: ang[j n + l] = 2 pi random_unit_at(stream,
/// 4 (key + j)) and, when `three`, zs[j n + l] = 2 random_unit_at(stream, 4 (key + j) + 1) - 1,
/// stream = random_stream(seed, ids[l], kStreamWander). static: each instruction set's unit
/// keeps its own copy.
static inline void wander_draws_n(std::uint64_t seed, const std::uint64_t* ids, std::uint64_t key,
                                  bool three, double* ang, double* zs, std::size_t n) {
  const std::uint64_t h0 = splitmix64(seed ^ 0x243F6A8885A308D3ull);  // random_stream's first
  const std::uint64_t smul = std::uint64_t(kStreamWander) * 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
#if defined(__GNUC__)
  typedef std::uint64_t U __attribute__((vector_size(8 * kTrigLanes)));
  typedef double V __attribute__((vector_size(8 * kTrigLanes)));
  auto mix = [](U x) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  // double(bits >> 11) * 2^-53: the 53 bits as a high part below 2^21 and a low part below
  // 2^32, each converted exactly through the exponent 2^52, then combined exactly.
  auto unit = [](U bits) {
    const U b = bits >> 11;
    constexpr std::uint64_t E = 0x4330000000000000ull;  // the bits of 2^52
    const V hi = (V)((b >> 32) | E) - 0x1p52, lo = (V)((b & 0xFFFFFFFFull) | E) - 0x1p52;
    return (hi * 0x1p32 + lo) * 0x1p-53;
  };
  for (; i + kTrigLanes <= n; i += kTrigLanes) {
    U id;
    std::memcpy(&id, ids + i, sizeof id);
    const U stream = mix(mix(h0 ^ id) ^ smul);
    for (std::uint64_t j = 0; j < 2; ++j) {
      const std::uint64_t kj = key + j;
      const V a = 2.0 * 3.14159265358979323846 * unit(mix(stream ^ (kj * 4)));
      std::memcpy(ang + j * n + i, &a, sizeof a);
      if (three) {
        const V z = 2.0 * unit(mix(stream ^ (kj * 4 + 1))) - 1.0;
        std::memcpy(zs + j * n + i, &z, sizeof z);
      }
    }
  }
#endif
  for (; i < n; ++i) {
    const std::uint64_t stream = random_stream(seed, ids[i], kStreamWander);
    for (std::uint64_t j = 0; j < 2; ++j) {
      const std::uint64_t kj = key + j;
      ang[j * n + i] = 2.0 * 3.14159265358979323846 * random_unit_at(stream, kj * 4);
      if (three) zs[j * n + i] = 2.0 * random_unit_at(stream, kj * 4 + 1) - 1.0;
    }
  }
}

}  // namespace boids::beh
