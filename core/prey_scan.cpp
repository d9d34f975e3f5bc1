// Run-time choice of the prey scan's instruction set (dispatched_isa in core/kernels.cpp,
// capped by BOIDS_MAX_ISA).
#include "core/prey_scan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
PreyScanFn<Real> select_prey_scan(Isa isa, int dims, bool wrap) {
  const PreyTables& t = prey_tables();
  // A table left empty (an instruction set this build has no unit for): the next lower one.
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    PreyScanFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].fn[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    else
      k = t.d[i].fn[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template <class Real>
PreySweepFn<Real> select_prey_sweep(Isa isa, int dims, bool wrap) {
  const PreyTables& t = prey_tables();
  for (int i = int(std::min(isa, dispatched_isa(true)));; --i) {
    PreySweepFn<Real> k;
    if constexpr (sizeof(Real) == 4)
      k = t.f[i].sweep[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    else
      k = t.d[i].sweep[dims == 2 ? 0 : 1][wrap ? 1 : 0];
    if (k || i == 0) return k;
  }
}

template <class Real>
std::size_t prey_views(const PreyScanArgs<Real>& a, int dims, bool wrap,
                       const PreySweepPred<Real>* preds, std::size_t np,
                       const std::vector<PreySweepTask>& tasks, PreyScanResult<Real>* out) {
  for (std::size_t k = 0; k < np; ++k) {
    out[k] = PreyScanResult<Real>{};
    out[k].best2 = std::numeric_limits<Real>::infinity();
  }
  // Scratch per thread, kept from call to call (fresh pages cost more than the sort).
  thread_local std::vector<std::uint8_t> bad;
  thread_local std::vector<std::uint32_t> start;
  thread_local std::vector<PreySweepTask> sorted;
  bad.assign(np, 0);
  const PreySweepFn<Real> sweep = select_prey_sweep<Real>(a.isa, dims, wrap);
  if (sweep) {
    // Counting sort by the first slot in buckets of 2^kShift slots (a few cells of a row): the
    // tasks that share a row then run one after another.
    constexpr int kShift = 8;
    std::uint32_t top = 0;
    for (const PreySweepTask& t : tasks) top = std::max(top, t.begin >> kShift);
    start.assign(std::size_t(top) + 2, 0);
    for (const PreySweepTask& t : tasks) ++start[(t.begin >> kShift) + 1];
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    sorted.resize(tasks.size());
    for (const PreySweepTask& t : tasks) sorted[start[t.begin >> kShift]++] = t;
    sweep(a, preds, sorted.data(), sorted.size(), out, bad.data());
    // Every partial sum below 2^23 (the top of core/prey_scan.hpp), as scan_pass checks.
    const double reach = std::sqrt(double(a.radius2)) * 1.001 + 1.0;
    for (std::size_t k = 0; k < np; ++k) {
      if (double(out[k].prey) * reach > 4194304.0) bad[k] = 1;
      if (!bad[k]) out[k].best_id = out[k].prey > 0 ? a.id[out[k].best_slot] : 0;
    }
  } else {
    std::fill(bad.begin(), bad.end(), std::uint8_t(1));
  }
  // The flagged predators: their ranges in ascending order, through the scan.
  if (std::find(bad.begin(), bad.end(), std::uint8_t(1)) == bad.end()) return 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> again;  // (pred, task)
  for (std::uint32_t i = 0; i < tasks.size(); ++i)
    if (bad[tasks[i].pred]) again.emplace_back(tasks[i].pred, i);
  if (again.empty()) return 0;
  std::sort(again.begin(), again.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : tasks[x.second].begin < tasks[y.second].begin;
  });
  const PreyScanFn<Real> scan = select_prey_scan<Real>(a.isa, dims, wrap);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  PreyScanArgs<Real> q = a;
  std::size_t flagged = 0;
  for (std::size_t i = 0; i < again.size();) {
    const std::uint32_t k = again[i].first;
    ranges.clear();
    for (; i < again.size() && again[i].first == k; ++i)
      ranges.emplace_back(tasks[again[i].second].begin, tasks[again[i].second].end);
    for (int c = 0; c < 3; ++c) {
      q.ap[c] = preds[k].p[c];
      q.av[c] = preds[k].v[c];
    }
    q.av_len = preds[k].v_len;
    out[k] = PreyScanResult<Real>{};
    scan(q, ranges.data(), ranges.size(), out[k]);
    ++flagged;
  }
  return flagged;
}

template PreyScanFn<float> select_prey_scan<float>(Isa, int, bool);
template PreyScanFn<double> select_prey_scan<double>(Isa, int, bool);
template PreySweepFn<float> select_prey_sweep<float>(Isa, int, bool);
template PreySweepFn<double> select_prey_sweep<double>(Isa, int, bool);
template std::size_t prey_views<float>(const PreyScanArgs<float>&, int, bool,
                                       const PreySweepPred<float>*, std::size_t,
                                       const std::vector<PreySweepTask>&, PreyScanResult<float>*);
template std::size_t prey_views<double>(const PreyScanArgs<double>&, int, bool,
                                        const PreySweepPred<double>*, std::size_t,
                                        const std::vector<PreySweepTask>&, PreyScanResult<double>*);

}  // namespace boids
