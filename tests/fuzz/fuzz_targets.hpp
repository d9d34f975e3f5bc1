// The bodies of the libFuzzer targets (tests/fuzz/README.md). Each takes arbitrary bytes and
// must return normally: a boids::Error (or an error status of the C API) is the expected
// answer to bad input; any other exception, a crash or a sanitizer report is a bug. The same
// functions run every committed corpus file in the ordinary test suite (test_fuzz_corpus.cpp),
// so a crash once found stays a regression test in every build, with or without clang.
#pragma once

#include <cstddef>
#include <cstdint>

namespace boids::fuzz {

/// Scenario TOML: the bytes as a scenario file, and their first line as a --set override.
void scenario(const std::uint8_t* data, std::size_t size);
/// State CSV: byte 0 picks 2D/3D, byte 1 the expected count (0..63), the rest is the file.
void state_csv(const std::uint8_t* data, std::size_t size);
/// Snapshot bytes: decoded, and when valid (and small) made into a world that steps once.
void snapshot(const std::uint8_t* data, std::size_t size);
/// The C API's create/load/set calls: byte 0 picks the call, the rest feeds it.
void c_api(const std::uint8_t* data, std::size_t size);

}  // namespace boids::fuzz
