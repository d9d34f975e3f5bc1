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
  static void store(Real* p, B a) { *p = a; }
  static void storeu(Real* p, B a) { *p = a; }
  using K = std::int32_t;  // the neighbour count of one lane
  static K kzero() { return 0; }
  static K count_if(K k, M m) { return m ? k + 1 : k; }
  static void kstore(std::int64_t* out, K k) { *out = k; }
  template <bool Shift>
  static void copy_group(Real* dp, Real* dv, const Real* sp, const Real* sv, std::uint32_t m,
                         Real sh, Real& lo, Real& hi) {
    cluster_detail::copy_group_scalar<Shift>(dp, dv, sp, sv, m, sh, lo, hi);
  }
};

}  // namespace

void cluster_table_scalar(ClusterTable<float>& f, ClusterTable<double>& d) {
  cluster_detail::fill_table<ScalarPack, float>(f);
  cluster_detail::fill_table<ScalarPack, double>(d);
}

}  // namespace boids
