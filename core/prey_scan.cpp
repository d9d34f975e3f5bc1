// Run-time choice of the prey scan's instruction set (dispatched_isa in core/kernels.cpp,
// capped by BOIDS_MAX_ISA).
#include "core/prey_scan.hpp"

namespace boids {
namespace {

struct PreyTables {
  PreyScanTable<float> f[4] = {};
  PreyScanTable<double> d[4] = {};
  // Each table is filled by code compiled for its own instruction set, so only the sets this
  // CPU has are filled.
  PreyTables() {
    prey_scan_scalar(f[0], d[0]);
#if !defined(BOIDS_DISABLE_SIMD) && (defined(__x86_64__) || defined(_M_X64))
    __builtin_cpu_init();
#if defined(BOIDS_HAVE_SSE42)
    if (__builtin_cpu_supports("sse4.2")) prey_scan_sse42(f[1], d[1]);
#endif
#if defined(BOIDS_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2")) prey_scan_avx2(f[2], d[2]);
#endif
#if defined(BOIDS_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f")) prey_scan_avx512(f[3], d[3]);
#endif
#endif
  }
};

const PreyTables& prey_tables() {
  static const PreyTables t;
  return t;
}

}  // namespace

template <class Real>
PreyScanFn<Real> select_prey_scan(int dims, bool wrap) {
  const PreyTables& t = prey_tables();
  // A table left empty (an instruction set this build has no unit for): the next lower one.
  for (int i = int(dispatched_isa(true));; --i) {
    PreyScanFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].fn[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    else
      k = t.d[i].fn[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template PreyScanFn<float> select_prey_scan<float>(int, bool);
template PreyScanFn<double> select_prey_scan<double>(int, bool);

}  // namespace boids
