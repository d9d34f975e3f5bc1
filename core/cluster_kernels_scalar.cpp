// The scalar cluster kernels: the same code as the SIMD ones over a one-lane pack, so they sum
// in the same virtual lanes and give bit-identical results (core/cluster_kernels.hpp).
#include <cmath>

#include "core/cluster_kernels_impl.hpp"

namespace boids {
namespace {

template <class Real>
struct ScalarPack {
  using B = Real;
  using M = bool;
  static constexpr int W = 1;
  static B load(const Real* p) { return *p; }
  static B loadu(const Real* p) { return *p; }
  static B splat(Real x) { return x; }
  static M lane_lt(int k) { return 0 < k; }
  static M lane_ne(int k) { return k != 0; }
  static B add_if(B a, M m, B x) { return m ? a + x : a; }
  static B sub_if(B a, M m, B x) { return m ? a - x : a; }
  static bool any(M m) { return m; }
  static M and_(M a, M b) { return a && b; }
  static B sqrt(B a) { return std::sqrt(a); }
  static B round(B a) { return std::nearbyint(a); }
  static B max(B a, B b) { return a > b ? a : b; }
  static std::uint64_t bits(M m) { return m ? 1u : 0u; }
  static int count(M m) { return m ? 1 : 0; }
  static void store(Real* p, B a) { *p = a; }
};

}  // namespace

void cluster_table_scalar(ClusterTable<float>& f, ClusterTable<double>& d) {
  cluster_detail::fill_table<ScalarPack, float>(f);
  cluster_detail::fill_table<ScalarPack, double>(d);
}

}  // namespace boids
