// The metrics pair pass for xsimd::sse4_2, compiled with this instruction set's flags only
// (parallel/CMakeLists.txt).
#include "core/simd_packs.hpp"
#include "parallel/metrics_pairs_impl.hpp"

namespace boids::metrics_detail {

void metrics_pairs_sse42(PairTable<float>& f, PairTable<double>& d) {
  fill_pair_table<SimdPairPacks<xsimd::sse4_2>::Pack, float>(f);
  fill_pair_table<SimdPairPacks<xsimd::sse4_2>::Pack, double>(d);
}

}  // namespace boids::metrics_detail
