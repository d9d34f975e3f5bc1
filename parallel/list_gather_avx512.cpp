// The topological gather for xsimd::avx512f, compiled with this instruction set's flags only
// (parallel/CMakeLists.txt).
#include "core/simd_packs.hpp"
#include "parallel/list_gather_impl.hpp"

namespace boids::list_detail {

void list_gather_avx512(GatherTable<float>& f, GatherTable<double>& d) {
  fill_gather_table<SimdPairPacks<xsimd::avx512f>::Pack, float>(f);
  fill_gather_table<SimdPairPacks<xsimd::avx512f>::Pack, double>(d);
}

}  // namespace boids::list_detail
