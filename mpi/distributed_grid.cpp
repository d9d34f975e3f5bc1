// The distributed grid engine: `mpirun -np N boids run ...` with the single-process answer.
//
// Why the bits can match. The grid engine (parallel/grid_engine.cpp) computes a boid's update
// from (a) its neighbour sums, (b) the step context and (c) counter-based random draws keyed by
// (seed, id, step). (c) needs nothing global. (a) is a row kernel's sum over the boid's
// candidate range: the stencil cells' boids in a fixed order (column by column, within a cell
// by id, docs/engine.md), candidate k in virtual lane k mod 16, lanes combined by a fixed tree.
// So the sums are a pure function of the *cell grid* (plan: origin, cell size, cells and reach
// per axis, wrap mode) and of the *contents of the stencil cells*. They do not depend on any
// other cell. A rank that uses the global plan and holds every boid of its cells and of the
// cells within the stencil reach computes exactly the single-process sums for its own boids.
// (b) is a serial pass over the whole flock; the parts that sum over kind 0 are chained across
// the ranks in cell order (mpi/global_context.hpp); the kind 1/2 agents (predators, leaders:
// few) are replicated on every rank and stepped by every rank identically.
//
// One step on every rank:
//
//   plan      global: plan_grid() of the single-process engine with the global kind-0 count and
//             (open worlds) the global bounding box (MPI min/max: exact in any order)
//   balance   every kBalanceEvery steps, or when the plane count changed: the boids per plane
//             of the slab axis (z in 3D, y in 2D; planes are contiguous in cell order) are
//             summed over ranks (integers: exact) and cut into P slabs of about n/P boids.
//             A pure function of the state, and ownership never enters the arithmetic.
//   exchange  every owned boid goes to each rank whose slab, widened by the stencil reach
//             (periodically wrapped in a wrap world), holds its plane: to its new owner (a
//             migrant, however many slabs it crossed) and as a ghost to the others. One
//             MPI_Alltoallv of (id, position, velocity); kind is 0 for every routed boid.
//   build     the kept owned boids (in last step's cell order, never sent to themselves) and
//             the received ones, through the single-process cell list build with the global
//             plan (GridSettings::plan): cell, then id, as there, whatever the slot order
//   kernels   the same row kernels over this rank's own rows only (ghost rows are not
//             stepped), the same finish (FinishRow or finish_boid)
//   specials  every rank steps all kind 1/2 agents with the grid engine's brute-force loop
//
// Writing: sync() gathers the owned boids to rank 0, which puts the state and step count into
// its World; --out, --save, recordings and metrics are then written by the unchanged code on
// rank 0 (a first version: O(n) on one rank at every written frame).
//
// Limits of this version (docs/distributed.md): every rank builds the full World at start
// and holds the global cell array (O(cells) memory and prefix-sum work per rank per step);
// the grid engine only (--engine grid); the slab axis is the slowest cell axis.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <vector>

#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "mpi/distributed.hpp"
#include "mpi/global_context.hpp"
#include "mpi/helpers.hpp"
#include "mpi/slabs.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/list_step.hpp"
#include "parallel/threading.hpp"

