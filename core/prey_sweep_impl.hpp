// The sweep (core/prey_scan.hpp, PreySweepFn): many predators' ranges in the tasks' order, one
// task at a time, over a pack P. Included by core/prey_scan_impl.hpp only (after the scan's
// helpers: image, other_kinds, mark_if_seen), so each instruction-set unit keeps its own copy.
//
// A task runs the unordered pass of scan_pass() (core/prey_scan_impl.hpp) over its one range,
// with the same operations per vector, so every lane's offset, squared distance, view test and
// mark have the scan's bits. Its count, its lanes' double sums and its nearest are then merged
// into the predator's: counts add, the nearest is the minimum of (d2, id) (any order), and the
// sums add exactly where the predator's every visible offset is on the 2^-30 grid and its
// count bounded (prey_views() checks the bound; a task that sees an offset off the grid sets
// bad[pred]). A range holding another kind than 0 would need the scan's ordered pass: the task
// flags its predator and stops (prey_views() scans that predator again, marks included).
#pragma once

namespace boids {
namespace {
namespace prey_detail {

template <class P, class Real, int D, bool Wrap>
void sweep(const PreyScanArgs<Real>& a, const PreySweepPred<Real>* preds,
           const PreySweepTask* tasks, std::size_t nt, PreyScanResult<Real>* out,
           std::uint8_t* bad_out) {
  using B = typename P::B;
  using M = typename P::M;
  constexpr int W = P::W;
  const B r2 = P::splat(a.chase ? a.radius2 : Real(0));
  const B r2p = P::splat(a.flee ? a.prey_radius2 : Real(0));
  const B grid = P::splat(Real(1073741824.0));  // 2^30
  const B quarter = P::splat(a.size * Real(0.25));
  const B zero = P::splat(Real(0));
  alignas(64) Real buf[4][W];
  alignas(64) Real tail[3][W];
  // The positions of the task kAhead on are asked for now (a hint: no result changes). The
  // tasks run in slot order, so most of their lines are in cache already; the rest were the
  // sweep's stalls.
  constexpr std::size_t kAhead = 8;
  constexpr std::uint32_t kLine = 64 / sizeof(Real);  // slots per cache line
  for (std::size_t t = 0; t < nt; ++t) {
    if (t + kAhead < nt) {
      const std::uint32_t pb = tasks[t + kAhead].begin, pe = tasks[t + kAhead].end;
      for (int c = 0; c < D; ++c) {
        for (std::uint32_t i = pb; i < pe; i += kLine) __builtin_prefetch(a.p[c] + i);
        if (pe > pb) __builtin_prefetch(a.p[c] + (pe - 1));
      }
    }
    const PreySweepTask& task = tasks[t];
    const std::uint32_t begin = task.begin, end = task.end;
    // Below kind0_end every slot is of kind 0 (the grid engine's cells): no kind bytes read.
    const bool others =
        (a.chase || a.flee) && end > a.kind0_end && other_kinds(a.kind + begin, int(end - begin));
    if (a.chase && others) {  // the scan's ordered pass, for this predator's every range
      bad_out[task.pred] = 1;
      continue;
    }
    const PreySweepPred<Real>& pr = preds[task.pred];
    PreyScanResult<Real>& o = out[task.pred];
    const bool mark_all = a.prey_full_view && !others;
    const bool cone = !a.full_view && pr.v_len > Real(0);
    B ap[3];
    for (int c = 0; c < D; ++c) ap[c] = P::splat(pr.p[c]);
    M bad = zero != zero;  // all false
    std::int64_t count = 0;
    Real best2 = o.best2;
    std::uint32_t best_slot = o.best_slot;
    bool nearer = false;
    WideSum<P, Real> lane_sum[3];
    for (std::uint32_t i = begin; i < end; i += W) {
      const int len = end - i < std::uint32_t(W) ? int(end - i) : W;
      B x[3];
      prey_offsets<P, Real, D, Wrap>(a, i, len, ap, quarter, tail, x);
      B d2 = zero;
      for (int c = 0; c < D; ++c) d2 = d2 + x[c] * x[c];
      if (len < W)
        d2 = P::select(P::lane_lt(len), d2, P::splat(std::numeric_limits<Real>::quiet_NaN()));
      if (a.flee) {
        std::uint64_t fb = P::bits(d2 < r2p);
        while (fb) {
          const int l = std::countr_zero(fb);
          fb &= fb - 1;
          if (mark_all)
            std::atomic_ref<std::uint8_t>(a.seen[i + std::uint32_t(l)])
                .store(1, std::memory_order_relaxed);
          else
            mark_if_seen<Real, D, Wrap>(a, pr.p, i + std::uint32_t(l));
        }
      }
      if (!a.chase) continue;
      M vis = d2 < r2;
      if (cone) {
        B dv = zero;
        for (int c = 0; c < D; ++c) dv = dv + x[c] * P::splat(pr.v[c]);
        vis = P::and_(vis, dv >= P::sqrt(d2) * P::splat(pr.v_len) * P::splat(a.cos_half_view));
      }
      const std::uint64_t m = P::bits(vis);
      count += std::popcount(m);
      for (int c = 0; c < D; ++c) {
        const B xm = P::select(vis, x[c], zero);
        const B g = xm * grid;
        bad = P::or_(bad, P::round(g) != g);
        lane_sum[c].add(xm);
      }
      std::uint64_t nb = P::bits(P::and_(vis, d2 <= P::splat(best2)));
      if (nb) {
        for (int c = 0; c < D; ++c) P::storeu(buf[c], x[c]);
        P::storeu(buf[3], d2);
        while (nb) {
          const int l = std::countr_zero(nb);
          nb &= nb - 1;
          const std::uint32_t s = i + std::uint32_t(l);
          const Real dd = buf[3][l];
          if (dd < best2 || (dd == best2 && a.id[s] < a.id[best_slot])) {
            best2 = dd;
            best_slot = s;
            nearer = true;
            for (int c = 0; c < D; ++c) o.nearest_d[c] = buf[c][l];
          }
        }
      }
    }
    // Nothing in view: the lanes' sums are +0 and the offsets' grid untested (bad is only
    // set in view), so the merge would change nothing.
    if (!a.chase || count == 0) continue;
    if (P::bits(bad)) bad_out[task.pred] = 1;
    o.prey += std::int32_t(count);
    if (nearer) {
      o.best2 = best2;
      o.best_slot = best_slot;
    }
    for (int c = 0; c < D; ++c) o.sum[c] += lane_sum[c].total();
  }
}

}  // namespace prey_detail
}  // namespace
}  // namespace boids
