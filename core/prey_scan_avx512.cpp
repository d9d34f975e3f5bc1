// The prey scan for xsimd::avx512f, compiled with this instruction set's flags only
// (core/CMakeLists.txt).
#include "core/prey_scan_impl.hpp"

namespace boids {

void prey_scan_avx512(PreyScanTable<float>& f, PreyScanTable<double>& d) {
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::avx512f>::Pack, float>(f);
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::avx512f>::Pack, double>(d);
}

}  // namespace boids
