// The xsimd pack of the cluster kernels: the row kernels' pack (kernels_simd.hpp) plus what
// the cluster kernel needs (cluster_kernels_impl.hpp). Packs up to 16 lanes (one tile: the
// AVX-512 float pack; double tiles are two 8-wide registers there). Included by
// cluster_kernels_<isa>.cpp, each compiled with its own -m flags (core/CMakeLists.txt).
#pragma once

#include <limits>

#include "core/cluster_kernels_impl.hpp"
#include "core/kernels_simd.hpp"

namespace boids {
namespace {
namespace cluster_detail {

template <class Arch>
struct ClusterPacks {
  template <class Real>
  struct Pack : kernels_detail::XsimdPacks<Arch>::template Pack<Real> {
    using Base = typename kernels_detail::XsimdPacks<Arch>::template Pack<Real>;
    using B = typename Base::B;
    using M = typename Base::M;
    static constexpr int W = Base::W;
    static B max(B a, B b) { return xsimd::max(a, b); }
    // Masked accumulation as a + (x & m): the same bits as the row pack's select(m, a + x, a)
    // here, because a kernel accumulator starts at +0 and so is never -0 (x + y is -0 only if
    // both are), and a + (+0) is then a. One AND instead of the blend and its mask conversion.
    // AVX-512: a merge-masked add, a where m is clear (the same bits as a + (+0), as above).
    static B add_if(B a, M m, B x) {
#ifdef __AVX512F__
      if constexpr (std::is_same_v<typename M::register_type, __mmask16>)
        return B(_mm512_mask_add_ps(a, m, a, x));
      else if constexpr (std::is_same_v<typename M::register_type, __mmask8> &&
                         std::is_same_v<Real, double>)
        return B(_mm512_mask_add_pd(a, m, a, x));
#endif
      return a + masked(x, m);
    }
    static B sub_if(B a, M m, B x) {
#ifdef __AVX512F__
      if constexpr (std::is_same_v<typename M::register_type, __mmask16>)
        return B(_mm512_mask_sub_ps(a, m, a, x));
      else if constexpr (std::is_same_v<typename M::register_type, __mmask8> &&
                         std::is_same_v<Real, double>)
        return B(_mm512_mask_sub_pd(a, m, a, x));
#endif
      return a - masked(x, m);
    }
    static B masked(B x, M m) {
      using R = typename M::register_type;
      if constexpr (std::is_same_v<R, __m128>) {
        return B(_mm_and_ps(x, m));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return B(_mm_and_pd(x, m));
#ifdef __AVX__
      } else if constexpr (std::is_same_v<R, __m256>) {
        return B(_mm256_and_ps(x, m));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        return B(_mm256_and_pd(x, m));
#endif
      } else {
        return xsimd::select(m, x, B(Real(0)));  // AVX-512 mask registers
      }
    }
    // The mask as bits, lane l = bit l (movemask, or the AVX-512 mask register itself).
    static std::uint64_t bits(M m) {
      using R = typename M::register_type;
      const R r = m;
      if constexpr (std::is_same_v<R, __m128>) {
        return std::uint64_t(_mm_movemask_ps(r));
      } else if constexpr (std::is_same_v<R, __m128d>) {
        return std::uint64_t(_mm_movemask_pd(r));
#ifdef __AVX__
      } else if constexpr (std::is_same_v<R, __m256>) {
        return std::uint64_t(_mm256_movemask_ps(r));
      } else if constexpr (std::is_same_v<R, __m256d>) {
        return std::uint64_t(_mm256_movemask_pd(r));
#endif
      } else {
        return std::uint64_t(r);  // __mmask8 / __mmask16
      }
    }
    // The kGroup values q[0 .. 4) in both halves of an 8-wide register (one broadcast load).
    static B load_quad2(const Real* q) {
      static_assert(W == kHalf, "load_quad2 is for 8-wide packs");
#ifdef __AVX__
      if constexpr (std::is_same_v<Real, float>)
        return B(_mm256_broadcast_ps(reinterpret_cast<const __m128*>(q)));
#endif
#ifdef __AVX512F__
      if constexpr (std::is_same_v<Real, double>)
        return B(_mm512_broadcast_f64x4(_mm256_loadu_pd(q)));
#endif
      alignas(64) Real t[W];
      for (int l = 0; l < W; ++l) t[l] = q[l % kGroup];
      return B::load_aligned(t);
    }
    // qa[0 .. 4) in lanes 0-3 and 4-7, qb[0 .. 4) in lanes 8-11 and 12-15 (a 16-wide pack: two
    // entries of a pair's list in one register).
    static B load_quad4(const Real* qa, const Real* qb) {
      static_assert(W == kTile, "load_quad4 is for 16-wide packs");
#ifdef __AVX512F__
      if constexpr (std::is_same_v<Real, float>) {
        const __m512 a = _mm512_broadcast_f32x4(_mm_loadu_ps(qa));
        return B(_mm512_mask_broadcast_f32x4(a, __mmask16(0xFF00), _mm_loadu_ps(qb)));
      }
#endif
      alignas(64) Real t[W];
      for (int l = 0; l < W; ++l) t[l] = l < kHalf ? qa[l % kGroup] : qb[l % kGroup];
      return B::load_aligned(t);
    }
    // copy_group_scalar (cluster_rule.hpp) in 4-wide registers: the same values.
    // Reads up to kGroup - 1 slots past the m boids (the store's padding, GridView).
    template <bool Shift>
    static void copy_group(Real* dp, Real* dv, const Real* sp, const Real* sv, std::uint32_t m,
                           Real sh, Real& lo, Real& hi) {
      alignas(16) static constexpr std::int32_t kMask[kGroup + 1][4] = {
          {0, 0, 0, 0}, {-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}, {-1, -1, -1, -1}};
      if constexpr (std::is_same_v<Real, float>) {
        const __m128 mk =
            _mm_castsi128_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(kMask[m])));
        const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
        __m128 q = _mm_loadu_ps(sp);
        if constexpr (Shift) q = _mm_add_ps(q, _mm_set1_ps(sh));
        const __m128 ql = _mm_blendv_ps(inf, q, mk);  // padding +inf: out of every min
        const __m128 qh = _mm_blendv_ps(_mm_sub_ps(_mm_setzero_ps(), inf), q, mk);
        _mm_storeu_ps(dp, ql);
        _mm_storeu_ps(dv, _mm_and_ps(_mm_loadu_ps(sv), mk));
        __m128 a = _mm_min_ps(ql, _mm_shuffle_ps(ql, ql, _MM_SHUFFLE(2, 3, 0, 1)));
        a = _mm_min_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)));
        __m128 z = _mm_max_ps(qh, _mm_shuffle_ps(qh, qh, _MM_SHUFFLE(2, 3, 0, 1)));
        z = _mm_max_ps(z, _mm_shuffle_ps(z, z, _MM_SHUFFLE(1, 0, 3, 2)));
        lo = _mm_cvtss_f32(a);
        hi = _mm_cvtss_f32(z);
      } else {
        copy_group_scalar<Shift>(dp, dv, sp, sv, m, sh, lo, hi);
      }
    }
    // ClusterPrune::compress for a 16-wide pack: base + l for every set bit l of `bits`, in
    // order, into out (one register compress; writes 16 entries); returns the count.
