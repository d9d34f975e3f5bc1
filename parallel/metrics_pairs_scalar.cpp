// The metrics pair pass over a one-lane "pack": the fallback on CPUs without SSE4.2, in
// BOIDS_DISABLE_SIMD builds, and under BOIDS_MAX_ISA=scalar. Same results as the SIMD units.
#include "core/simd_packs.hpp"
#include "parallel/metrics_pairs_impl.hpp"

namespace boids::metrics_detail {

void metrics_pairs_scalar(PairTable<float>& f, PairTable<double>& d) {
  fill_pair_table<ScalarPairPack, float>(f);
  fill_pair_table<ScalarPairPack, double>(d);
}

}  // namespace boids::metrics_detail
