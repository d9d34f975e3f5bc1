// Lane helpers of the metrics' per-ISA passes (parallel/metrics_moments.hpp, the circular
// centre's sines in parallel/metrics_turn.hpp): W values widened to double lanes, the lanes of
// one kind, and table look-ups, each in registers. The plain way (W scalar stores, then one
// vector load) stalls on store forwarding every time; these give the same values (every
// conversion is exact) without it. Included after core/simd_packs.hpp, by the per-ISA units only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/simd_packs.hpp"

namespace boids::metrics_detail {
namespace {

#if defined(BOIDS_PAIR_PACKS_X86)
// The lanes of the boids of `kind` (another kind's lanes read as a boid at rest at the origin,
// which adds the term of 0 to every sum and is not counted: pass A's speed sum counts all n).
// The W kind bytes are widened in a register: a round trip through memory (W byte loads and
// stores, then a vector load) stalls on store forwarding.
template <class B>
inline auto kind_lanes(const std::uint8_t* k, int kind) {
  using MR [[maybe_unused]] = typename B::batch_bool_type::register_type;
  using R [[maybe_unused]] = typename B::register_type;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<R, __m512d>) {
    std::uint64_t w;
    std::memcpy(&w, k, 8);
    const __m512i x = _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)w));
    return typename B::batch_bool_type(MR(_mm512_cmpeq_epi64_mask(x, _mm512_set1_epi64(kind))));
  }
#endif
#if defined(__AVX2__)
  if constexpr (std::is_same_v<R, __m256d>) {
    std::uint32_t w;
    std::memcpy(&w, k, 4);
    const __m256i x = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(int(w)));
    return typename B::batch_bool_type(
        MR(_mm256_castsi256_pd(_mm256_cmpeq_epi64(x, _mm256_set1_epi64x(kind)))));
  }
#endif
  alignas(64) double t[B::size];
  for (std::size_t l = 0; l < B::size; ++l) t[l] = k[l] == kind ? 1.0 : 0.0;
  return B::load_aligned(t) != B(0.0);
}

// W values widened to double lanes (exact), floats converted in a register (see kind_lanes).
template <class B, class Real>
inline B load_double(const Real* x) {
  if constexpr (sizeof(Real) == 8) {
    return B::load_unaligned(x);
  } else {
    using R = typename B::register_type;
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<R, __m512d>) return B(_mm512_cvtps_pd(_mm256_loadu_ps(x)));
#endif
#if defined(__AVX__)
    if constexpr (std::is_same_v<R, __m256d>) return B(_mm256_cvtps_pd(_mm_loadu_ps(x)));
#endif
    if constexpr (std::is_same_v<R, __m128d>) {
      return B(_mm_cvtps_pd(_mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(x)))));
    } else {
      alignas(64) double t[B::size];
      for (std::size_t l = 0; l < B::size; ++l) t[l] = double(x[l]);
      return B::load_aligned(t);
    }
  }
}

// t[k[l]] for each lane l, k integer-valued doubles in [0, size of t).
template <class B>
inline B gather_lanes(const double* t, B k) {
  using R [[maybe_unused]] = typename B::register_type;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<R, __m512d>)
    return B(_mm512_i32gather_pd(_mm512_cvttpd_epi32(k), t, 8));
#endif
#if defined(__AVX2__)
  if constexpr (std::is_same_v<R, __m256d>) {  // the masked form: gcc warns on the plain one
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    return B(_mm256_mask_i32gather_pd(_mm256_setzero_pd(), t, _mm256_cvttpd_epi32(k), all, 8));
  }
#endif
  alignas(64) double kd[B::size], out[B::size];
  k.store_aligned(kd);
  for (std::size_t l = 0; l < B::size; ++l) out[l] = t[std::size_t(kd[l])];
  return B::load_aligned(out);
}
#endif

}  // namespace
}  // namespace boids::metrics_detail
