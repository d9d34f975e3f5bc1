// The topological gather for xsimd::avx2, compiled with this instruction set's flags only
// (parallel/CMakeLists.txt).
#include "parallel/list_gather_impl.hpp"
#include "parallel/pair_packs.hpp"

namespace boids::list_detail {

void list_gather_avx2(GatherTable<float>& f, GatherTable<double>& d) {
  fill_gather_table<SimdPairPacks<xsimd::avx2>::Pack, float>(f);
  fill_gather_table<SimdPairPacks<xsimd::avx2>::Pack, double>(d);
}

}  // namespace boids::list_detail
