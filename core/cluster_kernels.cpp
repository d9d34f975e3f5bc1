// Run-time choice of the cluster kernels' instruction set (the same choice as the row
// kernels': dispatched_isa in kernels.cpp).
#include "core/cluster_kernels.hpp"

#include <atomic>

namespace boids {
namespace {

struct ClusterTables {
  ClusterTable<float> f[4] = {};
  ClusterTable<double> d[4] = {};
  // Each table is filled by code compiled for its own instruction set (which may use that
  // set's registers even to store pointers), so only the sets this CPU has are filled.
  ClusterTables() {
    cluster_table_scalar(f[0], d[0]);
#if !defined(BOIDS_DISABLE_SIMD) && (defined(__x86_64__) || defined(_M_X64))
    __builtin_cpu_init();
#if defined(BOIDS_HAVE_SSE42)
    if (__builtin_cpu_supports("sse4.2")) cluster_table_sse42(f[1], d[1]);
#endif
#if defined(BOIDS_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2")) cluster_table_avx2(f[2], d[2]);
#endif
#if defined(BOIDS_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f")) cluster_table_avx512(f[3], d[3]);
#endif
#endif
  }
};

const ClusterTables& cluster_tables() {
  static const ClusterTables t;
  return t;
}

}  // namespace

template <class Real>
RowKernel<Real> select_cluster_kernel(Isa isa, int dims, WrapMode wrap, bool full_view) {
  if (isa > dispatched_isa(true)) isa = dispatched_isa(true);
  const ClusterTables& t = cluster_tables();
  int i = int(isa);
  // A table left empty (an instruction set this build has no unit for): the next lower one.
  for (;; --i) {
    RowKernel<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].row[dims == 2 ? 0 : 1][int(wrap)][full_view ? 1 : 0];
    else
      k = t.d[i].row[dims == 2 ? 0 : 1][int(wrap)][full_view ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template <class Real>
void cluster_keep_row(KernelScratch<Real>& scratch, std::uint32_t row) {
  if (row != KernelScratch<Real>::kNoPrevRow) {
    scratch.buf.swap(scratch.prev_buf);
    scratch.idx.swap(scratch.prev_idx);
  }
  scratch.prev_row = row;
}

namespace {
std::atomic<std::uint64_t> g_slid_rows{0};
}  // namespace

std::uint64_t cluster_slid_rows() { return g_slid_rows.load(std::memory_order_relaxed); }
void count_slid_rows(std::uint64_t n) { g_slid_rows.fetch_add(n, std::memory_order_relaxed); }

template void cluster_keep_row(KernelScratch<float>&, std::uint32_t);
template void cluster_keep_row(KernelScratch<double>&, std::uint32_t);
template RowKernel<float> select_cluster_kernel<float>(Isa, int, WrapMode, bool);
template RowKernel<double> select_cluster_kernel<double>(Isa, int, WrapMode, bool);

}  // namespace boids
