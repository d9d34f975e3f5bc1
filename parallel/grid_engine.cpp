// The grid engine. One step:
//
//   cells_.build(s_ -> in_)      cell list + gather into cell order (parallel/cell_list.hpp)
//   ctx = prepare_step(in_)      once, on the canonical cell order; the predators' views of
//                                the prey in parallel
//   for each x-row of cells      row kernel sums for the row's boids (core/kernels.hpp), then
//     (parallel):                the finish (FinishRow in SIMD batches when no behaviour acts
//                                on kind 0 but the prey's, those that see a predator with the
//                                prey's terms in the same lanes; with other behaviours
//                                behaviour lanes where beh::lanes_finish_ok holds; else
//                                finish_boid per boid),
//                                into s_, same slot
//   kinds 1/2 (parallel):        their own kind through a KindGrid (core/kind_grid.hpp) of
//                                slots [boid_end, n), accumulate_pair in slot order
//
// s_ thus always holds the state in the cell order of the grid built at the start of the last
// step; slot_of_rank() derives the id rank -> slot map for EngineT's id-order views on demand.
// Every boid's result is a function of the state alone, so any thread count and any host
// parallel-for give the same bits (tests/test_determinism.cpp).
#include "parallel/grid_engine.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include "core/behaviour_kinds.hpp"
#include "core/cluster_kernels.hpp"
#include "core/kernels.hpp"
#include "core/kind_grid.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/cluster_grid.hpp"
#include "parallel/grid_engine_near.hpp"
#include "parallel/grid_taken_row.hpp"
#include "parallel/list_step.hpp"
#include "parallel/row_scratch.hpp"
#include "parallel/threading.hpp"

namespace boids {
namespace {

// out[rank of ids[s]] = s for every slot s < n: ids are unique and below next_id. When
// next_id == n the ids are exactly 0..n-1 and the rank is the id; else a bitmap of the ids
// with per-word prefix counts gives the rank (0.19 bytes per id of scratch).
void rank_slots_from_ids(const std::uint32_t* ids, std::size_t n, std::uint32_t next_id,
                         std::uint32_t* out, Executor& ex) {
  if (std::size_t(next_id) == n) {
    ex.parallel_for(n, 16384, [&](std::size_t b, std::size_t e) {
      for (std::size_t s = b; s < e; ++s) out[ids[s]] = std::uint32_t(s);
    });
    return;
  }
  const std::size_t words = (std::size_t(next_id) + 63) / 64;
  std::vector<std::uint64_t> bits(words, 0);
  std::vector<std::uint32_t> before(words, 0);
  for (std::size_t s = 0; s < n; ++s) bits[ids[s] >> 6] |= std::uint64_t(1) << (ids[s] & 63);
  std::uint32_t running = 0;
  for (std::size_t w = 0; w < words; ++w) {
    before[w] = running;
    running += std::uint32_t(std::popcount(bits[w]));
  }
  ex.parallel_for(n, 16384, [&](std::size_t b, std::size_t e) {
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t id = ids[s];
      const std::uint64_t below = bits[id >> 6] & ((std::uint64_t(1) << (id & 63)) - 1);
      out[before[id >> 6] + std::uint32_t(std::popcount(below))] = std::uint32_t(s);
    }
  });
}

template <class Real>
class GridEngine final : public EngineT<Real>, public GridRowSource<Real> {
  using EngineT<Real>::m_;
  using EngineT<Real>::s_;
  using EngineT<Real>::def_;
  using EngineT<Real>::steps_;

 public:
  explicit GridEngine(const WorldDef& def)
      : EngineT<Real>(def),
        ex_(std::make_unique<Executor>(def.threads, def.host_parallel_for, def.host_context)),
        isa_(dispatched_isa(def.simd)),
        cluster_(def.engine == EngineKind::cluster) {
    on_state_replaced();
  }

