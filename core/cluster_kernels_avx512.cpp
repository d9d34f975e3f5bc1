// Cluster kernels for xsimd::avx512f, compiled with this instruction set's flags only
// (core/CMakeLists.txt).
#include "core/cluster_kernels_simd.hpp"

namespace boids {

void cluster_table_avx512(ClusterTable<float>& f, ClusterTable<double>& d) {
  // A tile has 8 lanes: float runs on the 8-wide (AVX2) pack, double on the 8-wide AVX-512 one.
  cluster_detail::fill_table<cluster_detail::ClusterPacks<xsimd::avx2>::Pack, float>(f);
  cluster_detail::fill_table<cluster_detail::ClusterPacks<xsimd::avx512f>::Pack, double>(d);
}

}  // namespace boids
