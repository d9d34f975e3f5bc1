// The prey scan over a one-lane pack: the fallback without SSE4.2, in BOIDS_DISABLE_SIMD
// builds and under BOIDS_MAX_ISA=scalar. Same results as the SIMD units.
#include "core/prey_scan_impl.hpp"

namespace boids {

void prey_scan_scalar(PreyScanTable<float>& f, PreyScanTable<double>& d) {
  prey_detail::fill_prey_table<prey_detail::OneLane, float>(f);
  prey_detail::fill_prey_table<prey_detail::OneLane, double>(d);
}

}  // namespace boids
