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
  // The lane kernel for the grid's wrap (plain d, or the minimum image on every axis), and its
  // row finish where it stages (float on AVX2 / AVX-512); null: the gather only.
  LaneFn<Real> lane_fn[2] = {nullptr, nullptr};
  LaneFinishFn<Real> lane_finish[2] = {nullptr, nullptr};
};

/// The FlockSums of every kind-0 boid (slots [0, nb) of `in`, nb = g's boid count) into
/// sums[slot], through a FineGrid; false (nothing done) when the grid would not pay. Counts
/// the wider blocks scanned for boids the first block does not settle in `fallbacks`, and the
/// boids the lane kernel settled in `lane_settled`.
template <class Real, int D>
bool fine_topo_sums(const ModelParams<Real>& m, const GridView<Real>& g, const BoidStore<Real>& in,
                    const TopoSetup<Real>& ts, std::vector<FlockSums<Real>>& sums, Executor& ex,
                    std::atomic<std::uint64_t>& fallbacks,
                    std::atomic<std::uint64_t>& lane_settled) {
  const std::uint32_t nb = g.cell_start[g.ncells()];
  FineGrid<Real> fg;
  const bool lanes = ts.lane_fn[0] != nullptr;
  if (!fg.plan(g, in, nb, ts.k, m.boundary == Boundary::wrap, double(m.size), lanes)) return false;
  {
    std::vector<std::uint32_t> key;
    fg.build(in, nb, key, lanes ? in.id.data() : nullptr);
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
  // The lane kernel (parallel/list_lanes*_impl.hpp) on the copy's cells: each boid's radius is
  // the one its gather below would take last (the block's bound, or r where the block holds
  // everything within r), so a boid it settles with k neighbours, or with fewer where the block
  // covers r, has the gather's selection; the others take the gather. It reads the grid's own
  // arrays in cell order (the copy's slots are cell-order indices then, and the copy slides from
  // row to row as the row pass's does). A cell whose block crosses no seam of a wrapped box on
  // an axis with 5 or more cells takes the plain d there: every candidate is then nearer than
  // 2 cells (< L / 2) on that axis, where the minimum image is d itself.
  const bool lane_path = copy && ts.lane_fn[0] != nullptr;
  const LaneFn<Real> lane_plain = lane_path ? ts.lane_fn[0] : nullptr;
  const LaneFn<Real> lane_wrap = lane_path && fg.wrap ? ts.lane_fn[1] : nullptr;
  const LaneFinishFn<Real> lane_finish = lane_path ? ts.lane_finish[fg.wrap ? 1 : 0] : nullptr;
  GatherInput<Real> lin = ts.gin;
  if (lane_path) {
    for (int c = 0; c < D; ++c) {
      lin.p[c] = fg.p[c].data();
      lin.v[c] = fg.v[c].data();
    }
  }
  ex.parallel_for(nrows, 1, [&](std::size_t rb, std::size_t re) {
    RowCopy<Real> rc;
    rc.slide = lane_path;
    GatherBuffers<Real> buf;
    std::vector<std::uint32_t> pick, ids;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_id;
    std::vector<FlockSums<Real>> row_sums, lane_out;
    SumStaging<Real> stage;
    std::vector<CandidateRun<Real>> block, wide;
    std::vector<Real> lane_r2;
    std::vector<std::uint8_t> direct, covers_at;
    std::vector<std::int32_t> lane_n, lane_wrap_bits;
    std::vector<std::uint32_t> lane_q;
    LaneStage lst;
    LaneCell<Real> lrow;
    std::uint64_t n_lane = 0;
    CandidateRun<Real> one;
    GatherInput<Real> gi = ts.gin;
    const double edge = std::min({fg.w[0], D > 1 ? fg.w[1] : fg.w[0], D > 2 ? fg.w[2] : fg.w[0]});
    auto radius2 = [&](double q) { return q >= r ? ts.gin.radius2 : Real(q * q); };
    // Axis a at cell coordinate x needs the minimum image (see above).
    auto seam = [&](int a, int x) {
      return fg.wrap && a < D && (fg.n[a] < 5 || x == 0 || x == fg.n[a] - 1);
    };
    for (std::size_t row = rb; row < re; ++row) {
      const std::size_t c0 = row * std::size_t(fg.n[0]);
      const std::uint32_t row_first = fg.start[c0], row_last = fg.start[c0 + std::size_t(fg.n[0])];
      if (row_first == row_last) continue;
      const std::uint32_t row_n = row_last - row_first;
      bool staged = false, any_direct = false;
      if (ts.sum_fn && row_sums.size() < row_n) row_sums.resize(row_n);
      if (lane_path) {
        direct.assign(row_n, 0);
        if (lane_finish) {
          lst.stride = (std::size_t(row_n) + 7) / 8 * 8 + 8;
          lane_n.assign(lst.stride, -1);
          lane_wrap_bits.resize(lst.stride);
          if (lane_q.size() < std::size_t(ts.k) * lst.stride)
            lane_q.resize(std::size_t(ts.k) * lst.stride);
          lst.n = lane_n.data();
          lst.wrap = lane_wrap_bits.data();
          lst.q = lane_q.data();
        }
      }
      const int cc[3] = {0, int(row % std::size_t(fg.n[1])), int(row / std::size_t(fg.n[1]))};
      if (copy) {
        rc.build(fv, fmode, std::uint32_t(row), D, lane_path ? fg.id.data() : nullptr, nb);
        if (lane_path) {
          for (int c = 0; c < D; ++c) lrow.cp[c] = rc.p.data() + std::size_t(c) * rc.stride;
          lrow.cslot = rc.slot.data();
          lrow.id = rc.id.data();
          if (lane_finish) lrow.stage = &lst;
          lrow.wrap_axis[1] = seam(1, cc[1]);
          lrow.wrap_axis[2] = seam(2, cc[2]);
        } else {
          // The copy's slots index the grid's arrays: make them the engine's slots.
          const std::size_t len = rc.col_start.back();
          for (std::size_t t = 0; t < len; ++t) rc.slot[t] = fg.slot[rc.slot[t]];
        }
      }
      for (int x = 0; x < fg.n[0]; ++x) {
        const std::uint32_t first = fg.start[c0 + std::size_t(x)];
        const std::uint32_t last = fg.start[c0 + std::size_t(x) + 1];
        if (first == last) continue;
        const int cx[3] = {x, cc[1], cc[2]};
        const std::uint32_t count = last - first;
        double blo[3], bhi[3];
        bool lane_cell_done = false;
        if (lane_path &&
            rc.col_start[std::size_t(x) + 3] - rc.col_start[std::size_t(x)] <= kLaneMaxRange) {
          fg.block_faces(cx, 1, blo, bhi);
          if (lane_r2.size() < count) {
            lane_r2.resize(count);
            covers_at.resize(count);
            lane_out.resize(count);
          }
          for (std::uint32_t b = 0; b < count; ++b) {
            Real pos[3] = {0, 0, 0};
            for (int c = 0; c < D; ++c) pos[c] = fg.p[c][first + b];
            const double bound = fg.bound(pos, blo, bhi);
            covers_at[b] = bound >= r;
            lane_r2[b] = radius2(bound >= r ? r : std::max(bound, 0.0));
          }
          LaneCell<Real>& lc = lrow;
          lc.begin = rc.col_start[std::size_t(x)];
          lc.end = rc.col_start[std::size_t(x) + 3];
          lc.self0 = rc.own_at[std::size_t(x) + 1];
          lc.first = first;
          lc.count = count;
          lc.r2 = lane_r2.data();
          lc.row_off = first - row_first;
          lc.wrap_axis[0] = seam(0, x);
          const bool any_seam = lc.wrap_axis[0] || lc.wrap_axis[1] || lc.wrap_axis[2];
          (any_seam ? lane_wrap : lane_plain)(lin, lc, ts.k, ts.kp_seen, lane_out.data());
          // Settled: k neighbours within the boid's radius, or the block covers r.
          for (std::uint32_t b = 0; b < count; ++b) {
            const std::uint32_t rbi = first - row_first + b;
            const std::int32_t kb = lane_finish ? lane_n[rbi] : lane_out[b].k;
            if (kb < 0) continue;
            if (kb < ts.k && !covers_at[b]) {
              if (lane_finish) lane_n[rbi] = -1;
              continue;
            }
            direct[rbi] = 1;
            if (!lane_finish) row_sums[rbi] = lane_out[b];
            ++n_lane;
          }
          any_direct = true;
          lane_cell_done = true;
        }
        int nr = 0;
        const CandidateRun<Real>* runs = nullptr;
        GatherSource<Real> src;
        std::size_t total = 0;
        auto runs_ready = [&] {  // the block's runs (or the copy's range) for the gather
          if (runs) return;
          nr = fg.block_runs(cx, 1, block, blo, bhi);
          runs = block.data();
          for (int c = 0; c < D; ++c) src.p[c] = fg.p[c].data();
          src.slot = fg.slot.data();
          if (copy && !lane_path) {
            for (int c = 0; c < D; ++c) src.p[c] = rc.p.data() + std::size_t(c) * rc.stride;
            src.slot = rc.slot.data();
            one = {rc.col_start[std::size_t(x)], rc.col_start[std::size_t(x) + 3], {0, 0, 0}};
            runs = &one;
            nr = 1;
          }
          for (int q = 0; q < nr; ++q) total += runs[q].end - runs[q].begin;
        };
        for (std::uint32_t f = first; f < last; ++f) {
          if (lane_cell_done && direct[f - row_first]) continue;
          runs_ready();
          const std::uint32_t i = fg.slot[f];
          GatherOut<Real> go = buf.view(D, total);
          if (pick.size() < total) {
            pick.resize(total);
            ids.resize(total);
          }
          src.self = copy && !lane_path ? rc.own_at[std::size_t(x) + 1] + (f - first) : f;
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
          if (!staged) stage.start(row_n);  // (cleared only where used)
          staged = true;
          stage.template put<D>(b, cnt, pick.data(), go, in);
        }
      }
      if (!ts.sum_fn) continue;
      if (lane_finish && any_direct)
        lane_finish(lin, lrow, lst, row_first, row_n, ts.k, ts.kp_seen, row_sums.data());
      if (staged) {
        if (!any_direct) {
          ts.sum_fn(stage.view(), row_n, ts.kp_seen, row_sums.data());
        } else {  // the staged boids only: the lane kernel's sums stay
          if (lane_out.size() < row_n) lane_out.resize(row_n);
          ts.sum_fn(stage.view(), row_n, ts.kp_seen, lane_out.data());
          for (std::uint32_t t = 0; t < row_n; ++t)
            if (!direct[t]) row_sums[t] = lane_out[t];
        }
      }
      for (std::uint32_t f = row_first; f < row_last; ++f)
        sums[fg.slot[f]] = row_sums[f - row_first];
    }
    lane_settled.fetch_add(n_lane, std::memory_order_relaxed);
  });
  return true;
}

}  // namespace boids::list_detail