  void step(int count) override {
    for (int s = 0; s < count; ++s) {
      if (m_.dims == 2)
        step_once<2>();
      else
        step_once<3>();
      ++steps_;
      this->invalidate_cache();
    }
  }

  std::string kernel_name() const override {
    if (m_.list.active) return "list";  // parallel/list_step.hpp
    if (cluster_path()) return std::string("cluster-") + isa_name(isa_);
    if (!row_simd_pair_rule(m_.kind[0]) || (cluster_ && !simd_pair_rule(m_.kind[0])))
      return "generic";
    return isa_name(isa_);
  }

  std::size_t bytes_per_boid() const override {
    const std::size_t n = std::max<std::size_t>(1, s_.n);
    // Everything the engine holds, the id-order copy of World::positions() and the row loop's
    // pooled scratch included when they exist: compared with the measured peak RSS in
    // docs/bench.md ("Memory").
    const std::size_t total = s_.bytes() + in_.bytes() + cells_.bytes() + ctx_.beh.bytes() +
                              row_scratch_.bytes() + this->cache_bytes();
    return (total + n - 1) / n;
  }

  PairCounts count_pairs() const override {
    // A fresh cell list of the current state, so the counts describe what the next step sees.
    CellList<Real> cl;
    BoidStore<Real> in;
    cl.build(settings(), s_, in, *ex_);
    PairCounts pc;
    if (cluster_path()) {
      pc = cluster_count_pairs(cl.view(in, m_), *ex_);
    } else {
      pc = row_count_pairs(cl, in);
    }
    for (std::uint32_t i = cl.boid_end(); i < in.n; ++i) {
      FlockSums<Real> s = m_.dims == 2 ? special_sums<2>(in, cl.boid_end(), i)
                                       : special_sums<3>(in, cl.boid_end(), i);
      pc.neighbours += std::uint64_t(s.k);
      for (std::uint32_t j = cl.boid_end(); j < in.n; ++j)
        pc.candidates += (j != i && in.kind[j] == in.kind[i]);
    }
    return pc;
  }

  PairCounts row_count_pairs(const CellList<Real>& cl, const BoidStore<Real>& in) const {
    const GridView<Real> g = cl.view(in, m_);
    // The model's own scalar pair rule (generic_cell_sums), not the SIMD kernel: an
    // independent count. Parallel over x-rows; integer sums per row, so any split is exact.
    std::vector<PairCounts> per_row(g.nrows());
    ex_->parallel_for(g.nrows(), 1, [&](std::size_t b, std::size_t e) {
      std::vector<FlockSums<Real>> buf(cl.max_occupancy());
      CandidateRun<Real> runs[kMaxRuns];
      KernelScratch<Real> scratch;
      for (std::size_t row = b; row < e; ++row) {
        PairCounts& pr = per_row[row];
        const std::uint32_t c0 = std::uint32_t(row) * std::uint32_t(g.n[0]);
        for (std::uint32_t cell = c0; cell < c0 + std::uint32_t(g.n[0]); ++cell) {
          const std::uint32_t occ = g.cell_start[cell + 1] - g.cell_start[cell];
          if (occ == 0) continue;
          const int nr = cell_runs(g, cell, runs);
          std::uint64_t cand = 0;
          for (int r = 0; r < nr; ++r) cand += runs[r].end - runs[r].begin;
          pr.candidates += occ * (cand - 1);
          if (m_.dims == 2)
            generic_cell_sums<Real, 2>(g, cell, buf.data(), scratch);
          else
            generic_cell_sums<Real, 3>(g, cell, buf.data(), scratch);
          for (std::uint32_t k = 0; k < occ; ++k) pr.neighbours += std::uint64_t(buf[k].k);
        }
      }
    });
    PairCounts pc;
    for (const PairCounts& pr : per_row) {
      pc.candidates += pr.candidates;
      pc.neighbours += pr.neighbours;
    }
    return pc;
  }