namespace boids::mpi {
namespace {

using namespace detail;

constexpr std::uint64_t kBalanceEvery = 10;

template <class Real>
class DistributedGrid final : public Stepper {
 public:
  explicit DistributedGrid(const World& world)
      : def_(world.def()),
        m_(ModelParams<Real>::from_def(def_)),
        ex_(std::make_unique<Executor>(def_.threads, def_.host_parallel_for, def_.host_context)),
        isa_(dispatched_isa(def_.simd)),
        steps_(world.step_count()) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Every rank holds the same world: rank r starts with an equal share of the kind-0 boids
    // (by id rank); the first exchange sends each to its owner.
    const State s = world.state();
    std::size_t n0 = 0, ns = 0;
    for (std::uint8_t k : s.kind) (k == 0 ? n0 : ns) += 1;
    kind0_total_ = n0;
    const std::size_t b = n0 * std::size_t(rank_) / std::size_t(size_);
    const std::size_t e = n0 * std::size_t(rank_ + 1) / std::size_t(size_);
    own_.dims = spec_.dims = def_.dims;
    own_.resize(e - b);
    spec_.resize(ns);
    std::size_t k0 = 0, ks = 0;
    for (std::size_t i = 0; i < s.id.size(); ++i) {
      BoidStore<Real>& to = s.kind[i] == 0 ? own_ : spec_;
      std::size_t j;
      if (s.kind[i] == 0) {
        const std::size_t r = k0++;
        if (r < b || r >= e) continue;
        j = r - b;
      } else {
        j = ks++;
      }
      const double* p[3] = {s.x.data(), s.y.data(), s.z.data()};
      const double* v[3] = {s.vx.data(), s.vy.data(), s.vz.data()};
      for (int c = 0; c < def_.dims; ++c) {
        to.p[c][j] = Real(p[c][i]);
        to.v[c][j] = Real(v[c][i]);
      }
      to.kind[j] = s.kind[i];
      to.id[j] = s.id[i];
    }
  }

  void step(int count) override {
    for (int i = 0; i < count; ++i) {
      const double c0 = process_cpu_s();
      if (def_.dims == 2)
        step_once<2>();
      else
        step_once<3>();
      ++steps_;
      // The first step moves the initial equal shares to their owners: not a typical step.
      if (first_done_) {
        ++steps_run_;
        step_cpu_ += process_cpu_s() - c0;
        ghost_total_ += ghost_bytes_;
        migrant_total_ += migrant_bytes_;
      } else {
        first_done_ = true;
        mpi_cpu_ = mpi_wall_ = 0;
      }
    }
  }

