// The xsimd pack of the cluster kernels: the row kernels' pack (kernels_simd.hpp) plus what
// the cluster kernel needs (cluster_kernels_impl.hpp). Included by cluster_kernels_<isa>.cpp,
// each compiled with its own -m flags (core/CMakeLists.txt).
#pragma once

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
    static int count(M m) { return __builtin_popcountll(bits(m)); }
    // W / kGroup groups of kGroup values, group k into lanes kGroup * k ... (W >= kGroup).
    static B load_quads(const Real* const* q) {
      if constexpr (W == kGroup) {
        return B::load_unaligned(q[0]);
#ifdef __AVX__
      } else if constexpr (W == 8 && std::is_same_v<Real, float>) {
        return B(_mm256_set_m128(_mm_loadu_ps(q[1]), _mm_loadu_ps(q[0])));
#endif
#ifdef __AVX512F__
      } else if constexpr (W == 16 && std::is_same_v<Real, float>) {
        __m512 r = _mm512_castps128_ps512(_mm_loadu_ps(q[0]));
        r = _mm512_insertf32x4(r, _mm_loadu_ps(q[1]), 1);
        r = _mm512_insertf32x4(r, _mm_loadu_ps(q[2]), 2);
        return B(_mm512_insertf32x4(r, _mm_loadu_ps(q[3]), 3));
      } else if constexpr (W == 8 && std::is_same_v<Real, double>) {
        const __m512d r = _mm512_castpd256_pd512(_mm256_loadu_pd(q[0]));
        return B(_mm512_insertf64x4(r, _mm256_loadu_pd(q[1]), 1));
#endif
      } else {
        static_assert(W == 0, "no quad load for this pack");
      }
    }
  };
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
