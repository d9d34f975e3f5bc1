// The xsimd pack used by kernels_sse42.cpp, kernels_avx2.cpp and kernels_avx512.cpp. Each of
// those files is compiled with its own -m flags (core/CMakeLists.txt) and names its arch.
#pragma once

#include <immintrin.h>

#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "core/kernels_impl.hpp"

namespace boids {
namespace {
namespace kernels_detail {

template <class Arch>
struct XsimdPacks {
  template <class Real>
  struct Pack {
    using B = xsimd::batch<Real, Arch>;
    using M = xsimd::batch_bool<Real, Arch>;
    static constexpr int W = int(B::size);
    static B load(const Real* p) { return B::load_aligned(p); }
    static B loadu(const Real* p) { return B::load_unaligned(p); }
    static void storeu(Real* p, B a) { a.store_unaligned(p); }
    static B splat(Real x) { return B(x); }
    alignas(64) static constexpr Real iota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                  8, 9, 10, 11, 12, 13, 14, 15};
    static M lane_lt(int k) { return B::load_aligned(iota) < B(Real(k)); }
    static M lane_ne(int k) { return B::load_aligned(iota) != B(Real(k)); }
    // Masked accumulation: one merge-masked instruction on AVX-512, an add and a blend below.
    static B add_if(B a, M m, B x) {
#ifdef __AVX512F__
      if constexpr (W * sizeof(Real) == 64) {
        if constexpr (std::is_same_v<Real, float>)
          return _mm512_mask_add_ps(a, m, a, x);
        else
          return _mm512_mask_add_pd(a, m, a, x);
      }
#endif
      return xsimd::select(m, a + x, a);
    }
    static B sub_if(B a, M m, B x) {
#ifdef __AVX512F__
      if constexpr (W * sizeof(Real) == 64) {
        if constexpr (std::is_same_v<Real, float>)
          return _mm512_mask_sub_ps(a, m, a, x);
        else
          return _mm512_mask_sub_pd(a, m, a, x);
      }
#endif
      return xsimd::select(m, a - x, a);
    }
    static bool any(M m) { return xsimd::any(m); }
    static M and_(M a, M b) { return a && b; }
    static B sqrt(B a) { return xsimd::sqrt(a); }
    static B round(B a) { return xsimd::nearbyint(a); }
    static void store(Real* p, B a) { a.store_aligned(p); }
    static Real first(B a) {
      alignas(64) Real t[W];
      a.store_aligned(t);
      return t[0];
    }
    // One step of the reduction tree: lanes l < H of the result are a[l] + a[l + H].
    template <int H>
    static B fold(B a) {
      return a + B(shifted<H>(typename B::register_type(a)));
    }
    template <int H, class R>
    static R shifted(R a) {
      if constexpr (std::is_same_v<R, __m128>) {
        if constexpr (H == 2)
          return _mm_movehl_ps(a, a);
        else
          return _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 1, 1, 1));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return _mm_unpackhi_pd(a, a);
#ifdef __AVX__
      } else if constexpr (std::is_same_v<R, __m256>) {
        if constexpr (H == 4)
          return _mm256_permute2f128_ps(a, a, 0x01);
        else if constexpr (H == 2)
          return _mm256_permute_ps(a, _MM_SHUFFLE(3, 2, 3, 2));
        else
          return _mm256_permute_ps(a, _MM_SHUFFLE(1, 1, 1, 1));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        if constexpr (H == 2)
          return _mm256_permute2f128_pd(a, a, 0x01);
        else
          return _mm256_permute_pd(a, 0xF);
#endif
#ifdef __AVX512F__
      } else if constexpr (std::is_same_v<R, __m512>) {
        if constexpr (H == 8)
          return _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(3, 2, 3, 2));
        else if constexpr (H == 4)
          return _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(1, 1, 1, 1));
        else if constexpr (H == 2)
          return _mm512_permute_ps(a, _MM_SHUFFLE(3, 2, 3, 2));
        else
          return _mm512_permute_ps(a, _MM_SHUFFLE(1, 1, 1, 1));
      } else if constexpr (std::is_same_v<R, __m512d>) {
        if constexpr (H == 4)
          return _mm512_shuffle_f64x2(a, a, _MM_SHUFFLE(3, 2, 3, 2));
        else if constexpr (H == 2)
          return _mm512_shuffle_f64x2(a, a, _MM_SHUFFLE(1, 1, 1, 1));
        else
          return _mm512_permute_pd(a, 0xFF);
#endif
      } else {
        static_assert(sizeof(R) == 0, "no lane shift for this register type");
      }
    }
  };
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
