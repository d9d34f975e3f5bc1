// Run-time choice of the metrics pair pass's instruction set (the engine's choice:
// dispatched_isa in core/kernels.cpp, capped by BOIDS_MAX_ISA).
#include "parallel/metrics_pairs.hpp"

namespace boids::metrics_detail {
namespace {

struct PairTables {
  PairTable<float> f[4] = {};
  PairTable<double> d[4] = {};
  // Each table is filled by code compiled for its own instruction set (which may use that
  // set's registers even to store pointers), so only the sets this CPU has are filled.
  PairTables() {
    metrics_pairs_scalar(f[0], d[0]);
#if !defined(BOIDS_DISABLE_SIMD) && (defined(__x86_64__) || defined(_M_X64))
    __builtin_cpu_init();
#if defined(BOIDS_HAVE_SSE42)
    if (__builtin_cpu_supports("sse4.2")) metrics_pairs_sse42(f[1], d[1]);
#endif
#if defined(BOIDS_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2")) metrics_pairs_avx2(f[2], d[2]);
#endif
#if defined(BOIDS_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f")) metrics_pairs_avx512(f[3], d[3]);
#endif
#endif
  }
};

const PairTables& pair_tables() {
  static const PairTables t;
  return t;
}

}  // namespace

template <class Real>
PairFn<Real> select_pair_fn(int dims, PairWrap wrap, bool cone) {
  const PairTables& t = pair_tables();
  // A table left empty (an instruction set this build has no unit for): the next lower one.
  for (int i = int(dispatched_isa(true));; --i) {
    PairFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].fn[dims == 2 ? 0 : 1][int(wrap)][cone ? 1 : 0];
    else
      k = t.d[i].fn[dims == 2 ? 0 : 1][int(wrap)][cone ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template <class Real>
LinkFn<Real> select_link_fn(int dims, PairWrap wrap) {
  const PairTables& t = pair_tables();
  for (int i = int(dispatched_isa(true));; --i) {
    LinkFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].link[dims == 2 ? 0 : 1][int(wrap)];
    else
      k = t.d[i].link[dims == 2 ? 0 : 1][int(wrap)];
    if (k || i == 0) return k;
  }
}

template <class Real>
TurnFn<Real> select_turn_fn() {
  const PairTables& t = pair_tables();
  for (int i = int(dispatched_isa(true));; --i) {
    TurnFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].turn;
    else
      k = t.d[i].turn;
    if (k || i == 0) return k;
  }
}

template <class Real>
MomentFn<Real> select_moment_fn(bool pass_b, int dims, bool wrap) {
  const PairTables& t = pair_tables();
  for (int i = int(dispatched_isa(true));; --i) {
    const PairTable<Real>* tab;
    if constexpr (sizeof(Real) == 4)
      tab = &t.f[i];
    else
      tab = &t.d[i];
    const MomentFn<Real> k = (pass_b ? tab->pass_b : tab->pass_a)[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template <class Real>
FusedFn<Real> select_fused_fn() {
  const PairTables& t = pair_tables();
  for (int i = int(dispatched_isa(true));; --i) {
    FusedFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].fused;
    else
      k = t.d[i].fused;
    if (k || i == 0) return k;
  }
}

template PairFn<float> select_pair_fn<float>(int, PairWrap, bool);
template PairFn<double> select_pair_fn<double>(int, PairWrap, bool);
template LinkFn<float> select_link_fn<float>(int, PairWrap);
template LinkFn<double> select_link_fn<double>(int, PairWrap);
template TurnFn<float> select_turn_fn<float>();
template TurnFn<double> select_turn_fn<double>();
template MomentFn<float> select_moment_fn<float>(bool, int, bool);
template MomentFn<double> select_moment_fn<double>(bool, int, bool);
template FusedFn<float> select_fused_fn<float>();
template FusedFn<double> select_fused_fn<double>();

}  // namespace boids::metrics_detail
