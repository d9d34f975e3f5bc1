// The metrics pair pass over a one-lane "pack": the fallback on CPUs without SSE4.2, in
// BOIDS_DISABLE_SIMD builds, and under BOIDS_MAX_ISA=scalar. Same results as the SIMD units.
#include <cmath>
#include <cstdint>

#include "parallel/metrics_pairs_impl.hpp"

namespace boids::metrics_detail {
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

}  // namespace

void metrics_pairs_scalar(PairTable<float>& f, PairTable<double>& d) {
  fill_pair_table<ScalarPairPack, float>(f);
  fill_pair_table<ScalarPairPack, double>(d);
}

}  // namespace boids::metrics_detail