  // The cell list and in_ from s_ (a step's first stage; also the bench's
  // grid_build_cells(), which leaves s_ as it is).
  void build_cells() {
    ranks_valid_ = false;  // in_.id is rewritten
    taken_.invalidate();   // in_ is rewritten
    cells_.build(settings(), s_, in_, *ex_);
  }

  // The flock metrics' hooks (parallel/grid_taken_row.hpp).
  bool shared_cells(SharedCells<Real>& out, bool build) override {
    if (cluster_path() || def_.cells_per_radius != 1) return false;
    if (!cells_current_ && !build) return false;
    if (!cells_current_) build_cells();
    cells_current_ = true;
    return cells_shape(cells_, in_, m_.dims, out);
  }
  bool request_row() override {
    return taken_.request(!m_.list.active && !cluster_ && def_.cells_per_radius == 1);
  }
  bool taken_row(TakenRow<Real>& out) const override {
    return taken_.fill(out, cells_, in_, m_.dims);
  }

  std::uint64_t bench_kernel() {
    if (in_.n != s_.n) build_cells();
    const GridView<Real> g = cells_.view(in_, m_);
    std::vector<std::uint64_t> per_row(g.nrows(), 0);
    for_each_row(g, [&](std::size_t row, std::uint32_t first, std::uint32_t last,
                        const FlockSums<Real>* sums) {
      std::uint64_t k = 0;
      for (std::uint32_t i = 0; i < last - first; ++i) k += std::uint64_t(sums[i].k);
      per_row[row] = k;
    });
    std::uint64_t total = 0;
    for (std::uint64_t k : per_row) total += k;
    return total;
  }

  // The tests' grid_neighbour_counts(): the counts the next step's sums would hold, per id
  // rank, from the kernel step() runs (pick_kernel) and the kind 1/2 loop.
  std::vector<std::int32_t> neighbour_counts() {
    build_cells();
    std::vector<std::uint32_t> ranks(in_.n);
    rank_slots_from_ids(in_.id.data(), in_.n, this->next_id_, ranks.data(), *ex_);
    const GridView<Real> g = cells_.view(in_, m_);
    std::vector<std::int32_t> by_slot(in_.n, 0);
    for_each_row(
        g, [&](std::size_t, std::uint32_t first, std::uint32_t last, const FlockSums<Real>* sums) {
          for (std::uint32_t i = 0; i < last - first; ++i) by_slot[first + i] = sums[i].k;
        });
    const std::uint32_t first = cells_.boid_end();
    for (std::uint32_t j = first; j < in_.n; ++j)
      by_slot[j] =
          m_.dims == 2 ? special_sums<2>(in_, first, j).k : special_sums<3>(in_, first, j).k;
    std::vector<std::int32_t> by_rank(in_.n);
    for (std::size_t r = 0; r < in_.n; ++r) by_rank[r] = by_slot[ranks[r]];
    return by_rank;
  }

 protected:
  // The id rank -> slot map is not kept: the sort needs none (cell_list.hpp). Views and
  // writers get it computed on demand from s_.id into in_.id, which is free between steps
  // (the finish copied it to s_.id), so it costs no memory of its own.
  const std::uint32_t* slot_of_rank() const override {
    if (id_order_) return nullptr;
    if (!ranks_valid_) {
      cells_current_ = false;  // in_.id becomes the rank map: the next step sorts again
      rank_slots_from_ids(s_.id.data(), s_.n, this->next_id_, in_.id.data(), *ex_);
      ranks_valid_ = true;
    }
    return in_.id.data();
  }

  void on_state_replaced() override {
    // s_ is in id order now, and its size may have changed.
    id_order_ = true;
    ranks_valid_ = false;
    cells_current_ = false;
    in_ = BoidStore<Real>();
    taken_.drop();
    this->invalidate_cache();
  }

  void on_def_changed() override {  // the radius may differ
    cells_current_ = false;
    taken_.drop();
  }

