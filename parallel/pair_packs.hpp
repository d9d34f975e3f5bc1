// The packs of the per-ISA units in parallel/ (the metrics pair pass, metrics_pairs_*.cpp, and
// the topological gather, list_gather_*.cpp): a one-lane pack (B = Real, M = bool) and the
// xsimd pack of one architecture, which its unit's -m flags enable (parallel/CMakeLists.txt).
// In an anonymous namespace: every unit keeps its own copy.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <xsimd/xsimd.hpp>
#define BOIDS_PAIR_PACKS_X86 1
#endif

namespace boids {
namespace {

template <class Real>
struct ScalarPairPack {
  using B = Real;
  using M = bool;
  static constexpr int W = 1;
  static B loadu(const Real* p) { return *p; }
  static B splat(Real x) { return x; }
  static B min(B a, B b) { return b < a ? b : a; }
  static B sqrt(B a) { return std::sqrt(a); }
  static B select(M m, B a, B b) { return m ? a : b; }
  static M and_(M a, M b) { return a && b; }
  static M lane_lt(int k) { return 0 < k; }
  static std::uint64_t bits(M m) { return m ? 1u : 0u; }
};

#if defined(BOIDS_PAIR_PACKS_X86)
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

#endif

}  // namespace
}  // namespace boids
