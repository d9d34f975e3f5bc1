// The topological gather over a one-lane pack: the fallback without SSE4.2, in
// BOIDS_DISABLE_SIMD builds and under BOIDS_MAX_ISA=scalar. Same results as the SIMD units.
#include "core/simd_packs.hpp"
#include "parallel/list_gather_impl.hpp"

namespace boids::list_detail {

void list_gather_scalar(GatherTable<float>& f, GatherTable<double>& d) {
  fill_gather_table<ScalarPairPack, float>(f);
  fill_gather_table<ScalarPairPack, double>(d);
}

}  // namespace boids::list_detail
