// Run-time choice of the neighbour-list gather's instruction set (dispatched_isa in
// core/kernels.cpp, capped by BOIDS_MAX_ISA).
#include "parallel/list_gather.hpp"

namespace boids::list_detail {
namespace {

struct GatherTables {
  GatherTable<float> f[4] = {};
  GatherTable<double> d[4] = {};
  // Each table is filled by code compiled for its own instruction set, so only the sets this
  // CPU has are filled.
  GatherTables() {
    list_gather_scalar(f[0], d[0]);
#if !defined(BOIDS_DISABLE_SIMD) && (defined(__x86_64__) || defined(_M_X64))
    __builtin_cpu_init();
#if defined(BOIDS_HAVE_SSE42)
    if (__builtin_cpu_supports("sse4.2")) list_gather_sse42(f[1], d[1]);
#endif
#if defined(BOIDS_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2")) list_gather_avx2(f[2], d[2]);
#endif
#if defined(BOIDS_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f")) list_gather_avx512(f[3], d[3]);
#endif
#endif
  }
};

const GatherTables& gather_tables() {
  static const GatherTables t;
  return t;
}

}  // namespace

template <class Real>
GatherFn<Real> select_gather_fn(Isa isa, int dims, WrapMode wrap) {
  const GatherTables& t = gather_tables();
  // A table left empty (an instruction set this build has no unit for): the next lower one.
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    GatherFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].fn[dims == 2 ? 0 : 1][int(wrap)];
    else
      k = t.d[i].fn[dims == 2 ? 0 : 1][int(wrap)];
    if (k || i == 0) return k;
  }
}

template <class Real>
OrderFn<Real> select_order_fn(Isa isa, bool small) {
  const GatherTables& t = gather_tables();
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    OrderFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].order[small ? 0 : 1];
    else
      k = t.d[i].order[small ? 0 : 1];
    if (k || i == 0) return k;
  }
}

template <class Real>
SumFn<Real> select_sum_fn(Isa isa, int dims) {
  const GatherTables& t = gather_tables();
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    SumFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].sum[dims == 2 ? 0 : 1];
    else
      k = t.d[i].sum[dims == 2 ? 0 : 1];
    if (k || i == 0) return k;
  }
}

namespace {

// The table whose lane kernels run: the first filled one from the dispatched instruction set
// down. A unit may leave its lane kernels out on purpose (parallel/list_gather_impl.hpp), and
// then its gather runs alone.
template <class Real>
const GatherTable<Real>& lane_table(Isa isa) {
  const GatherTables& t = gather_tables();
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    const GatherTable<Real>* tab;
    if constexpr (sizeof(Real) == 4)
      tab = &t.f[i];
    else
      tab = &t.d[i];
    if (tab->fn[0][0] || i == 0) return *tab;
  }
}

// The lane tables' k classes: k < 4, k < 8, larger.
inline int k_class(int k) { return k < 4 ? 0 : k < 8 ? 1 : 2; }

}  // namespace

template <class Real>
LaneFn<Real> select_lane_fn(Isa isa, int dims, bool min_image, int k) {
  return lane_table<Real>(isa).lane[dims == 2 ? 0 : 1][min_image ? 1 : 0][k_class(k)];
}

template <class Real>
LaneFinishFn<Real> select_lane_finish_fn(Isa isa, int dims, bool min_image, int k) {
  return lane_table<Real>(isa).lane_finish[dims == 2 ? 0 : 1][min_image ? 1 : 0][k_class(k)];
}

template LaneFinishFn<float> select_lane_finish_fn<float>(Isa, int, bool, int);
template LaneFinishFn<double> select_lane_finish_fn<double>(Isa, int, bool, int);
template LaneFn<float> select_lane_fn<float>(Isa, int, bool, int);
template LaneFn<double> select_lane_fn<double>(Isa, int, bool, int);
template SumFn<float> select_sum_fn<float>(Isa, int);
template SumFn<double> select_sum_fn<double>(Isa, int);
template OrderFn<float> select_order_fn<float>(Isa, bool);
template OrderFn<double> select_order_fn<double>(Isa, bool);
template GatherFn<float> select_gather_fn<float>(Isa, int, WrapMode);
template GatherFn<double> select_gather_fn<double>(Isa, int, WrapMode);

}  // namespace boids::list_detail
