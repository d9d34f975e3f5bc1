// The xsimd pack used by kernels_sse42.cpp, kernels_avx2.cpp and kernels_avx512.cpp. Each of
// those files is compiled with its own -m flags (core/CMakeLists.txt) and names its arch.
#pragma once

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
    static B splat(Real x) { return B(x); }
    alignas(64) static constexpr Real iota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                  8, 9, 10, 11, 12, 13, 14, 15};
    static M lane_lt(int k) { return B::load_aligned(iota) < B(Real(k)); }
    static M lane_ne(int k) { return B::load_aligned(iota) != B(Real(k)); }
    static B select(M m, B a) { return xsimd::select(m, a, B(Real(0))); }
    static bool any(M m) { return xsimd::any(m); }
    static M and_(M a, M b) { return a && b; }
    static B sqrt(B a) { return xsimd::sqrt(a); }
    static B round(B a) { return xsimd::nearbyint(a); }
    static void store(Real* p, B a) { a.store_aligned(p); }
  };
};

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