 private:
  // The cluster kernels (engine.kind = "cluster") cover the standard pair rule; other pair
  // rules run the row path's generic kernel (kernel_name() says which ran).
  bool cluster_path() const { return cluster_ && simd_pair_rule(m_.kind[0]) && !m_.list.active; }

  GridSettings settings() const {
    GridSettings gs;
    gs.dims = m_.dims;
    gs.boundary = m_.boundary;
    gs.size = def_.size;
    gs.radius = double(m_.kind[0].radius);
    gs.cells_per_radius = def_.cells_per_radius;
    gs.subcell_order = cluster_path();
    return gs;
  }

  // Runs the row kernel over every non-empty x-row of g in parallel (one task per row: the
  // kernel copies each cell of the stencil rows once per row), then done(row, first slot,
  // end slot, the row's sums) on the same thread.
  template <class F>
  void for_each_row(const GridView<Real>& g, F&& done, RowKernel<Real> kernel = nullptr) {
    if (!kernel) kernel = pick_kernel();
    const bool blocked = cluster_path();
    // The cluster kernels slide a row's copy from the row before it within a task (below):
    // tasks of a few rows of a sweep block, not single rows (which TBB makes of small grids).
    ex_->parallel_for(g.nrows(), blocked ? kSweepBlock : 1, [&](std::size_t b, std::size_t e) {
      const auto slot = row_scratch_.take();  // kept across steps (parallel/row_scratch.hpp)
      // The cluster kernels slide from the previous row only within this task (this grid).
      slot->kernel.prev_row = KernelScratch<Real>::kNoPrevRow;
      for (std::size_t at = b; at < e; ++at) {
        const std::size_t row = blocked ? cluster_sweep_row(at, g.n[1], g.n[2]) : at;
        const std::uint32_t first = g.row_start(row), last = g.row_start(row + 1);
        if (first == last) continue;
        if (slot->sums.size() < last - first) slot->sums.resize(last - first);
        kernel(g, std::uint32_t(row), slot->sums.data(), slot->kernel);
        done(row, first, last, static_cast<const FlockSums<Real>*>(slot->sums.data()));
      }
    });
  }

  RowKernel<Real> pick_kernel() const {
    const KindParams<Real>& kp = m_.kind[0];
    // The cluster engine runs its own kernels for the standard rule and the generic one for
    // the rest; the row engine its SIMD row kernels wherever they cover the rule.
    if (!row_simd_pair_rule(kp) || (cluster_ && !simd_pair_rule(kp))) {
      return m_.dims == 2 ? &generic_row_sums<Real, 2> : &generic_row_sums<Real, 3>;
    }
    if (cluster_)
      return select_cluster_kernel<Real>(isa_, m_.dims, cells_.plan().wrap, kp.full_view);
    return select_row_kernel<Real>(isa_, m_.dims, cells_.plan().wrap, kp.full_view);
  }

  // Sums of the kind 1/2 agent in slot i of `in` over its own kind, slots [first, n): the
  // naive stepper's pair code (sums_over), in id order. With `grid` (over slots [first, n),
  // cells at least both kinds' radius wide) only the slots near i, in the same order: the
  // same bits.
  template <int D>
  FlockSums<Real> special_sums(const BoidStore<Real>& in, std::uint32_t first, std::uint32_t i,
                               const KindGrid<Real>* grid = nullptr) const {
    if (grid) {
      Real pi[3] = {0, 0, 0};
      for (int c = 0; c < D; ++c) pi[c] = in.p[c][i];
      return sums_over<Real, D>(m_, in, i, [&](const auto& pair) {
        grid->for_near(pi, [&](std::uint32_t k) { pair(first + k); });
      });
    }
    return sums_over<Real, D>(m_, in, i, [&](const auto& pair) {
      for (std::uint32_t j = first; j < in.n; ++j) pair(j);
    });
  }

  template <int D>
  void finish(const StepContext<Real>& ctx, std::uint32_t j, const FlockSums<Real>& sums) {
    finish_slot<Real, D>(m_, ctx, in_, j, sums, s_, j);
  }

