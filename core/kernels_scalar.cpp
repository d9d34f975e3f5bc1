// The scalar kernels: the same code as the SIMD ones over a one-lane "pack", so they sum in
// the same virtual lanes and give bit-identical results (core/kernels.hpp). Also the fallback
// on CPUs without SSE4.2 and in BOIDS_DISABLE_SIMD builds.
#include <cmath>
#include <cstdint>

#include "core/kernels_table_impl.hpp"

namespace boids {
namespace {

template <class Real>
struct ScalarPack {
  using B = Real;
  using M = bool;
  static constexpr int W = 1;
  static B load(const Real* p) { return *p; }
  static B loadu(const Real* p) { return *p; }
  static void storeu(Real* p, B a) { *p = a; }
  static B splat(Real x) { return x; }
  static M lane_lt(int k) { return 0 < k; }
  static M lane_ne(int k) { return k != 0; }
  static B add_if(B a, M m, B x) { return m ? a + x : a; }
  static B sub_if(B a, M m, B x) { return m ? a - x : a; }
  static bool any(M m) { return m; }
  static M and_(M a, M b) { return a && b; }
  static M or_(M a, M b) { return a || b; }
  static B sel(M m, B a, B b) { return m ? a : b; }
  static B sqrt(B a) { return std::sqrt(a); }
  static B round(B a) { return std::nearbyint(a); }
  static void store(Real* p, B a) { *p = a; }
  using K = std::int32_t;  // the neighbour count
  static K kzero() { return 0; }
  static K count_if(K k, M m) { return m ? k + 1 : k; }
  static std::int64_t ksum(K k) { return k; }
};

}  // namespace

void kernel_table_scalar(KernelTable<float>& f, KernelTable<double>& d) {
  kernels_detail::fill_table<ScalarPack, float>(f);
  kernels_detail::fill_table<ScalarPack, double>(d);
}

}  // namespace boids
