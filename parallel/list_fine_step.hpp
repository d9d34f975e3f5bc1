// The topological pass on its own grid (parallel/list_fine_grid.hpp has the scheme), for radii
// much larger than the k-th neighbour distance. Included by parallel/list_step.cpp only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/kernels.hpp"
#include "core/model.hpp"
#include "core/store.hpp"
#include "parallel/list_fine_grid.hpp"
#include "parallel/list_gather.hpp"
#include "parallel/list_topo.hpp"
#include "parallel/threading.hpp"

namespace boids::list_detail {

/// What the topological pass shares between its row pass and this one.
template <class Real>
struct TopoSetup {
  KindParams<Real> kp_seen;  // kind 0's rules with the view test off (the gather did it)
  GatherInput<Real> gin;
  OrderFn<Real> order_fn[2] = {};
  SumFn<Real> sum_fn = nullptr;  // nullptr: accumulate_pair boid by boid
  int k = 0, prune_k = 0;
};

/// The FlockSums of every kind-0 boid (slots [0, nb) of `in`, nb = g's boid count) into
/// sums[slot], through a FineGrid; false (nothing done) when the grid would not pay. Counts
/// the wider blocks scanned for boids the first block does not settle in `fallbacks`.
template <class Real, int D>
bool fine_topo_sums(const ModelParams<Real>& m, const GridView<Real>& g, const BoidStore<Real>& in,
                    const TopoSetup<Real>& ts, std::vector<FlockSums<Real>>& sums, Executor& ex,
                    std::atomic<std::uint64_t>& fallbacks) {
  const std::uint32_t nb = g.cell_start[g.ncells()];
  FineGrid<Real> fg;
  if (!fg.plan(g, in, nb, ts.k, m.boundary == Boundary::wrap, double(m.size))) return false;
  {
    std::vector<std::uint32_t> key;
    fg.build(in, nb, key);
  }
  const GatherFn<Real> fine_gather = select_gather_fn<Real>(
      m.isa, D, m.boundary == Boundary::wrap ? WrapMode::min_image : WrapMode::none);
  const double r = double(m.kind[0].radius);
  sums.resize(nb);
  const std::size_t nrows = std::size_t(fg.n[1]) * std::size_t(fg.n[2]);
  // Each x-row's block rows copied column by column (RowCopy, as the row pass does), so a
  // cell's candidates are one range of full batches; not where an axis of a wrapped box has
  // fewer than 3 cells (the block would hold a cell twice).
  GridView<Real> fv;
  bool copy = true;
  for (int c = 0; c < 3; ++c) {
    fv.p[c] = c < D ? fg.p[c].data() : nullptr;
    fv.n[c] = fg.n[c];
    fv.reach[c] = c < D ? 1 : 0;
    if (c < D && fg.wrap && fg.n[c] < 3) copy = false;
  }
  fv.dims = D;
  fv.cell_start = fg.start.data();
  const WrapMode fmode = fg.wrap ? WrapMode::min_image : WrapMode::none;
  fv.wrap = fmode;
  ex.parallel_for(nrows, 1, [&](std::size_t rb, std::size_t re) {
    RowCopy<Real> rc;
    GatherBuffers<Real> buf;
    std::vector<std::uint32_t> pick, ids;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_id;
    std::vector<FlockSums<Real>> row_sums;
    SumStaging<Real> stage;
    std::vector<CandidateRun<Real>> block, wide;
    CandidateRun<Real> one;
    GatherInput<Real> gi = ts.gin;
    const double edge = std::min({fg.w[0], D > 1 ? fg.w[1] : fg.w[0], D > 2 ? fg.w[2] : fg.w[0]});
    for (std::size_t row = rb; row < re; ++row) {
      const std::size_t c0 = row * std::size_t(fg.n[0]);
      const std::uint32_t row_first = fg.start[c0], row_last = fg.start[c0 + std::size_t(fg.n[0])];
      if (row_first == row_last) continue;
      if (ts.sum_fn) {
        stage.start(row_last - row_first);
        row_sums.resize(row_last - row_first);
      }
      const int cc[3] = {0, int(row % std::size_t(fg.n[1])), int(row / std::size_t(fg.n[1]))};
      if (copy) {
        rc.build(fv, fmode, std::uint32_t(row), D);
        // The copy's slots index the grid's arrays: make them the engine's slots.
        const std::size_t len = rc.col_start.back();
        for (std::size_t t = 0; t < len; ++t) rc.slot[t] = fg.slot[rc.slot[t]];
      }
      for (int x = 0; x < fg.n[0]; ++x) {
        const std::uint32_t first = fg.start[c0 + std::size_t(x)];
        const std::uint32_t last = fg.start[c0 + std::size_t(x) + 1];
        if (first == last) continue;
        const int cx[3] = {x, cc[1], cc[2]};
        double blo[3], bhi[3];
        int nr = fg.block_runs(cx, 1, block, blo, bhi);
        const CandidateRun<Real>* runs = block.data();
        GatherSource<Real> src;
        for (int c = 0; c < D; ++c) src.p[c] = fg.p[c].data();
        src.slot = fg.slot.data();
        if (copy) {
          for (int c = 0; c < D; ++c) src.p[c] = rc.p.data() + std::size_t(c) * rc.stride;
          src.slot = rc.slot.data();
          one = {rc.col_start[std::size_t(x)], rc.col_start[std::size_t(x) + 3], {0, 0, 0}};
          runs = &one;
          nr = 1;
        }
        std::size_t total = 0;
        for (int q = 0; q < nr; ++q) total += runs[q].end - runs[q].begin;
        for (std::uint32_t f = first; f < last; ++f) {
          const std::uint32_t i = fg.slot[f];
          GatherOut<Real> go = buf.view(D, total);
          if (pick.size() < total) {
            pick.resize(total);
            ids.resize(total);
          }
          src.self = copy ? rc.own_at[std::size_t(x) + 1] + (f - first) : f;
          // Only candidates nearer than the block's bound can settle the boid, so the gather's
          // radius is at most the bound (r where the block holds everything within r), and
          // first one cell edge, which holds about 2.2 k boids (kFineFill): fewer kept, rarely
          // a prune. The k nearest within any radius up to the bound are the k nearest of all.
          // A radius's rounding to Real is far inside the bound's margin.
          Real pos[3] = {0, 0, 0};
          for (int c = 0; c < D; ++c) pos[c] = in.p[c][i];
          const double bound = fg.bound(pos, blo, bhi);
          const bool covers = bound >= r;  // the block holds everything within r
          const double lim = covers ? r : std::max(bound, 0.0);
          auto radius2 = [&](double q) { return q >= r ? ts.gin.radius2 : Real(q * q); };
          gi.radius2 = radius2(std::min(lim, 0.9 * edge));
          int n = fine_gather(gi, i, src, runs, nr, ts.prune_k, go);
          int cnt = topo_order<Real>(in, go, n, ts.k, ts.order_fn, pick, ids, by_id);
          if (cnt < ts.k && 0.9 * edge < lim) {
            gi.radius2 = radius2(lim);
            n = fine_gather(gi, i, src, runs, nr, ts.prune_k, go);
            cnt = topo_order<Real>(in, go, n, ts.k, ts.order_fn, pick, ids, by_id);
          }
          // k found within the radius, or all within r: the selection of the whole stencil.
          bool settled = covers || cnt == ts.k;
          // A sparse spot: blocks of 5^D, 9^D, 17^D ... cells until the k-th nearest is
          // nearer than the block's faces or the block holds everything within r (at the
          // latest when it holds the whole grid).
          for (int q = 2; !settled; q = 2 * q) {
            fallbacks.fetch_add(1, std::memory_order_relaxed);
            double flo[3], fhi[3];
            const int fnr = fg.block_runs(cx, q, wide, flo, fhi);
            std::size_t ftotal = 0;
            for (int t = 0; t < fnr; ++t)
              ftotal += wide[std::size_t(t)].end - wide[std::size_t(t)].begin;
            go = buf.view(D, ftotal);
            if (pick.size() < ftotal) {
              pick.resize(ftotal);
              ids.resize(ftotal);
            }
            GatherSource<Real> fsrc;
            for (int c = 0; c < D; ++c) fsrc.p[c] = fg.p[c].data();
            fsrc.slot = fg.slot.data();
            fsrc.self = f;
            const double fb = fg.bound(pos, flo, fhi);
            const bool fcovers = fb >= r;
            gi.radius2 = radius2(fcovers ? r : std::max(fb, 0.0));
            n = fine_gather(gi, i, fsrc, wide.data(), fnr, ts.prune_k, go);
            cnt = topo_order<Real>(in, go, n, ts.k, ts.order_fn, pick, ids, by_id);
            settled = fcovers || cnt == ts.k;
          }
          if (!ts.sum_fn) {
            sums[i] = topo_sums<Real, D>(ts.kp_seen, in, i, go, pick.data(), cnt);
            continue;
          }
          const std::uint32_t b = f - row_first;
          stage.template put<D>(b, cnt, pick.data(), go, in);
        }
      }
      if (!ts.sum_fn) continue;
      ts.sum_fn(stage.view(), row_last - row_first, ts.kp_seen, row_sums.data());
      for (std::uint32_t f = row_first; f < row_last; ++f)
        sums[fg.slot[f]] = row_sums[f - row_first];
    }
  });
  return true;
}

}  // namespace boids::list_detail
