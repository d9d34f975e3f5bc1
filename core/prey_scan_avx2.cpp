// The prey scan for xsimd::avx2, compiled with this instruction set's flags only
// (core/CMakeLists.txt).
#include "core/prey_scan_impl.hpp"

namespace boids {

void prey_scan_avx2(PreyScanTable<float>& f, PreyScanTable<double>& d) {
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::avx2>::Pack, float>(f);
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::avx2>::Pack, double>(d);
}

}  // namespace boids
