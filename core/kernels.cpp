// Run-time choice of the kernel instruction set.
#include "core/kernels.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace boids {

const char* isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::sse42:
      return "sse4.2";
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
    default:
      return "scalar";
  }
}

namespace {

Isa cpu_isa() noexcept {
#if defined(BOIDS_DISABLE_SIMD) || !(defined(__x86_64__) || defined(_M_X64))
  return Isa::scalar;
#else
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2")) return Isa::avx2;
  if (__builtin_cpu_supports("sse4.2")) return Isa::sse42;
  return Isa::scalar;
#endif
}

// Whether this build compiled the kernel units of `isa` (BOIDS_SIMD_ISAS in CMake; the
// sanitizer builds of scripts/test.sh leave some out). Every set gives the same bits, so a
// set the build lacks is replaced by the best one below it.
constexpr bool built(Isa isa) noexcept {
  switch (isa) {
    case Isa::sse42:
#if defined(BOIDS_HAVE_SSE42)
      return true;
#else
      return false;
#endif
    case Isa::avx2:
#if defined(BOIDS_HAVE_AVX2)
      return true;
#else
      return false;
#endif
    case Isa::avx512:
#if defined(BOIDS_HAVE_AVX512)
      return true;
#else
      return false;
#endif
    default:
      return true;
  }
}

Isa env_cap() noexcept {
  const char* e = std::getenv("BOIDS_MAX_ISA");
  if (!e) return Isa::avx512;
  for (Isa i : {Isa::scalar, Isa::sse42, Isa::avx2, Isa::avx512})
    if (std::strcmp(e, isa_name(i)) == 0) return i;
  return Isa::avx512;
}

// Each table is filled by code compiled with its own instruction set's flags (the compiler may
// store the pointers with, say, AVX-512 moves), so only the sets this CPU runs are filled; the
// others stay empty and table_for() never reaches them.
struct Tables {
  KernelTable<float> f[4] = {};
  KernelTable<double> d[4] = {};
  // Each table is filled by code compiled for its own instruction set (the compiler may use
  // that set's registers even to store function pointers), so only the sets this CPU has
  // are touched: an AVX-512 filler run on an AVX2 machine dies of SIGILL.
  Tables() {
    kernel_table_scalar(f[0], d[0]);
#if !defined(BOIDS_DISABLE_SIMD) && (defined(__x86_64__) || defined(_M_X64))
    [[maybe_unused]] const Isa cpu = cpu_isa();  // unused when no SIMD set is built
#if defined(BOIDS_HAVE_SSE42)
    if (cpu >= Isa::sse42) kernel_table_sse42(f[1], d[1]);
#endif
#if defined(BOIDS_HAVE_AVX2)
    if (cpu >= Isa::avx2) kernel_table_avx2(f[2], d[2]);
#endif
#if defined(BOIDS_HAVE_AVX512)
    if (cpu >= Isa::avx512) kernel_table_avx512(f[3], d[3]);
#endif
#endif
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

Isa dispatched_isa(bool simd) noexcept {
  if (!simd) return Isa::scalar;
  static const Isa cpu = cpu_isa();
  const Isa cap = env_cap();
  Isa isa = cpu < cap ? cpu : cap;
  while (!built(isa)) isa = Isa(int(isa) - 1);
  return isa;
}

namespace {
// The table of the best instruction set up to `isa` that this binary and CPU have.
template <class Real>
const KernelTable<Real>& table_for(Isa isa) {
  if (isa > dispatched_isa(true)) isa = dispatched_isa(true);
  if constexpr (sizeof(Real) == 4)
    return tables().f[int(isa)];
  else
    return tables().d[int(isa)];
}
}  // namespace

template <class Real>
RowKernel<Real> select_row_kernel(Isa isa, int dims, WrapMode wrap, bool full_view) {
  return table_for<Real>(isa).row[dims == 2 ? 0 : 1][int(wrap)][full_view ? 1 : 0];
}

template <class Real>
RowKernel<Real> select_row_kernel_nn(Isa isa, int dims, WrapMode wrap, bool full_view) {
  if (wrap == WrapMode::min_image) return nullptr;
  return table_for<Real>(isa).row_nn[dims == 2 ? 0 : 1][int(wrap)][full_view ? 1 : 0];
}

template <class Real>
FinishRow<Real> select_finish_row(Isa isa, int dims, Boundary boundary) {
  return table_for<Real>(isa).finish[dims == 2 ? 0 : 1][int(boundary)];
}

SinCosN select_sin_cos_n(Isa isa) { return table_for<double>(isa).sin_cos_n; }
CbrtN select_cbrt_n(Isa isa) { return table_for<double>(isa).cbrt_n; }
WanderDrawsN select_wander_draws_n(Isa isa) { return table_for<double>(isa).wander_draws_n; }

namespace {
std::atomic<std::uint64_t> g_pair_runs{0};
}  // namespace

std::uint64_t kernel_pair_runs() { return g_pair_runs.load(std::memory_order_relaxed); }
void count_pair_runs(std::uint64_t n) { g_pair_runs.fetch_add(n, std::memory_order_relaxed); }

template <class Real>
void grow_scratch(KernelScratch<Real>& scratch, std::size_t reals, std::size_t indices) {
  if (scratch.buf.size() < reals) scratch.buf.resize(reals);
  if (scratch.idx.size() < indices) scratch.idx.resize(indices);
}

template void grow_scratch(KernelScratch<float>&, std::size_t, std::size_t);
template void grow_scratch(KernelScratch<double>&, std::size_t, std::size_t);
template RowKernel<float> select_row_kernel<float>(Isa, int, WrapMode, bool);
template RowKernel<double> select_row_kernel<double>(Isa, int, WrapMode, bool);
template RowKernel<float> select_row_kernel_nn<float>(Isa, int, WrapMode, bool);
template RowKernel<double> select_row_kernel_nn<double>(Isa, int, WrapMode, bool);
template FinishRow<float> select_finish_row<float>(Isa, int, Boundary);
template FinishRow<double> select_finish_row<double>(Isa, int, Boundary);

}  // namespace boids
