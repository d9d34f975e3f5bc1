// The instruction sets the kernels are compiled for and the run-time choice among them
// (defined in core/kernels.cpp). ModelParams::isa carries the engine's choice (engine.simd) to
// every pass that selects a kernel by instruction set.
#pragma once

#include <cstdint>

namespace boids {

/// Instruction sets the kernels are compiled for, in increasing order of preference.
enum class Isa : std::uint8_t { scalar, sse42, avx2, avx512 };

/// "scalar", "sse4.2", "avx2", "avx512".
const char* isa_name(Isa isa) noexcept;

/// The best instruction set both this binary has kernels for and this CPU runs; scalar when
/// `simd` is false or the build has BOIDS_DISABLE_SIMD. The environment variable
/// BOIDS_MAX_ISA (scalar, sse4.2, avx2, avx512) caps the choice, for benchmarks.
Isa dispatched_isa(bool simd = true) noexcept;

/// Name of dispatched_isa(true), for the bench.
inline const char* dispatched_isa_name() noexcept { return isa_name(dispatched_isa(true)); }

}  // namespace boids