  template <int D>
  void step_once() {
    // grid_shared_cells() may have built this state's cell list already (the flock metrics).
    if (!cells_current_) build_cells();
    cells_current_ = false;  // s_ is rewritten below
    id_order_ = false;
    // The metrics' row of this state (grid_request_row): in_ kept, with row_nn the counts too.
    const RowKernel<Real> nn_kernel = taken_.begin(steps_, !m_.list.active && !cluster_path(), isa_,
                                                   cells_, in_, m_.dims, m_.kind[0].full_view);
    prepare_step_into<Real>(
        ctx_, m_, in_, steps_, def_.seed,
        [this](std::size_t n, const std::function<void(std::size_t, std::size_t)>& f) {
          ex_->parallel_for(n, 8, f);
        },
        [this](const Real* p, double reach,
               std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) {
          grid_near_slots(cells_.plan(), cells_.cell_start(), def_.size, p, reach, out);
        });
    const StepContext<Real>& ctx = ctx_;
    GridView<Real> g = cells_.view(in_, m_);
    if (nn_kernel) g.nearest2 = taken_.nearest();
    if (m_.list.active) {  // topological neighbours, the couzin profile
      list_step<Real>(m_, ctx, g, in_, s_, *ex_);
      finish_specials<D>(ctx);
      return;
    }
    // Without behaviours the cells' boids (all kind 0) finish in SIMD batches, bit-identical
    // to finish_boid; so do they when the prey's terms are kind 0's only behaviour, summing
    // the force in behaviour order, the prey that see a predator (marked by prepare_step) with
    // the prey's terms in the same lanes (FinishView::prey). Otherwise (and on the scalar
    // path) boid by boid.
    // The abm profile's kind 0 finishes in SIMD batches too where abm_update is all it does
    // (no obstacles to push out of).
    const bool prey_only = ctx.beh.active && beh::only_prey_terms(m_, ctx.beh);
    const bool abm = m_.beh.profile == Profile::abm && !m_.beh.obstacles;
    // With other behaviours, kind 0 finishes in behaviour lanes where they support the
    // world's settings (beh::lanes_finish_ok, core/behaviour_lanes_impl.hpp).
    const bool lanes = ctx.beh.active && !prey_only && !abm && beh::lanes_finish_ok(m_, ctx.beh);
    const FinishRow<Real> fin = ctx.beh.active && !prey_only && !abm && !lanes
                                    ? nullptr
                                    : select_finish_row<Real>(isa_, m_.dims, m_.boundary);
    FinishView<Real> fv;
    fv.behaviour_order = ctx.beh.active;
    fv.abm = abm;
    if (fin) {
      for (int c = 0; c < 3; ++c) {
        fv.p[c] = in_.p[c].data();
        fv.v[c] = in_.v[c].data();
        fv.p_out[c] = s_.p[c].data();
        fv.v_out[c] = s_.v[c].data();
      }
      fv.kp = m_.kind[0];
      fv.dt = m_.dt;
      fv.size = m_.size;
      fv.inv_size = m_.inv_size;
      // The marked prey's terms in lanes too, when the predator grid has its lists.
      if (prey_only && !ctx.beh.prey_sees.empty() && ctx.beh.predator_grid.has_near_lists())
        fv.prey = &ctx.beh;
      if (lanes) {
        fv.behaviour = true;
        fv.model = &m_;
        fv.step = &ctx;
        fv.id = in_.id.data();
        fv.prey = &ctx.beh;
      }
    }
    for_each_row(
        g,
        [&](std::size_t, std::uint32_t first, std::uint32_t last, const FlockSums<Real>* sums) {
          if (nn_kernel) taken_.keep_counts(first, last, sums);
          if (fin) {
            fin(fv, first, last - first, sums);
            std::copy(in_.kind.begin() + first, in_.kind.begin() + last, s_.kind.begin() + first);
            std::copy(in_.id.begin() + first, in_.id.begin() + last, s_.id.begin() + first);
            if (prey_only && !fv.prey) {
              for (std::uint32_t j = first; j < last; ++j) {
                Real p[3], v[3];
                for (int c = 0; c < D; ++c) {
                  p[c] = in_.p[c][j];
                  v[c] = in_.v[c][j];
                }
                const bool seen = ctx.beh.prey_sees.empty()
                                      ? beh::sees_a_predator<Real, D>(m_, m_.kind[0], ctx.beh, p, v)
                                      : ctx.beh.prey_sees[j] != 0;  // marked by prepare_step
                if (seen) finish<D>(ctx, j, sums[j - first]);
              }
            }
          } else {
            for (std::uint32_t j = first; j < last; ++j) finish<D>(ctx, j, sums[j - first]);
          }
        },
        nn_kernel);
    finish_specials<D>(ctx);
  }