#ifdef __AVX512F__
    static constexpr bool has_compress16 = W == kTile;
    static std::uint32_t compress16(std::uint64_t bits, std::uint32_t base, std::uint32_t* out) {
      const __m512i idx =
          _mm512_add_epi32(_mm512_set1_epi32(int(base)),
                           _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
      _mm512_storeu_si512(out, _mm512_maskz_compress_epi32(__mmask16(bits), idx));
      return std::uint32_t(__builtin_popcount(unsigned(bits & 0xFFFFu)));
    }
#else
    static constexpr bool has_compress16 = false;
#endif
    // The tile's lane tree (StandardRule::finish: x_l = lane l + lane 8 + l, then
    // (x0 + x1) + (x2 + x3) for i-boid 0 in lanes 0-3 and i-boid 1 in lanes 4-7) for Q sums at
    // once, into out[e][q]. An 8-wide x holds the x_l already (the caller added the halves); a
    // 16-wide one has its halves added here. vhaddps adds neighbouring lanes within each
    // 128-bit half, so two rounds do exactly the tree's additions.
#ifdef __AVX__
    static constexpr bool has_tile_tree = (W == kHalf || W == kTile) && std::is_same_v<Real, float>;
    static __m256 halves(B x) {
#ifdef __AVX512F__
      if constexpr (W == kTile) {
        const __m512 z = x;
        return _mm256_add_ps(_mm512_castps512_ps256(z),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)));
      }
#endif
      if constexpr (W == kHalf) return __m256(x);
      return _mm256_setzero_ps();  // not reached: has_tile_tree is false
    }
    template <int Q>
    static void tile_tree(const B (&x)[Q], Real (&out)[2][Q]) {
      constexpr int NG = (Q + 3) / 4;
      alignas(32) float lane[NG][8];
      const __m256 zero = _mm256_setzero_ps();
      for (int k = 0; k < NG; ++k) {
        __m256 y[4];
        for (int j = 0; j < 4; ++j) y[j] = 4 * k + j < Q ? halves(x[4 * k + j]) : zero;
        _mm256_store_ps(lane[k],
                        _mm256_hadd_ps(_mm256_hadd_ps(y[0], y[1]), _mm256_hadd_ps(y[2], y[3])));
      }
      for (int q = 0; q < Q; ++q) {
        out[0][q] = lane[q / 4][q % 4];
        out[1][q] = lane[q / 4][4 + q % 4];
      }
    }
#else
    static constexpr bool has_tile_tree = false;
#endif
    // x in lanes 0-3, y in lanes 4-7 of an 8-wide register (and 8-11, 12-15 of a 16-wide one).
    static B splat2(Real x, Real y) {
      static_assert(W == kHalf || W == kTile, "splat2 is for 8- and 16-wide packs");
#ifdef __AVX512F__
      if constexpr (std::is_same_v<Real, float> && W == kTile)
        return B(_mm512_mask_blend_ps(__mmask16(0xF0F0), _mm512_set1_ps(x), _mm512_set1_ps(y)));
#endif
#ifdef __AVX__
      if constexpr (std::is_same_v<Real, float> && W == kHalf)
        return B(_mm256_set_m128(_mm_set1_ps(y), _mm_set1_ps(x)));
#endif
#ifdef __AVX512F__
      if constexpr (std::is_same_v<Real, double>)
        return B(_mm512_insertf64x4(_mm512_set1_pd(x), _mm256_set1_pd(y), 1));
#endif
      alignas(64) Real t[W];
      for (int l = 0; l < W; ++l) t[l] = l % kHalf < kGroup ? x : y;
      return B::load_aligned(t);
    }
    // The count lanes as 64-bit integers, lane l into out[l].
    static void kstore(std::int64_t* out, typename Base::K k) {
      using KI = typename Base::KI;
      KI lane[W];
      std::memcpy(lane, &k, sizeof(lane));
      for (int l = 0; l < W; ++l) out[l] = lane[l];
    }
  };
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
