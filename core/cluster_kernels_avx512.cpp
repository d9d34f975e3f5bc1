// Cluster kernels for xsimd::avx512f, compiled with this instruction set's flags only
// (core/CMakeLists.txt).
#include "core/cluster_kernels_simd.hpp"

namespace boids {

void cluster_table_avx512(ClusterTable<float>& f, ClusterTable<double>& d) {
  // A tile has 16 lanes: one float register, two double ones.
  cluster_detail::fill_table<cluster_detail::ClusterPacks<xsimd::avx512f>::Pack, float>(f);
  cluster_detail::fill_table<cluster_detail::ClusterPacks<xsimd::avx512f>::Pack, double>(d);
}

}  // namespace boids
