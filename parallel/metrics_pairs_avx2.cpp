// The metrics pair pass for xsimd::avx2, compiled with this instruction set's flags only
// (parallel/CMakeLists.txt).
#include "core/simd_packs.hpp"
#include "parallel/metrics_pairs_impl.hpp"

namespace boids::metrics_detail {

void metrics_pairs_avx2(PairTable<float>& f, PairTable<double>& d) {
  fill_pair_table<SimdPairPacks<xsimd::avx2>::Pack, float>(f);
  fill_pair_table<SimdPairPacks<xsimd::avx2>::Pack, double>(d);
}

}  // namespace boids::metrics_detail
