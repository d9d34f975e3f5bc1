// The xsimd pack used by kernels_sse42.cpp, kernels_avx2.cpp and kernels_avx512.cpp. Each of
// those files is compiled with its own -m flags (core/CMakeLists.txt) and names its arch.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "core/kernels_table_impl.hpp"

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
    static B min(B a, B b) { return xsimd::min(a, b); }  // a < b ? a : b
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
    // beh::arrival_speed (core/behaviour_math.hpp) for W lanes, in double lanes: its double
    // operations in its order (sqrt, floor and the divisions correctly rounded; std::clamp's
    // and std::min's comparisons as selects), the last min in Real per lane, so every lane
    // has its bits. For the behaviour lanes' arrival terms.
    static void arrival_speeds(const Real* dist, Real ms, Real brake_acc, Real dt, Real* out) {
      using BD = xsimd::batch<double, Arch>;
      constexpr int N = int(BD::size);
      static_assert(W % N == 0, "the double lanes must tile the pack's lanes");
      const double u = double(brake_acc) * double(dt);
      alignas(64) double dd[W], bk[W];
      for (int l = 0; l < W; ++l) dd[l] = double(dist[l]);
      for (int l = 0; l < W; l += N) {
        const BD sd = BD::load_aligned(dd + l) / BD(double(dt));
        BD brake = sd;
        if (u > 0) {
          const BD ub(u), one(1.0), two(2.0), zero(0.0);
          const BD n = xsimd::floor((xsimd::sqrt(one + BD(8.0) * sd / ub) - one) / two);
          const BD x = (sd - ub * n * (n + one) / two) / (n + one);
          // std::clamp(x, 0, u): x < 0 ? 0 : (u < x ? u : x).
          const BD r = xsimd::select(x < zero, zero, xsimd::select(ub < x, ub, x));
          // std::min(n u + r, sd): sd < n u + r ? sd : n u + r.
          const BD t = n * ub + r;
          brake = xsimd::select(sd < t, sd, t);
        }
        brake.store_aligned(bk + l);
      }
      for (int l = 0; l < W; ++l) out[l] = std::min(ms, Real(bk[l]));
    }
    static M and_(M a, M b) { return a && b; }
    static M or_(M a, M b) { return a || b; }
    static B sqrt(B a) { return xsimd::sqrt(a); }
    static B floor(B a) { return xsimd::floor(a); }
    static B sel(M m, B a, B b) { return xsimd::select(m, a, b); }
    static B round(B a) { return xsimd::nearbyint(a); }
    static void store(Real* p, B a) { a.store_aligned(p); }
    // The neighbour count in integer lanes as wide as Real's, so a mask lane lines up with a
    // count lane. SSE/AVX masks are all-ones lanes, -1 as integers: count - mask adds 1 where
    // the mask is set. AVX-512 masks are bit masks: a merge-masked add.
    using KI = std::conditional_t<sizeof(Real) == 4, std::int32_t, std::int64_t>;
    using K = typename xsimd::batch<KI, Arch>::register_type;
    static K kzero() { return K{}; }  // value-initialised: all lanes 0
    static K count_if(K k, M m) {
      using R = typename M::register_type;
      if constexpr (std::is_same_v<R, __m128>) {
        return _mm_sub_epi32(k, _mm_castps_si128(m));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return _mm_sub_epi64(k, _mm_castpd_si128(m));
#ifdef __AVX2__
      } else if constexpr (std::is_same_v<R, __m256>) {
        return _mm256_sub_epi32(k, _mm256_castps_si256(m));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        return _mm256_sub_epi64(k, _mm256_castpd_si256(m));
#endif
#ifdef __AVX512F__
      } else if constexpr (std::is_same_v<R, __mmask16>) {
        return _mm512_mask_add_epi32(k, m, k, _mm512_set1_epi32(1));
      } else if constexpr (std::is_same_v<R, __mmask8>) {
        return _mm512_mask_add_epi64(k, m, k, _mm512_set1_epi64(1));
#endif
      } else {
        static_assert(sizeof(R) == 0, "no integer count for this mask type");
      }
    }
    static std::int64_t ksum(K k) {
      alignas(64) KI lane[sizeof(K) / sizeof(KI)];
      std::memcpy(lane, &k, sizeof(K));
      std::int64_t sum = 0;
      for (KI x : lane) sum += x;
      return sum;
    }
    // The in-register part of the lane tree (kernels_impl.hpp, Kernel::reduce) for Q sums at
    // once: level L adds lane l + h to lane l (h = W / 2, W / 4, ..., 1) for two registers
    // with one add, the two halves laid side by side by two shuffles. After log2(W) levels
    // each register holds W finished sums, sum g of its group in lane lane_of(g). The
    // additions are exactly those of one tree per sum; only fewer instructions do them.
    template <int Q>
    static void reduce_all(const B (&x)[Q], Real* out) {
      using R = typename B::register_type;
      constexpr int NF = (Q + W - 1) / W;  // registers left at the end
      R cur[Q];
      for (int q = 0; q < Q; ++q) cur[q] = R(x[q]);
      levels<0, Q>(cur);
      alignas(64) Real lanes[NF][W];
      for (int k = 0; k < NF; ++k) B(cur[k]).store_aligned(lanes[k]);
      for (int q = 0; q < Q; ++q) out[q] = lanes[q / W][lane_of(q % W)];
    }

    template <int L, int N, class R>
    static void levels(R* cur) {
      if constexpr ((1 << L) < W) {
        constexpr int M = (N + 1) / 2;
        for (int k = 0; k < M; ++k) {
          const R b = 2 * k + 1 < N ? cur[2 * k + 1] : R(B(Real(0)));
          cur[k] = combine<L>(cur[2 * k], b);
        }
        levels<L + 1, M>(cur);
      }
    }

    // Where sum g of a group of W ends up (follows from the shuffles below).
    static constexpr int lane_of(int g) {
      if constexpr (W == 16) return 4 * (g % 4) + g / 4;                      // AVX-512 float
      if constexpr (W == 8 && sizeof(Real) == 8) return 2 * (g % 4) + g / 4;  // AVX-512 double
      if constexpr (W == 8) return 4 * (g % 2) + g / 2;                       // AVX float
      if constexpr (W == 4 && sizeof(Real) == 8) return 2 * (g % 2) + g / 2;  // AVX double
      return g;                                                               // SSE
    }

    // Level L for registers a and b: a + (a shifted by h) in a's half, the same for b in b's.
    template <int L, class R>
    static R combine(R a, R b) {
      constexpr int lo = _MM_SHUFFLE(1, 0, 1, 0), hi = _MM_SHUFFLE(3, 2, 3, 2);
      constexpr int ev = _MM_SHUFFLE(2, 0, 2, 0), od = _MM_SHUFFLE(3, 1, 3, 1);
      if constexpr (std::is_same_v<R, __m128>) {
        if constexpr (L == 0)
          return _mm_add_ps(_mm_shuffle_ps(a, b, lo), _mm_shuffle_ps(a, b, hi));
        else
          return _mm_add_ps(_mm_shuffle_ps(a, b, ev), _mm_shuffle_ps(a, b, od));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return _mm_add_pd(_mm_unpacklo_pd(a, b), _mm_unpackhi_pd(a, b));
#ifdef __AVX__
      } else if constexpr (std::is_same_v<R, __m256>) {
        if constexpr (L == 0)
          return _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20),
                               _mm256_permute2f128_ps(a, b, 0x31));
        else if constexpr (L == 1)
          return _mm256_add_ps(_mm256_shuffle_ps(a, b, lo), _mm256_shuffle_ps(a, b, hi));
        else
          return _mm256_add_ps(_mm256_shuffle_ps(a, b, ev), _mm256_shuffle_ps(a, b, od));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        if constexpr (L == 0)
          return _mm256_add_pd(_mm256_permute2f128_pd(a, b, 0x20),
                               _mm256_permute2f128_pd(a, b, 0x31));
        else
          return _mm256_add_pd(_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
#endif
#ifdef __AVX512F__
      } else if constexpr (std::is_same_v<R, __m512>) {
        // The zero-masking forms with a full mask are the same instruction; the plain forms
        // pass _mm512_undefined_ps(), which GCC 12 at -O1 reports as uninitialised.
        constexpr __mmask16 all16 = 0xFFFF;
        if constexpr (L == 0)
          return _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all16, a, b, lo),
                               _mm512_maskz_shuffle_f32x4(all16, a, b, hi));
        else if constexpr (L == 1)
          return _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all16, a, b, ev),
                               _mm512_maskz_shuffle_f32x4(all16, a, b, od));
        else if constexpr (L == 2)
          return _mm512_add_ps(_mm512_shuffle_ps(a, b, lo), _mm512_shuffle_ps(a, b, hi));
        else
          return _mm512_add_ps(_mm512_shuffle_ps(a, b, ev), _mm512_shuffle_ps(a, b, od));
      } else if constexpr (std::is_same_v<R, __m512d>) {
        constexpr __mmask8 all8 = 0xFF;
        if constexpr (L == 0)
          return _mm512_add_pd(_mm512_maskz_shuffle_f64x2(all8, a, b, lo),
                               _mm512_maskz_shuffle_f64x2(all8, a, b, hi));
        else if constexpr (L == 1)
          return _mm512_add_pd(_mm512_maskz_shuffle_f64x2(all8, a, b, ev),
                               _mm512_maskz_shuffle_f64x2(all8, a, b, od));
        else
          return _mm512_add_pd(_mm512_unpacklo_pd(a, b), _mm512_unpackhi_pd(a, b));
#endif
      } else {
        static_assert(sizeof(R) == 0, "no lane tree for this register type");
      }
    }
  };
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
