// The packs of the per-ISA units outside the row kernels (the metrics pair pass,
// parallel/metrics_pairs_*.cpp; the neighbour-list gather, parallel/list_gather_*.cpp; the
// predators' prey scan, core/prey_scan_*.cpp): a one-lane pack (B = Real, M = bool) and the
// xsimd pack of one architecture, which its unit's -m flags enable (cmake/BoidsIsaUnits.cmake).
// In an anonymous namespace: every unit keeps its own copy.
//
// compress<N>(bits, x, dst, slot, n, base, from) left-packs the lanes of bits: for the t-th set
// bit l, dst[a][n + t] = lane l of x[a] (a < N) and slot[n + t] = base + l, or from[base + l]
// when `from` is not null (readable W - 1 past). It writes W elements
// from n in every array (the ones past n + popcount(bits) are scratch) and has no
// data-dependent branch.
#pragma once

#include <array>
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
  static void storeu(Real* p, B a) { *p = a; }
  static B splat(Real x) { return x; }
  static B min(B a, B b) { return b < a ? b : a; }
  static B sqrt(B a) { return std::sqrt(a); }
  static B round(B a) { return std::nearbyint(a); }
  static B select(M m, B a, B b) { return m ? a : b; }
  static M and_(M a, M b) { return a && b; }
  static M or_(M a, M b) { return a || b; }
  static M lane_lt(int k) { return 0 < k; }
  static std::uint64_t bits(M m) { return m ? 1u : 0u; }
  template <int N>
  static void compress(std::uint64_t, const B* x, Real* const* dst, std::uint32_t* slot, int n,
                       std::uint32_t base, const std::uint32_t* from) {
    for (int a = 0; a < N; ++a) dst[a][n] = x[a];
    slot[n] = from ? from[base] : base;
  }
};

// For every 8-bit mask, the indices of its set bits in order, one per byte (unused bytes 0).
inline constexpr std::array<std::uint64_t, 256> kCompressLut = [] {
  std::array<std::uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    int at = 0;
    for (unsigned l = 0; l < 8; ++l)
      if (m >> l & 1u) t[m] |= std::uint64_t(l) << (8 * at++);
  }
  return t;
}();

#if defined(BOIDS_PAIR_PACKS_X86)
template <class Arch>
struct SimdPairPacks {
  template <class Real>
  struct Pack {
    using B = xsimd::batch<Real, Arch>;
    using M = xsimd::batch_bool<Real, Arch>;
    static constexpr int W = int(B::size);
    static B loadu(const Real* p) { return B::load_unaligned(p); }
    static void storeu(Real* p, B a) { a.store_unaligned(p); }
    static B splat(Real x) { return B(x); }
    static B min(B a, B b) { return xsimd::min(a, b); }
    static B sqrt(B a) { return xsimd::sqrt(a); }
    static B round(B a) { return xsimd::nearbyint(a); }
    static B select(M m, B a, B b) { return xsimd::select(m, a, b); }
    static M and_(M a, M b) { return a && b; }
    static M or_(M a, M b) { return a || b; }
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
    template <int N>
    static void compress(std::uint64_t bits, const B* x, Real* const* dst, std::uint32_t* slot,
                         int n, std::uint32_t base, const std::uint32_t* from) {
#ifdef __AVX2__
      using R = typename B::register_type;
      if constexpr (std::is_same_v<R, __m256>) {
        const __m256i idx =
            _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)(kCompressLut[bits & 255u])));
        for (int a = 0; a < N; ++a)
          _mm256_storeu_ps(dst[a] + n, _mm256_permutevar8x32_ps(x[a], idx));
        const __m256i s =
            from ? _mm256_permutevar8x32_epi32(
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + base)), idx)
                 : _mm256_add_epi32(idx, _mm256_set1_epi32(int(base)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + n), s);
        return;
      } else if constexpr (std::is_same_v<R, __m256d>) {
        const __m128i idx4 =
            _mm_cvtepu8_epi32(_mm_cvtsi64_si128((long long)(kCompressLut[bits & 15u])));
        // Lane l of a double is the 32-bit lanes 2l and 2l + 1.
        const __m256i l64 = _mm256_slli_epi64(_mm256_cvtepu32_epi64(idx4), 1);
        const __m256i idx = _mm256_or_si256(
            l64, _mm256_slli_epi64(_mm256_add_epi64(l64, _mm256_set1_epi64x(1)), 32));
        for (int a = 0; a < N; ++a)
          _mm256_storeu_pd(dst[a] + n,
                           _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(x[a]), idx)));
        const __m128i s = from ? _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                                     _mm256_castsi128_si256(_mm_loadu_si128(
                                         reinterpret_cast<const __m128i*>(from + base))),
                                     _mm256_cvtepu8_epi32(
                                         _mm_cvtsi64_si128((long long)(kCompressLut[bits & 15u])))))
                               : _mm_add_epi32(idx4, _mm_set1_epi32(int(base)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + n), s);
        return;
      }
#endif
      alignas(64) Real lane[N][W];
      for (int a = 0; a < N; ++a) x[a].store_aligned(lane[a]);
      int at = n;
      for (int l = 0; l < W; ++l) {
        for (int a = 0; a < N; ++a) dst[a][at] = lane[a][l];
        slot[at] = from ? from[base + std::uint32_t(l)] : base + std::uint32_t(l);
        at += int(bits >> l & 1u);
      }
    }
  };
};

#endif

}  // namespace
}  // namespace boids
