// The xsimd pack of the metrics pair pass, for metrics_pairs_sse42.cpp, _avx2.cpp and
// _avx512.cpp, each compiled with its own -m flags (parallel/CMakeLists.txt).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "parallel/metrics_pairs_impl.hpp"

namespace boids::metrics_detail {
namespace {

template <class Arch>
struct SimdPairPacks {
  template <class Real>
  struct Pack {
    using B = xsimd::batch<Real, Arch>;
    using M = xsimd::batch_bool<Real, Arch>;
    static constexpr int W = int(B::size);
    static B loadu(const Real* p) { return B::load_unaligned(p); }
    static B splat(Real x) { return B(x); }
    static B min(B a, B b) { return xsimd::min(a, b); }
    static B sqrt(B a) { return xsimd::sqrt(a); }
    static B select(M m, B a, B b) { return xsimd::select(m, a, b); }
    static M and_(M a, M b) { return a && b; }
    alignas(64) static constexpr Real iota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                  8, 9, 10, 11, 12, 13, 14, 15};
    static M lane_lt(int k) { return B::load_aligned(iota) < B(Real(k)); }
    // One bit per lane, lane 0 lowest.
    static std::uint64_t bits(M m) {
      using R = typename M::register_type;
      if constexpr (std::is_same_v<R, __m128>) {
        return std::uint64_t(unsigned(_mm_movemask_ps(m)));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return std::uint64_t(unsigned(_mm_movemask_pd(m)));
#ifdef __AVX__
      } else if constexpr (std::is_same_v<R, __m256>) {
        return std::uint64_t(unsigned(_mm256_movemask_ps(m)));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        return std::uint64_t(unsigned(_mm256_movemask_pd(m)));
#endif
      } else {
        return std::uint64_t(R(m));  // AVX-512: already a bit mask
      }
    }
  };
};

}  // namespace
}  // namespace boids::metrics_detail
