// Machine probe compiled for avx512f (flags from bench/CMakeLists.txt).
#include <xsimd/xsimd.hpp>

#include "bench/probe_kernel.hpp"

namespace boids::bench::probe {

double sweeps_avx512(bool f64, int dims, int sweeps) {
  if (f64) {
    static const ProbeData<double> d;
    using B = xsimd::batch<double, xsimd::avx512f>;
    return dims == 2 ? run_simd<B, 2>(d, sweeps) : run_simd<B, 3>(d, sweeps);
  }
  static const ProbeData<float> d;
  using B = xsimd::batch<float, xsimd::avx512f>;
  return dims == 2 ? run_simd<B, 2>(d, sweeps) : run_simd<B, 3>(d, sweeps);
}

}  // namespace boids::bench::probe
