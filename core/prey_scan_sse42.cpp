// The prey scan for xsimd::sse4_2, compiled with this instruction set's flags only
// (core/CMakeLists.txt).
#include "core/prey_scan_impl.hpp"

namespace boids {

void prey_scan_sse42(PreyScanTable<float>& f, PreyScanTable<double>& d) {
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::sse4_2>::Pack, float>(f);
  prey_detail::fill_prey_table<prey_detail::Lanes<xsimd::sse4_2>::Pack, double>(d);
}

}  // namespace boids
