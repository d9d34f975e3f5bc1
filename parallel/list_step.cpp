#include "parallel/list_step.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/neighbour_list.hpp"
#include "parallel/list_fine_step.hpp"
#include "parallel/list_gather.hpp"
#include "parallel/list_topo.hpp"

namespace boids {
namespace {

std::atomic<std::uint64_t> own_grid_steps{0}, own_grid_fallbacks{0}, own_grid_lane_boids{0};
std::atomic<std::uint64_t> lane_boids{0}, lane_unsettled{0};
std::atomic<std::uint64_t> lane_groups[3] = {0, 0, 0};
std::atomic<std::uint64_t> lane_short_inserts{0}, lane_double_pairs{0};
std::atomic<std::uint64_t> row_slides{0}, slot_id_rows{0};

using list_detail::GatherBuffers;
using list_detail::RowCopy;
using list_detail::SumStaging;
using list_detail::topo_order;
using list_detail::topo_sums;

template <class Real, int D>
void list_rows(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  // Topological neighbours of the FlockSums models: the sums per x-row, then the row's finish
  // in SIMD batches where finish_boid is the plain one (no behaviours), as the metric rule's.
  // The couzin profile: the neighbour list through nlist::finish_from_list.
  const bool topo = !m.list.couzin && m.list.topo_k > 0;
  const int prune_k = topo && m.list.topo_k <= list_detail::kGatherMaxK ? m.list.topo_k : 0;
  KindParams<Real> kp_seen = m.kind[0];
  kp_seen.full_view = true;
  list_detail::GatherInput<Real> gin;
  for (int c = 0; c < D; ++c) {
    gin.p[c] = in.p[c].data();
    gin.v[c] = in.v[c].data();
  }
  gin.size = m.size;
  gin.inv_size = m.inv_size;
  gin.radius2 = m.kind[0].radius2;
  gin.cos_half_view = m.kind[0].cos_half_view;
  gin.full_view = m.kind[0].full_view;
  const WrapMode mode = m.boundary != Boundary::wrap ? WrapMode::none
                        : g.wrap == WrapMode::shift  ? WrapMode::shift
                                                     : WrapMode::min_image;
  const list_detail::GatherFn<Real> gather = list_detail::select_gather_fn<Real>(m.isa, D, mode);
  const list_detail::OrderFn<Real> order_fn[2] = {list_detail::select_order_fn<Real>(m.isa, true),
                                                  list_detail::select_order_fn<Real>(m.isa, false)};
  // The sums in SIMD across a row's boids where accumulate_pair's nearest tracking is off.
  const list_detail::SumFn<Real> sum_fn =
      topo && !m.kind[0].track_nearest ? list_detail::select_sum_fn<Real>(m.isa, D) : nullptr;
  const FinishRow<Real> fin =
      topo && !ctx.beh.active ? select_finish_row<Real>(m.isa, D, m.boundary) : nullptr;
  FinishView<Real> fv;
  if (fin) {
    for (int c = 0; c < 3; ++c) {
      fv.p[c] = in.p[c].data();
      fv.v[c] = in.v[c].data();
      fv.p_out[c] = out.p[c].data();
      fv.v_out[c] = out.v[c].data();
    }
    fv.kp = m.kind[0];
    fv.dt = m.dt;
    fv.size = m.size;
    fv.inv_size = m.inv_size;
  }
  // The lane kernel (see below) where the sums are SIMD ones and k is small enough; the float
  // AVX2 / AVX-512 kernel stages its selections and a row's finish sums them 8 boids at a time
  // (lane_finish, parallel/list_lanes_finish_impl.hpp), which needs every id to order as a
  // float bit pattern; with larger ids those instruction sets take the gather.
  bool lane_ok = sum_fn && m.list.topo_k <= list_detail::kLaneMaxK;
  if (lane_ok && list_detail::select_lane_finish_fn<Real>(m.isa, D, false, m.list.topo_k)) {
    std::uint32_t max_id = 0;
    for (const std::uint32_t id : in.id) max_id = std::max(max_id, id);
    lane_ok = max_id < 0x7f800000u;
  }
  // Radii far beyond the k-th neighbour distance: the sums on the pass's own grid, then the
  // rows' finish (parallel/list_fine_grid.hpp).
  if (topo) {
    list_detail::TopoSetup<Real> ts;
    ts.kp_seen = kp_seen;
    ts.gin = gin;
    ts.order_fn[0] = order_fn[0];
    ts.order_fn[1] = order_fn[1];
    ts.sum_fn = sum_fn;
    ts.k = m.list.topo_k;
    ts.prune_k = prune_k;
    if (lane_ok) {
      for (int w = 0; w < 2; ++w) {
        ts.lane_fn[w] = list_detail::select_lane_fn<Real>(m.isa, D, w == 1, m.list.topo_k);
        ts.lane_finish[w] =
            list_detail::select_lane_finish_fn<Real>(m.isa, D, w == 1, m.list.topo_k);
      }
    }
    std::vector<FlockSums<Real>> all;
    if (list_detail::fine_topo_sums<Real, D>(m, g, in, ts, all, ex, own_grid_fallbacks,
                                             own_grid_lane_boids)) {
      own_grid_steps.fetch_add(1, std::memory_order_relaxed);
      ex.parallel_for(g.nrows(), 8, [&](std::size_t b, std::size_t e) {
        const std::uint32_t first = g.row_start(b);
        const std::uint32_t last = g.cell_start[e * std::size_t(g.n[0])];
        if (fin) {
          fin(fv, first, last - first, all.data() + first);
          for (std::uint32_t j = first; j < last; ++j) {
            out.kind[j] = in.kind[j];
            out.id[j] = in.id[j];
          }
        } else {
          for (std::uint32_t j = first; j < last; ++j)
            finish_slot<Real, D>(m, ctx, in, j, all[j], out, j);
        }
      });
      return;
    }
  }
  // The lane kernel for the cells whose stencil is one range of the row copy (lane_ok above):
  // a wrapped grid's copy either holds the candidates' minimum images (WrapMode::shift: a
  // contiguous cell's runs are unshifted) or takes the per-pair minimum image.
  const list_detail::LaneFn<Real> lane_fn =
      lane_ok
          ? list_detail::select_lane_fn<Real>(m.isa, D, mode == WrapMode::min_image, m.list.topo_k)
          : nullptr;
  // With image shifts, the lane kernel's rows are copied with every seam wrapped (as for the
  // minimum image), so the cells whose stencil crosses a seam take the per-pair minimum image
  // (lane_wrap_fn, and the gather's min_image flavour for the boids it hands back); the
  // others' candidates are their own minimum images, as before.
  const bool wrap_copy = lane_fn && mode == WrapMode::shift;
  const list_detail::LaneFn<Real> lane_wrap_fn =
      wrap_copy ? list_detail::select_lane_fn<Real>(m.isa, D, true, m.list.topo_k) : nullptr;
  const list_detail::GatherFn<Real> wrap_gather =
      wrap_copy ? list_detail::select_gather_fn<Real>(m.isa, D, WrapMode::min_image) : nullptr;
  const list_detail::LaneFinishFn<Real> lane_finish =
      lane_fn ? list_detail::select_lane_finish_fn<Real>(
                    m.isa, D, mode == WrapMode::min_image || wrap_copy, m.list.topo_k)
              : nullptr;
  // Float's row finish (AVX2 / AVX-512) reads the ids through the slots it needs anyway: the row
  // copy then carries no ids (a fifth of its arrays; LaneCell::slot_id). Double's keeps them.
  const bool slot_ids = std::is_same_v<Real, float> && lane_finish != nullptr;
  ex.parallel_for(g.nrows(), 1, [&](std::size_t b, std::size_t e) {
    std::vector<FlockSums<Real>> lane_out;
    std::vector<std::uint8_t> direct;  // 1: the boid's sums came from the lane kernel
    std::uint64_t n_lane = 0, n_unsettled = 0, n_groups[5] = {0, 0, 0, 0, 0}, n_slot_id_rows = 0;
    GatherBuffers<Real> buf;
    std::vector<std::uint32_t> pick, ids;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_id;
    std::vector<FlockSums<Real>> sums;
    std::vector<nlist::Neighbour<Real>> list;
    CandidateRun<Real> runs[kMaxRuns];
    RowCopy<Real> rc;
    rc.slide = true;  // consecutive rows reuse the copy (parallel/list_row_copy.hpp)
    SumStaging<Real> stage;
    std::vector<std::int32_t> lane_n, lane_wrap;
    std::vector<std::uint32_t> lane_q;
    list_detail::LaneStage lst;
    list_detail::LaneCell<Real> lrow;  // the lane kernel's cell (the row copy, for lane_finish)
    for (std::size_t row = b; row < e; ++row) {
      const std::uint32_t c0 = std::uint32_t(row) * std::uint32_t(g.n[0]);
      const std::uint32_t row_first = g.cell_start[c0];
      const std::uint32_t row_last = g.cell_start[c0 + std::uint32_t(g.n[0])];
      if (row_first == row_last) continue;
      // (Grown only: every boid's sums are written below, so a shorter row after a longer one
      // needs no value-initialised elements.)
      if (topo && sums.size() < row_last - row_first) sums.resize(row_last - row_first);
      bool staged = false, any_direct = false;
      if (lane_fn && !lane_finish) direct.assign(row_last - row_first, 0);
      if (lane_finish) {
        lst.stride = (std::size_t(row_last - row_first) + 7) / 8 * 8 + 8;
        lane_n.assign(lst.stride, -1);
        lane_wrap.resize(lst.stride);
        if (lane_q.size() < std::size_t(m.list.topo_k) * lst.stride)
          lane_q.resize(std::size_t(m.list.topo_k) * lst.stride);
        lst.n = lane_n.data();
        lst.wrap = lane_wrap.data();
        lst.q = lane_q.data();
      }
      const bool copied =
          rc.build(g, wrap_copy ? WrapMode::min_image : mode, std::uint32_t(row), D,
                   lane_fn && !slot_ids ? in.id.data() : nullptr, std::uint32_t(in.id.size()));
      // The store rows the next row's stencil takes new (its last y row), prefetched into L2 a
      // row ahead: their positions and ids for its copy, their velocities for its finish. Read
      // scattered over 3 rows' streams a few elements per column, the first touch of each line
      // in the step was where the copy and the finish waited (perf).
      if (lane_finish && row + 1 < e) {
        const int y = int(row % std::size_t(g.n[1])), z = int(row / std::size_t(g.n[1]));
        int yy = y + g.reach[1] + 1;
        if (yy >= g.n[1] && g.wrap != WrapMode::none) yy -= g.n[1];
        for (int dz = -g.reach[2]; dz <= g.reach[2] && yy < g.n[1]; ++dz) {
          int zz = z + dz;
          if (zz < 0 || zz >= g.n[2]) {
            if (g.wrap == WrapMode::none) continue;
            zz = zz < 0 ? zz + g.n[2] : zz - g.n[2];
          }
          const std::uint32_t r0 = std::uint32_t(g.n[0]) * std::uint32_t(yy + g.n[1] * zz);
          const std::uint32_t s1 = g.cell_start[r0 + std::uint32_t(g.n[0])];
          for (std::uint32_t j = g.cell_start[r0]; j < s1; j += 64 / sizeof(Real)) {
            for (int c = 0; c < D; ++c) {
              __builtin_prefetch(g.p[c] + j, 0, 2);
              __builtin_prefetch(in.v[c].data() + j, 0, 2);
            }
            __builtin_prefetch(in.id.data() + j, 0, 2);
          }
        }
      }
      if (lane_fn) {  // the lane kernel's row fields
        for (int c = 0; c < D; ++c) lrow.cp[c] = rc.p.data() + std::size_t(c) * rc.stride;
        lrow.cslot = rc.slot.data();
        lrow.id = rc.id.data();
        lrow.groups = n_groups;
        if (lane_finish) lrow.stage = &lst;
        lrow.slot_id = slot_ids ? in.id.data() : nullptr;
      }
      // Boid rb's sums came from the lane kernel.
      auto is_direct = [&](std::uint32_t rb) {
        return lane_finish ? lane_n[rb] >= 0 : direct[rb] != 0;
      };
      bool row_seam = false, y_seam = false, z_seam = false;
      if (wrap_copy) {
        const int y = int(row % std::size_t(g.n[1])), z = int(row / std::size_t(g.n[1]));
        y_seam = y < g.reach[1] || y >= g.n[1] - g.reach[1];
        z_seam = z < g.reach[2] || z >= g.n[2] - g.reach[2];
        row_seam = y_seam || z_seam;
      }
      for (int x = 0; x < g.n[0]; ++x) {
        const std::uint32_t cell = c0 + std::uint32_t(x);
        const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
        if (first == last) continue;
        list_detail::GatherSource<Real> src;
        int nr;
        std::size_t total = 0;
        if (copied && rc.contiguous(x, g.n[0])) {
          for (int c = 0; c < D; ++c) src.p[c] = rc.p.data() + std::size_t(c) * rc.stride;
          src.slot = rc.slot.data();
          runs[0] = {rc.col_start[std::size_t(x)],
                     rc.col_start[std::size_t(x + 2 * rc.rx + 1)],
                     {0, 0, 0}};
          nr = 1;
          total = runs[0].end - runs[0].begin;
        } else {
          for (int c = 0; c < D; ++c) src.p[c] = in.p[c].data();
          nr = cell_runs(g, cell, runs);
          for (int r = 0; r < nr; ++r) total += runs[r].end - runs[r].begin;
        }
        // A wrapped copy's cell whose stencil crosses a seam: the per-pair minimum image.
        const bool x_seam = x < rc.rx || x >= g.n[0] - rc.rx;
        const bool seam = wrap_copy && (row_seam || x_seam);
        if (lane_fn && src.slot && total <= list_detail::kLaneMaxRange) {
          // (lrow: the row's fields, set once; a copy of the whole cell per cell cost a
          // store-forwarding stall.)
          list_detail::LaneCell<Real>& lc = lrow;
          lc.begin = runs[0].begin;
          lc.end = runs[0].end;
          lc.self0 = rc.own_at[std::size_t(x + rc.rx)];
          lc.first = first;
          lc.count = last - first;
          lc.row_off = first - row_first;
          // A shift grid's seam cell: only the axes whose seam the stencil crosses.
          lc.wrap_axis[0] = !seam || x_seam;
          lc.wrap_axis[1] = !seam || y_seam;
          lc.wrap_axis[2] = !seam || z_seam;
          if (lane_out.size() < lc.count) lane_out.resize(lc.count);
          const std::uint32_t bad =
              (seam ? lane_wrap_fn : lane_fn)(gin, lc, m.list.topo_k, kp_seen, lane_out.data());
          n_lane += lc.count - bad;
          n_unsettled += bad;
          if (!lane_finish) {  // (with lane_finish, lane_n[rb] >= 0 marks the kernel's boids)
            for (std::uint32_t t = 0; t < lc.count; ++t) {
              if (lane_out[t].k < 0) continue;
              sums[first + t - row_first] = lane_out[t];
              direct[first + t - row_first] = 1;
            }
          }
          any_direct = true;
          if (bad == 0) continue;
        }
        const list_detail::GatherOut<Real> go = buf.view(D, total);
        if (pick.size() < total) {
          pick.resize(total);
          ids.resize(total);
        }
        for (std::uint32_t i = first; i < last; ++i) {
          if (any_direct && is_direct(i - row_first)) continue;
          src.self = src.slot ? rc.own_at[std::size_t(x + rc.rx)] + (i - first) : i;
          const int n = (seam ? wrap_gather : gather)(gin, i, src, runs, nr, prune_k, go);
          if (topo) {
            const int cnt = topo_order<Real>(in, go, n, m.list.topo_k, order_fn, pick, ids, by_id);
            const std::uint32_t rb = i - row_first;
            if (!sum_fn) {
              sums[rb] = topo_sums<Real, D>(kp_seen, in, i, go, pick.data(), cnt);
              continue;
            }
            if (!staged) stage.start(row_last - row_first);  // (cleared only where used)
            stage.template put<D>(rb, cnt, pick.data(), go, in);
            staged = true;
            continue;
          }
          list.resize(std::size_t(n));
          for (int t = 0; t < n; ++t) {
            nlist::Neighbour<Real>& nb = list[std::size_t(t)];
            for (int c = 0; c < 3; ++c) nb.d[c] = c < D ? go.d[c][t] : Real(0);
            nb.dist2 = go.dist2[t];
            nb.slot = go.slot[t];
            nb.id = in.id[nb.slot];
          }
          nlist::finish_from_list<Real, D>(m, ctx, in, i, list, out, i);
        }
      }
      if (!topo) continue;
      if (lane_finish && any_direct) {
        lane_finish(gin, lrow, lst, row_first, row_last - row_first, m.list.topo_k, kp_seen,
                    sums.data());
        n_slot_id_rows += slot_ids ? 1u : 0u;
      }
      if (sum_fn && staged) {
        if (!any_direct) {
          sum_fn(stage.view(), row_last - row_first, m.kind[0], sums.data());
        } else {  // the staged boids only: the lane kernel's sums stay
          if (lane_out.size() < row_last - row_first) lane_out.resize(row_last - row_first);
          sum_fn(stage.view(), row_last - row_first, m.kind[0], lane_out.data());
          for (std::uint32_t t = 0; t < row_last - row_first; ++t)
            if (!is_direct(t)) sums[t] = lane_out[t];
        }
      }
      if (fin) {
        fin(fv, row_first, row_last - row_first, sums.data());
        for (std::uint32_t j = row_first; j < row_last; ++j) {
          out.kind[j] = in.kind[j];
          out.id[j] = in.id[j];
        }
      } else {
        for (std::uint32_t j = row_first; j < row_last; ++j)
          finish_slot<Real, D>(m, ctx, in, j, sums[j - row_first], out, j);
      }
    }
    lane_boids.fetch_add(n_lane, std::memory_order_relaxed);
    lane_unsettled.fetch_add(n_unsettled, std::memory_order_relaxed);
    for (int t = 0; t < 3; ++t) lane_groups[t].fetch_add(n_groups[t], std::memory_order_relaxed);
    lane_short_inserts.fetch_add(n_groups[3], std::memory_order_relaxed);
    lane_double_pairs.fetch_add(n_groups[4], std::memory_order_relaxed);
    row_slides.fetch_add(rc.slid, std::memory_order_relaxed);
    slot_id_rows.fetch_add(n_slot_id_rows, std::memory_order_relaxed);
  });
}

}  // namespace

std::uint64_t list_own_grid_steps() noexcept { return own_grid_steps.load(); }
std::uint64_t list_own_grid_fallbacks() noexcept { return own_grid_fallbacks.load(); }
std::uint64_t list_own_grid_lane_boids() noexcept { return own_grid_lane_boids.load(); }
std::uint64_t list_lane_boids() noexcept { return lane_boids.load(); }
std::uint64_t list_lane_unsettled() noexcept { return lane_unsettled.load(); }
std::uint64_t list_row_copy_slides() noexcept { return row_slides.load(); }
std::uint64_t list_row_finish_slot_ids() noexcept { return slot_id_rows.load(); }
std::uint64_t list_lane_groups(int boids) noexcept {
  return lane_groups[boids == 4 ? 0 : boids == 2 ? 1 : 2].load();
}
std::uint64_t list_lane_short_inserts() noexcept { return lane_short_inserts.load(); }
std::uint64_t list_lane_double_pairs() noexcept { return lane_double_pairs.load(); }

template <class Real>
void list_step(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  if (m.dims == 2)
    list_rows<Real, 2>(m, ctx, g, in, out, ex);
  else
    list_rows<Real, 3>(m, ctx, g, in, out, ex);
}

template void list_step<float>(const ModelParams<float>&, const StepContext<float>&,
                               const GridView<float>&, const BoidStore<float>&, BoidStore<float>&,
                               Executor&);
template void list_step<double>(const ModelParams<double>&, const StepContext<double>&,
                                const GridView<double>&, const BoidStore<double>&,
                                BoidStore<double>&, Executor&);

}  // namespace boids
