// The topological gather for xsimd::sse4_2, compiled with this instruction set's flags only
// (parallel/CMakeLists.txt).
#include "core/simd_packs.hpp"
#include "parallel/list_gather_impl.hpp"

namespace boids::list_detail {

void list_gather_sse42(GatherTable<float>& f, GatherTable<double>& d) {
  fill_gather_table<SimdPairPacks<xsimd::sse4_2>::Pack, float>(f);
  fill_gather_table<SimdPairPacks<xsimd::sse4_2>::Pack, double>(d);
}

}  // namespace boids::list_detail
