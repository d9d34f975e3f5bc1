// Kernels for xsimd::avx2, compiled with this instruction set's flags only (core/CMakeLists.txt).
#include "core/kernels_simd.hpp"

namespace boids {

void kernel_table_avx2(KernelTable<float>& f, KernelTable<double>& d) {
  using Packs = kernels_detail::XsimdPacks<xsimd::avx2>;
  kernels_detail::fill_table<Packs::Pack, float>(f);
  kernels_detail::fill_table<Packs::Pack, double>(d);
}

}  // namespace boids