  // Kinds 1/2, after the cells' boids.
  template <int D>
  void finish_specials(const StepContext<Real>& ctx) {
    const std::uint32_t first = cells_.boid_end();
    const std::size_t n = s_.n;
    if (first == n) return;
    const double reach = std::max(double(m_.kind[1].radius), double(m_.kind[2].radius));
    special_grid_.build(D, m_.boundary == Boundary::wrap, double(m_.size), reach, n - first,
                        [&](std::size_t k, int c) { return in_.p[c][first + k]; });
    // One list walk per look-up, in the same order; 27 indices per agent, so not for huge
    // numbers of them (the merge then).
    if (n - first <= (std::size_t(1) << 18)) special_grid_.build_near_lists();
    ex_->parallel_for(n - first, 16, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) {
        const std::uint32_t j = first + std::uint32_t(k);
        finish<D>(ctx, j, special_sums<D>(in_, first, j, &special_grid_));
      }
    });
  }

  std::unique_ptr<Executor> ex_;
  Isa isa_;
  bool cluster_;  // engine.kind = "cluster"
  CellList<Real> cells_;
  // The step's input, in cell order; between steps in_.id holds the rank -> slot map
  // (slot_of_rank()).
  mutable BoidStore<Real> in_;
  KindGrid<Real> special_grid_;  // kinds 1/2, slots [boid_end, n) of in_
  RowScratchPool<Real> row_scratch_;
  // The step context, kept across steps so its arrays (the predators' marks and grids) are
  // reused rather than allocated and zeroed again every step (prepare_step_into).
  StepContext<Real> ctx_;
  bool id_order_ = true;
  mutable bool ranks_valid_ = false;
  // cells_, in_: the current s_'s cell list, built ahead by grid_shared_cells() (no rebuild).
  mutable bool cells_current_ = false;
  TakenRowKeeper<Real> taken_;  // the flock metrics' row (grid_request_row, grid_taken_row)
};

template <class Real>
GridEngine<Real>& grid_of(World& w) {
  auto* g = dynamic_cast<GridEngine<Real>*>(&engine_of(w));
  if (!g) throw Error("engine.kind: this needs a world created with the grid engine");
  return *g;
}

}  // namespace

std::unique_ptr<EngineBase> make_grid_engine(const WorldDef& def) {
  if (def.precision == Precision::f64) return std::make_unique<GridEngine<double>>(def);
  return std::make_unique<GridEngine<float>>(def);
}

void grid_build_cells(World& w) {
  if (w.precision() == Precision::f64)
    grid_of<double>(w).build_cells();
  else
    grid_of<float>(w).build_cells();
}

std::uint64_t grid_neighbour_pass(World& w) {
  if (w.precision() == Precision::f64) return grid_of<double>(w).bench_kernel();
  return grid_of<float>(w).bench_kernel();
}

std::vector<std::int32_t> grid_neighbour_counts(World& w) {
  if (w.precision() == Precision::f64) return grid_of<double>(w).neighbour_counts();
  return grid_of<float>(w).neighbour_counts();
}

}  // namespace boids