  void sync(World& world) override {
    const int D = def_.dims;
    const int mine = int(own_.n);
    const std::size_t P = std::size_t(size_);
    std::vector<int> counts(P), displs(P + 1, 0);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int q = 0; q < size_; ++q) displs[q + 1] = displs[q] + counts[q];
    std::vector<std::uint32_t> ids;
    std::vector<Real> reals, mine_reals(std::size_t(2 * D) * own_.n);
    for (std::size_t i = 0; i < own_.n; ++i)
      for (int c = 0; c < D; ++c) {
        mine_reals[2 * D * i + c] = own_.p[c][i];
        mine_reals[2 * D * i + D + c] = own_.v[c][i];
      }
    if (rank_ == 0) {
      ids.resize(std::size_t(displs[size_]));
      reals.resize(ids.size() * 2 * D);
    }
    MPI_Gatherv(own_.id.data(), mine, MPI_UINT32_T, ids.data(), counts.data(), displs.data(),
                MPI_UINT32_T, 0, MPI_COMM_WORLD);
    std::vector<int> rc(counts), rd(displs);
    for (int q = 0; q < size_; ++q) rc[q] *= 2 * D, rd[q] *= 2 * D;
    MPI_Gatherv(mine_reals.data(), mine * 2 * D, mpi_real<Real>(), reals.data(), rc.data(),
                rd.data(), mpi_real<Real>(), 0, MPI_COMM_WORLD);
    if (rank_ != 0) return;
    // Kind-0 rows and the replicated specials, merged in id order.
    const std::size_t n0 = ids.size(), n = n0 + spec_.n;
    std::vector<std::uint32_t> all_ids(ids);
    for (std::size_t j = 0; j < spec_.n; ++j) all_ids.push_back(spec_.id[j]);
    sort_by_id(all_ids.data(), n, order_, tmp_);
    State st;
    std::vector<double>* p[3] = {&st.x, &st.y, &st.z};
    std::vector<double>* v[3] = {&st.vx, &st.vy, &st.vz};
    for (int c = 0; c < D; ++c) p[c]->assign(n, 0.0), v[c]->assign(n, 0.0);
    st.id.resize(n);
    st.kind.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t i = order_[r];
      st.id[r] = all_ids[i];
      for (int c = 0; c < D; ++c) {
        (*p[c])[r] = i < n0 ? double(reals[2 * D * i + c]) : double(spec_.p[c][i - n0]);
        (*v[c])[r] = i < n0 ? double(reals[2 * D * i + D + c]) : double(spec_.v[c][i - n0]);
      }
      st.kind[r] = i < n0 ? 0 : spec_.kind[i - n0];
    }
    engine_of(world).restore(st, steps_, world.next_id());
  }

  std::string summary() override {
    // Per rank: ghost and migrant bytes summed over the steps run, and the owned boids.
    const double mine[5] = {double(ghost_total_), double(migrant_total_), double(own_.n),
                            step_cpu_ - mpi_cpu_, mpi_wall_};
    double sum[5], mx[5], mn[5];
    MPI_Reduce(mine, sum, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, mx, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, mn, 5, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank_ != 0) return {};
    const double steps = double(std::max<std::uint64_t>(1, steps_run_)), P = double(size_);
    char line[512];
    std::snprintf(line, sizeof line,
                  "mpi: %d ranks (slabs along %s), bytes sent per step per rank: ghosts %.0f "
                  "(largest rank %.0f), migrants %.0f (largest %.0f); boids per rank %.0f..%.0f; "
                  "cpu ms per step per rank outside MPI %.3f (largest %.3f), wall ms in MPI "
                  "%.3f (largest %.3f)",
                  size_, def_.dims == 2 ? "y" : "z", sum[0] / P / steps, mx[0] / steps,
                  sum[1] / P / steps, mx[1] / steps, mn[2], mx[2], 1e3 * sum[3] / P / steps,
                  1e3 * mx[3] / steps, 1e3 * sum[4] / P / steps, 1e3 * mx[4] / steps);
    return line;
  }

 private:
  GridSettings settings() const {
    GridSettings gs;
    gs.dims = def_.dims;
    gs.boundary = m_.boundary;
    gs.size = def_.size;
    gs.radius = double(m_.kind[0].radius);
    gs.cells_per_radius = def_.cells_per_radius;
    return gs;
  }

  GridPlan global_plan(const GridSettings& gs) const {
    double lo[3], hi[3];
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::numeric_limits<double>::infinity();
      hi[c] = -std::numeric_limits<double>::infinity();
    }
    if (gs.boundary == Boundary::open) {
      for (std::size_t i = 0; i < own_.n; ++i)
        for (int c = 0; c < gs.dims; ++c) {
          lo[c] = std::min(lo[c], double(own_.p[c][i]));
          hi[c] = std::max(hi[c], double(own_.p[c][i]));
        }
      MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return plan_grid(gs, lo, hi, kind0_total_);
  }

  // Migration and ghosts in one all-to-all. loc_ = the owned boids this rank keeps (in their
  // slots' order, which is last step's cell order), then everything received. The cell list
  // build orders loc_ by cell, then id, whatever its slot order (parallel/cell_list.cpp), so
  // the kept boids never travel through MPI or a sort, and their near-cell order makes the
  // build's scatter cache-friendly, as in the single-process engine.
  template <int D>
  void exchange() {
    const std::size_t P = std::size_t(size_);
    std::vector<int> scount(P, 0), rcount(P, 0), sdispl(P + 1, 0), rdispl(P + 1, 0);
    // Per plane: does this rank keep its boids (owner or ghost holder), and do others need them.
    std::vector<char> keep(slabs_.dest.size(), 0), away(slabs_.dest.size(), 0);
    for (std::size_t z = 0; z < slabs_.dest.size(); ++z)
      for (int q : slabs_.dest[z]) (q == rank_ ? keep[z] : away[z]) = 1;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < own_.n; ++i) {
      const std::size_t z = std::size_t(plane_[i]);
      kept += std::size_t(keep[z]);
      if (away[z])
        for (int q : slabs_.dest[z]) scount[std::size_t(q)] += q != rank_;
    }
    for (std::size_t q = 0; q < P; ++q) sdispl[q + 1] = sdispl[q] + scount[q];
    sid_.resize(static_cast<std::size_t>(sdispl[P]));
    sreal_.resize(sid_.size() * 2 * D);
    std::vector<int> at(sdispl.begin(), sdispl.end() - 1);
    ghost_bytes_ = migrant_bytes_ = 0;
    const std::uint64_t rec = sizeof(std::uint32_t) + 2 * D * sizeof(Real);
    for (std::size_t i = 0; i < own_.n; ++i) {
      const int z = plane_[i];
      if (!away[std::size_t(z)]) continue;
      for (int q : slabs_.dest[std::size_t(z)]) {
        if (q == rank_) continue;
        const std::size_t k = std::size_t(at[std::size_t(q)]++);
        sid_[k] = own_.id[i];
        for (int c = 0; c < D; ++c) {
          sreal_[2 * D * k + c] = own_.p[c][i];
          sreal_[2 * D * k + D + c] = own_.v[c][i];
        }
        (slabs_.owner[std::size_t(z)] == q ? migrant_bytes_ : ghost_bytes_) += rec;
      }
    }
    {
      InMpi in_mpi(mpi_cpu_, mpi_wall_);
      MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
      for (std::size_t q = 0; q < P; ++q) rdispl[q + 1] = rdispl[q] + rcount[q];
      rid_.resize(static_cast<std::size_t>(rdispl[P]));
      rreal_.resize(rid_.size() * 2 * D);
      MPI_Alltoallv(sid_.data(), scount.data(), sdispl.data(), MPI_UINT32_T, rid_.data(),
                    rcount.data(), rdispl.data(), MPI_UINT32_T, MPI_COMM_WORLD);
      for (std::size_t q = 0; q < P; ++q) {
        scount[q] *= 2 * D, sdispl[q] *= 2 * D;
        rcount[q] *= 2 * D, rdispl[q] *= 2 * D;
      }
      MPI_Alltoallv(sreal_.data(), scount.data(), sdispl.data(), mpi_real<Real>(), rreal_.data(),
                    rcount.data(), rdispl.data(), mpi_real<Real>(), MPI_COMM_WORLD);
    }
    const std::size_t n = kept + rid_.size();
    reserve_padded(loc_, D, n);
    std::size_t k = 0;
    for (std::size_t i = 0; i < own_.n; ++i) {
      if (!keep[std::size_t(plane_[i])]) continue;
      for (int c = 0; c < D; ++c) {
        loc_.p[c][k] = own_.p[c][i];
        loc_.v[c][k] = own_.v[c][i];
      }
      loc_.id[k++] = own_.id[i];
    }
    ex_->parallel_for(rid_.size(), 16384, [&](std::size_t b, std::size_t e) {
      for (std::size_t j = b; j < e; ++j) {
        for (int c = 0; c < D; ++c) {
          loc_.p[c][kept + j] = rreal_[2 * D * j + c];
          loc_.v[c][kept + j] = rreal_[2 * D * j + D + c];
        }
        loc_.id[kept + j] = rid_[j];
      }
    });
    std::fill(loc_.kind.data(), loc_.kind.data() + n, std::uint8_t(0));
  }

  // The kind 1/2 agent in slot i of spec_ over its own kind: spec_ holds every kind 1/2
  // agent in id order, so this is the naive stepper's loop (the grid engine's special_sums).
  template <int D>
  FlockSums<Real> special_sums(std::uint32_t i) const {
    return naive_sums<Real, D>(m_, spec_, i);
  }

  RowKernel<Real> pick_kernel(const GridPlan& plan) const {
    const KindParams<Real>& kp = m_.kind[0];
    // As the grid engine's pick_kernel(): the row kernels wherever they cover the rule.
    if (!row_simd_pair_rule(kp))
      return m_.dims == 2 ? &generic_row_sums<Real, 2> : &generic_row_sums<Real, 3>;
    return select_row_kernel<Real>(isa_, m_.dims, plan.wrap, kp.full_view);
  }

  // The metric rules: the row kernels over this rank's own rows, then the finish.
  template <int D>
  void step_rows(const StepContext<Real>& ctx, const GridPlan& plan, const GridView<Real>& g,
                 std::size_t row0, std::size_t row1) {
    const FinishRow<Real> fin =
        ctx.beh.active ? nullptr : select_finish_row<Real>(isa_, D, m_.boundary);
    FinishView<Real> fv;
    if (fin) {
      for (int c = 0; c < 3; ++c) {
        fv.p[c] = in_.p[c].data();
        fv.v[c] = in_.v[c].data();
        fv.p_out[c] = out_.p[c].data();
        fv.v_out[c] = out_.v[c].data();
      }
      fv.kp = m_.kind[0];
      fv.dt = m_.dt;
      fv.size = m_.size;
      fv.inv_size = m_.inv_size;
    }
    const RowKernel<Real> kernel = pick_kernel(plan);
    ex_->parallel_for(row1 - row0, 1, [&](std::size_t b, std::size_t e) {
      std::vector<FlockSums<Real>> buf;
      KernelScratch<Real> scratch;
      for (std::size_t row = row0 + b; row < row0 + e; ++row) {
        const std::uint32_t first = g.row_start(row), last = g.row_start(row + 1);
        if (first == last) continue;
        if (buf.size() < last - first) buf.resize(last - first);
        kernel(g, std::uint32_t(row), buf.data(), scratch);
        if (fin) {
          fin(fv, first, last - first, buf.data());
          for (std::uint32_t j = first; j < last; ++j) {
            out_.kind[j] = in_.kind[j];
            out_.id[j] = in_.id[j];
          }
        } else {
          for (std::uint32_t j = first; j < last; ++j)
            finish_slot<Real, D>(m_, ctx, in_, j, buf[j - first], out_, j);
        }
      }
    });
  }

  template <int D>
  void step_once() {
    constexpr int A = D - 1;  // the slab axis: the slowest in cell order
    GridSettings gs = settings();
    GridPlan plan;
    {
      InMpi in_mpi(mpi_cpu_, mpi_wall_);
      plan = global_plan(gs);
    }
    const int planes = plan.n[A];
    plane_.resize(own_.n);
    ex_->parallel_for(own_.n, 16384, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        plane_[i] = axis_cell(double(own_.p[A][i]), plan.lo[A], plan.inv_cell[A], planes);
    });
    if (planes != slabs_.planes || steps_ % kBalanceEvery == 0) {
      std::vector<long long> cnt(std::size_t(planes), 0);
      for (int z : plane_) ++cnt[std::size_t(z)];
      {
        InMpi in_mpi(mpi_cpu_, mpi_wall_);
        MPI_Allreduce(MPI_IN_PLACE, cnt.data(), planes, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      }
      slabs_.balance(cnt, size_);
    }
    slabs_.route(plan.reach[A], m_.boundary == Boundary::wrap);
    exchange<D>();

    gs.plan = &plan;
    cells_.build(gs, loc_, in_, *ex_);
    const GridView<Real> g = cells_.view(in_, m_);
    const std::size_t per_plane = D == 3 ? std::size_t(plan.n[1]) : 1;
    const std::size_t row0 = std::size_t(slabs_.cuts[std::size_t(rank_)]) * per_plane;
    const std::size_t row1 = std::size_t(slabs_.cuts[std::size_t(rank_) + 1]) * per_plane;
    const std::uint32_t s0 = g.row_start(row0), s1 = g.row_start(row1);

    StepContext<Real> ctx;
    ctx.step = steps_;
    ctx.seed = def_.seed;
    prepare_behaviours(m_, spec_, ctx);
    {
      InMpi in_mpi(mpi_cpu_, mpi_wall_);
      complete_context(m_, in_, s0, s1, ctx, MPI_COMM_WORLD);
    }

    reserve_padded(out_, D, in_.n);
    if (m_.list.active) {
      // Topological neighbours and the couzin profile (parallel/list_step.hpp) step every
      // held row, the ghost rows too: an owned boid's result depends only on its stencil
      // cells, which this rank holds whole; a ghost's is incomplete and dropped with the
      // ghost slots below. (A row range for list_step would save the ghost rows' work.)
      list_step<Real>(m_, ctx, g, in_, out_, *ex_);
    } else {
      step_rows<D>(ctx, plan, g, row0, row1);
    }
    // The kind 1/2 agents, on every rank alike.
    BoidStore<Real> spec_next;
    spec_next.dims = D;
    spec_next.resize(spec_.n);
    for (std::uint32_t j = 0; j < spec_.n; ++j)
      finish_slot<Real, D>(m_, ctx, spec_, j, special_sums<D>(j), spec_next, j);
    spec_.swap(spec_next);
    // The owned slots become the held boids of the next step.
    own_.dims = D;
    if (own_.n != s1 - s0 || own_.capacity() < s1 - s0) own_.resize(s1 - s0);
    for (int c = 0; c < D; ++c) {
      std::copy(out_.p[c].data() + s0, out_.p[c].data() + s1, own_.p[c].data());
      std::copy(out_.v[c].data() + s0, out_.v[c].data() + s1, own_.v[c].data());
    }
    std::copy(out_.kind.data() + s0, out_.kind.data() + s1, own_.kind.data());
    std::copy(out_.id.data() + s0, out_.id.data() + s1, own_.id.data());
  }

  WorldDef def_;
  ModelParams<Real> m_;
  std::unique_ptr<Executor> ex_;
  Isa isa_;
  std::uint64_t steps_;
  int rank_ = 0, size_ = 1;
  std::size_t kind0_total_ = 0;
  BoidStore<Real> own_;   // the kind-0 boids this rank owns (any order)
  BoidStore<Real> spec_;  // every kind 1/2 agent, in id order (replicated)
  BoidStore<Real> loc_;   // kept owned boids, then the received ones; the cell list's input
  BoidStore<Real> in_;    // loc_ in cell order
  BoidStore<Real> out_;   // the step's result, same slots as in_
  CellList<Real> cells_;
  std::vector<int> plane_;  // slab-axis plane of every owned boid
  Slabs slabs_;
  std::vector<std::uint32_t> order_, tmp_;
  std::vector<std::uint32_t> sid_, rid_;  // exchange buffers, kept across steps
  std::vector<Real> sreal_, rreal_;
  std::uint64_t ghost_bytes_ = 0, migrant_bytes_ = 0;  // sent by this rank in the last step
  std::uint64_t ghost_total_ = 0, migrant_total_ = 0, steps_run_ = 0;
  double step_cpu_ = 0, mpi_cpu_ = 0, mpi_wall_ = 0;  // seconds over the steps counted
  bool first_done_ = false;
};

}  // namespace

std::unique_ptr<Stepper> make_stepper(const World& world) {
  if (!active()) return nullptr;
  const WorldDef& def = world.def();
  if (def.engine != EngineKind::grid)
    throw Error(
        "engine.kind: a distributed run (mpirun) steps with the grid engine; use --engine grid");
  if (def.update == UpdateOrder::sequential)
    throw Error(
        "world.update: \"sequential\" updates one agent after another, so a distributed run "
        "cannot split it; use \"synchronous\" or run without mpirun");
  if (world.precision() == Precision::f64) return std::make_unique<DistributedGrid<double>>(world);
  return std::make_unique<DistributedGrid<float>>(world);
}

}  // namespace boids::mpi
