// Flock metrics (include/boids/metrics.hpp, docs/metrics.md).
//
// Design. The boids of the chosen kind are counted per block of the engine's store (and boxed,
// without wrap), given the cell of a private cell list (cubic cells of edge >= the radius) and
// counting-sorted straight from the store into that cell order (sequential reads; no id-order
// copy of the world). Every sum is taken in 128-bit fixed point (FixedSum,
// parallel/metrics_pairs.hpp): integer additions, exact in any order, so no result depends on
// the slot order, the engine, the thread count or how the executor splits a loop. Three passes
// over blocks of kBlock boids of cell order follow, each compiled per instruction set:
//   A. speeds, unit velocities and the centre sums (circular under `wrap`, with a
//      table-and-series sine and cosine: a fixed sequence of correctly rounded operations),
//      W lanes at a time with exact integer-valued lane sums (parallel/metrics_moments.hpp);
//   B. the angular momentum sum r_hat x v_hat about that centre, likewise;
//   C. the pair pass (parallel/metrics_pairs.hpp): every boid's neighbour count (radius, view
//      cone, with the model's own arithmetic in the world's precision) and its nearest
//      same-kind neighbour;
//   D. the cluster links by cells (parallel/metrics_links_impl.hpp), fed to a lock-free
//      union-find: each cell's own pairs, then each pair of neighbouring cells, skipped when
//      both cells already lie in one set.
// The union-find links the larger root under the smaller with a compare-and-swap; whatever
// order the links arrive in, the final partition is the connected components of the link
// graph, which is unique, so the cluster count and the largest size are exact and
// deterministic. A serial pass then counts the components.
#include "boids/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/engine.hpp"
#include "core/model.hpp"
#include "parallel/grid_engine.hpp"
#include "parallel/metrics_cells.hpp"
#include "parallel/metrics_limits.hpp"
#include "parallel/metrics_pairs.hpp"
#include "parallel/metrics_turn.hpp"
#include "parallel/metrics_union.hpp"
#include "parallel/threading.hpp"

namespace boids {
namespace {

constexpr std::size_t kBlock = 2048;
constexpr double kTwoPi = 6.283185307179586476925286766559;

using namespace metrics_detail;

std::atomic<std::uint64_t> g_fused_rows{0}, g_fused_boids{0};

// The fused row's counts and nearest distances (MetricsCalculator::defer): per cell of the
// step's cell list, from the step's kernel (tk.k, tk.nearest2) where its arithmetic is the
// pair pass's, and a flag in s.fallback where it is not: a cell on a face of a wrapping grid
// (the kernel's candidates there are fl(p_j + L) - p_i, the pass's fl(p_j - p_i) + L), or a
// cell with a boid whose nearest boid lies beyond the stencil (the pass's ring search). The
// other cells' boids are summed in runs of consecutive cells, W lanes at a time (FusedFn).
template <class Real, int D>
void fused_cells(Executor& ex, Scratch<Real>& s, const PairInput<Real>& in, const Grid& g,
                 const TakenRow<Real>& tk, PairSums& total) {
  constexpr std::size_t kCells = 512;
  const std::size_t ncells = g.cells();
  const std::size_t nb = (ncells + kCells - 1) / kCells;
  const Real limit = ring_limit<Real>(g.edge);
  const FusedFn<Real> fused = select_fused_fn<Real>();
  s.fallback.resize(ncells);  // every entry is written below
  s.sums.assign(nb, PairSums{});
  ex.parallel_for(nb, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      const std::size_t c0 = b * kCells, c1 = std::min(ncells, (b + 1) * kCells);
      for (std::size_t c = c0; c < c1; ++c) {
        const std::uint32_t i0 = in.start[c], i1 = in.start[c + 1];
        bool fb = false;
        if (in.wrap == PairWrap::shift && i0 != i1) {
          std::size_t rest = c;
          for (int a = 0; a < D; ++a) {
            const std::size_t x = rest % std::size_t(g.n[a]);
            rest /= std::size_t(g.n[a]);
            fb = fb || x == 0 || x + 1 == std::size_t(g.n[a]);
          }
        }
        for (std::uint32_t i = i0; i < i1 && !fb; ++i) fb = !(tk.nearest2[i] <= limit);
        s.fallback[c] = fb;
      }
      for (std::size_t c = c0; c < c1;) {
        if (s.fallback[c]) {
          ++c;
          continue;
        }
        std::size_t e = c + 1;
        while (e < c1 && !s.fallback[e]) ++e;
        if (in.start[c] < in.start[e])
          fused(tk.nearest2, tk.k, in.start[c], in.start[e], in.topo_k, s.sums[b]);
        c = e;
      }
    }
  });
  for (const PairSums& q : s.sums) {
    total.nnd += q.nnd;
    total.nnd_count += q.nnd_count;
    total.neighbours += q.neighbours;
  }
  g_fused_boids.fetch_add(total.nnd_count, std::memory_order_relaxed);
  // The other cells: the pair pass over runs of consecutive ones (empty cells joined in), cut
  // into pieces of at most kBlock boids.
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& runs = s.runs;
  runs.clear();
  for (std::size_t c = 0; c < ncells;) {
    if (!s.fallback[c]) {
      ++c;
      continue;
    }
    std::size_t e = c + 1;
    while (e < ncells && (s.fallback[e] || in.start[e] == in.start[e + 1])) ++e;
    for (std::uint32_t b = in.start[c]; b < in.start[e];) {
      const std::uint32_t to = std::min<std::uint32_t>(in.start[e], b + std::uint32_t(kBlock));
      runs.emplace_back(b, to);
      b = to;
    }
    c = e;
  }
  const PairFn<Real> pairs = select_pair_fn<Real>(D, in.wrap, in.cone);
  s.sums.assign(runs.size(), PairSums{});
  ex.parallel_for(runs.size(), 1, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) pairs(in, runs[r].first, runs[r].second, s.sums[r]);
  });
  for (const PairSums& q : s.sums) {
    total.nnd += q.nnd;
    total.nnd_count += q.nnd_count;
    total.neighbours += q.neighbours;
  }
}

template <class Real, int D>
FlockMetrics compute_typed(Executor& ex, Scratch<Real>& s, const World& world, int kind,
                           const TakenRow<Real>* tk = nullptr, bool last = false) {
  const WorldDef& def = world.def();
  const auto* engine = dynamic_cast<const EngineT<Real>*>(&engine_of(world));
  if (!engine) throw Error("metrics: the world's precision does not match its engine");
  // A deferred row (tk) reads the state the last step read: its input, in cell order.
  const BoidStore<Real>& store = tk ? *tk->in : engine->slots();
  const std::size_t total = store.n;
  const bool wrap = def.boundary == Boundary::wrap;
  const std::size_t gblocks = (total + kBlock - 1) / kBlock;
  const ModelParams<Real> mp = ModelParams<Real>::from_def(def);
  const KindParams<Real>& kp = mp.kind[kind];
  FlockMetrics m;
  Grid g;
  std::size_t n = 0;
  PairInput<Real> in;  // the boids in cell order, for the pair pass
  // The metrics' own cell list, when the engine's cannot be shared (below).
  auto own_cells = [&]() {
    // The kind's boids are counted (and their bounding box taken, without wrap) per block of the
    // store's slots, then sorted straight from the store into the metrics' cell order (a stable
    // counting sort, sequential reads). Every sum below is exact in fixed point, so no order
    // can change a bit.
    s.offset.assign(gblocks + 1, 0);
    s.part.assign(gblocks, Partial{});
    ex.parallel_for(gblocks, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) {
        std::uint32_t k = 0;
        Partial& q = s.part[b];
        for (std::size_t r = b * kBlock; r < std::min(total, (b + 1) * kBlock); ++r) {
          if (store.kind[r] != kind) continue;
          ++k;
          for (int c = 0; c < D && !wrap; ++c) {
            q.lo[c] = std::min(q.lo[c], double(store.p[c][r]));
            q.hi[c] = std::max(q.hi[c], double(store.p[c][r]));
          }
        }
        s.offset[b + 1] = k;
      }
    });
    n = 0;
    double lo[3] = {kInf, kInf, kInf}, hi[3] = {-kInf, -kInf, -kInf};
    for (std::size_t b = 0; b < gblocks; ++b) {
      n += s.offset[b + 1];
      for (int c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], s.part[b].lo[c]);
        hi[c] = std::max(hi[c], s.part[b].hi[c]);
      }
    }
    for (int c = D; c < 3; ++c) lo[c] = hi[c] = 0;
    if (n == 0) return;
    g = make_grid(def, def.kinds[kind].rules.radius, n, lo, hi);
    const std::size_t ncells = g.cells();
    constexpr std::uint32_t kOther = std::numeric_limits<std::uint32_t>::max();  // another kind
    s.cell.resize(total);
    ex.parallel_for(gblocks, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t r = b0 * kBlock; r < std::min(total, b1 * kBlock); ++r) {
        int cc[3] = {0, 0, 0};
        for (int c = 0; c < D; ++c) cc[c] = g.coord(double(store.p[c][r]), c);
        const std::uint32_t cell = std::uint32_t(
            (std::size_t(cc[2]) * std::size_t(g.n[1]) + std::size_t(cc[1])) * std::size_t(g.n[0]) +
            std::size_t(cc[0]));
        s.cell[r] = store.kind[r] == kind ? cell : kOther;
      }
    });
    s.start.assign(ncells + 1, 0);
    for (std::size_t r = 0; r < total; ++r) {
      if (s.cell[r] != kOther) s.start[s.cell[r] + 1] += 1;
    }
    for (std::size_t c = 0; c < ncells; ++c) s.start[c + 1] += s.start[c];
    const bool velocities = !kp.full_view;  // only the pair pass's view test reads them
    for (int c = 0; c < D; ++c) {
      s.sp[c].resize(n + kPairPad);
      s.sv[c].resize(velocities ? n + kPairPad : 0);
    }
    {
      HugeVector<std::uint32_t>& fill = s.size;  // reused as the scatter cursor
      fill.assign(s.start.begin(), s.start.end() - 1);
      for (std::size_t r = 0; r < total; ++r) {
        const std::uint32_t cell = s.cell[r];
        if (cell == kOther) continue;
        const std::uint32_t to = fill[cell]++;
        for (int c = 0; c < D; ++c) s.sp[c][to] = store.p[c][r];
        if (!velocities) continue;
        for (int c = 0; c < D; ++c) s.sv[c][to] = store.v[c][r];
      }
    }
    for (int c = 0; c < D; ++c) {
      in.p[c] = s.sp[c].data();
      in.v[c] = s.sv[c].data();
    }
    in.start = s.start.data();
  };
  // Kind 0 with the grid engine: its cell list of the current state is the one the next step
  // reads (cells of edge >= the radius, searched one cell out, in cell order), so it serves
  // the pair pass as it is and is built once for both (parallel/grid_engine.hpp). For a state
  // no step will follow (`last`, compute_final) it is used only when built already: the
  // engine's build (ids sorted per cell, every column gathered) costs more than own_cells()
  // once its buffers are warm (docs/metrics.md: a run's first own list is about even).
  SharedCells<Real> sh;
  bool shared = false;
  if (tk) {
    sh = tk->cells;
    shared = kind == 0 && sh.cell_start != nullptr;
  } else {
    shared = kind == 0 && grid_shared_cells<Real>(world, sh, /*build=*/!last);
  }
  if (shared) {
    for (int a = 0; a < 3; ++a) {
      g.n[a] = sh.n[a];
      g.lo[a] = sh.lo[a];
    }
    g.edge = sh.edge * (1 - 1e-9);  // only bounds the ring search: a hair short is safe
    g.wrap = wrap;
    n = sh.cell_start[g.cells()];
    shared = sh.readable >= n + kPairRead;  // the pass reads whole batches past the last boid
  }
  if (shared) {
    m.count = n;
    if (n == 0) return m;
    for (int c = 0; c < 3; ++c) {
      in.p[c] = sh.p[c];
      in.v[c] = sh.v[c];
    }
    in.start = sh.cell_start;
  } else {
    own_cells();
    m.count = n;
    if (n == 0) return m;
  }
  const std::size_t nblocks = (n + kBlock - 1) / kBlock;
  auto blocks = [&](auto&& body) {
    ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) body(b, b * kBlock, std::min(n, (b + 1) * kBlock));
    });
  };
  // Pass A (parallel/metrics_moments.hpp, W lanes at a time), over the store's slots: the sums
  // need no order.
  static const TurnTable table;
  MomentInput<Real> mi;
  for (int c = 0; c < D; ++c) {
    mi.p[c] = store.p[c].data();
    mi.v[c] = store.v[c].data();
  }
  mi.kind_of = store.kind.data();
  mi.kind = kind;
  mi.size = def.size;
  mi.ts = table.sin;
  mi.tc = table.cos;
  const MomentFn<Real> pass_a = select_moment_fn<Real>(false, D, wrap);
  auto slot_blocks = [&](auto&& body) {
    ex.parallel_for(gblocks, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) body(b, b * kBlock, std::min(total, (b + 1) * kBlock));
    });
  };
  s.part.assign(gblocks, Partial{});
  slot_blocks(
      [&](std::size_t b, std::size_t i0, std::size_t i1) { pass_a(mi, i0, i1, s.part[b]); });
  Partial t;
  for (const Partial& q : s.part) {
    t.speed += q.speed;
    t.moving += q.moving;
    for (int c = 0; c < 3; ++c) {
      t.vhat[c] += q.vhat[c];
      t.centre_a[c] += q.centre_a[c];
      t.centre_b[c] += q.centre_b[c];
    }
  }
  m.moving = t.moving;
  m.mean_speed = double(t.speed) / kValueScale / double(n);
  double centre[3] = {0, 0, 0};
  if (t.moving > 0) {
    double pol2 = 0;
    for (int c = 0; c < D; ++c) {
      const double vh = double(t.vhat[c]) / kUnitScale;
      pol2 += vh * vh;
      if (wrap) {
        double a =
            std::atan2(double(t.centre_a[c]) / kUnitScale, double(t.centre_b[c]) / kUnitScale) /
            kTwoPi * def.size;
        centre[c] = a < 0 ? a + def.size : a;
      } else {
        centre[c] = double(t.centre_a[c]) / kValueScale / double(t.moving);
      }
    }
    m.polarization = std::min(1.0, std::sqrt(pol2) / double(t.moving));
    // Pass B.
    for (int c = 0; c < 3; ++c) mi.centre[c] = centre[c];
    const MomentFn<Real> pass_b = select_moment_fn<Real>(true, D, wrap);
    slot_blocks(
        [&](std::size_t b, std::size_t i0, std::size_t i1) { pass_b(mi, i0, i1, s.part[b]); });
    FixedSum momf[3] = {0, 0, 0};
    for (const Partial& q : s.part) {
      for (int c = 0; c < 3; ++c) momf[c] += q.mom[c];
    }
    double mom[3];
    for (int c = 0; c < 3; ++c) mom[c] = double(momf[c]) / kUnitScale;
    m.milling = std::min(
        1.0, std::sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / double(t.moving));
  }
  // Pass C: the pairs, over the cell list built above.
  if (s.parent_cap < n) {  // padded: the pair pass reads whole batches of entries
    s.parent = make_huge_array<std::atomic<std::uint32_t>>(n + kPairPad);
    s.parent_cap = n;
  }
  for (std::size_t i = n; i < n + kPairPad; ++i) s.parent[i].store(0, std::memory_order_relaxed);
  blocks([&](std::size_t, std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      s.parent[i].store(std::uint32_t(i), std::memory_order_relaxed);
  });
  bool five = true;
  for (int a = 0; a < 3; ++a) {
    in.n[a] = g.n[a];
    in.lo[a] = g.lo[a];
    five = five && (a >= D || g.n[a] >= 5);
  }
  in.edge = g.edge;
  in.wrap = !wrap ? PairWrap::none : five ? PairWrap::shift : PairWrap::min_image;
  in.size = mp.size;
  in.inv_size = mp.inv_size;
  in.radius2 = kp.radius2;
  in.cos_half_view = kp.cos_half_view;
  // Topological neighbours: the model sees at most the k nearest of the visible ones.
  in.topo_k = kind == 0 ? std::uint64_t(mp.list.topo_k) : 0;
  in.parent = s.parent.get();
  // Pass D: the links, by cells, in two parallel loops (phase 1 reads every cell's
  // `uniform` from phase 0).
  const std::size_t ncells = g.cells();
  s.uniform.resize(ncells);
  in.uniform = s.uniform.data();
  {
    const LinkFn<Real> links = select_link_fn<Real>(D, in.wrap);
    for (int phase = 0; phase < 2; ++phase) {
      ex.parallel_for(ncells, 256, [&](std::size_t c0, std::size_t c1) {
        PairSums unused;
        links(in, c0, c1, phase, unused);
      });
    }
  }
  std::uint64_t neighbours = 0, nnd_count = 0;
  FixedSum nnd = 0;
  if (tk && tk->fused && shared && in.wrap != PairWrap::min_image) {
    // The fused row: the step's kernel counted the neighbours and found the nearest boid in
    // the stencil with this pass's arithmetic, except where fused_cells says otherwise.
    in.cone = !kp.full_view;
    PairSums fs;
    fused_cells<Real, D>(ex, s, in, g, *tk, fs);
    neighbours = fs.neighbours;
    nnd = fs.nnd;
    nnd_count = fs.nnd_count;
    g_fused_rows.fetch_add(1, std::memory_order_relaxed);
  } else {
    const PairFn<Real> pairs = select_pair_fn<Real>(D, in.wrap, !kp.full_view);
    std::vector<PairSums>& sums = s.sums;
    sums.assign(nblocks, PairSums{});
    blocks([&](std::size_t b, std::size_t i0, std::size_t i1) { pairs(in, i0, i1, sums[b]); });
    for (const PairSums& q : sums) {
      neighbours += q.neighbours;
      nnd += q.nnd;
      nnd_count += q.nnd_count;
    }
  }
  m.mean_neighbours = double(neighbours) / double(n);
  m.mean_nnd = nnd_count > 0 ? double(nnd) / kValueScale / double(nnd_count) : 0.0;
  // Components: roots have parent[x] == x, and parent[x] <= x always (a union hangs the
  // larger root under the smaller; path halving and the link pass's own cells store ancestors),
  // so one pass in index order finds each boid's root as its parent's, already resolved.
  s.size.assign(n, 0);
  std::uint32_t largest = 0;
  std::atomic<std::uint32_t>* parent = s.parent.get();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t p = parent[i].load(std::memory_order_relaxed);
    const std::uint32_t r = p == i ? p : parent[p].load(std::memory_order_relaxed);
    parent[i].store(r, std::memory_order_relaxed);
    m.clusters += r == i;
    largest = std::max(largest, ++s.size[r]);
  }
  m.largest_cluster = double(largest) / double(n);
  return m;
}

}  // namespace

struct MetricsCalculator::Impl {
  Impl(int threads, HostParallelFor host, void* ctx) : ex(threads, host, ctx) {}
  Executor ex;
  Scratch<float> f;
  Scratch<double> d;
  bool deferred = false;  // defer() asked the world's next step for a row
};

MetricsCalculator::MetricsCalculator(int threads, HostParallelFor host_parallel_for,
                                     void* host_context)
    : impl_(std::make_unique<Impl>(threads, host_parallel_for, host_context)) {}
MetricsCalculator::~MetricsCalculator() = default;
MetricsCalculator::MetricsCalculator(MetricsCalculator&&) noexcept = default;
MetricsCalculator& MetricsCalculator::operator=(MetricsCalculator&&) noexcept = default;

namespace {
FlockMetrics compute_any(Executor& ex, Scratch<float>& f, Scratch<double>& d, const World& world,
                         int kind, bool last) {
  if (kind < 0 || kind >= kKindCount) {
    throw Error("metrics kind: must be 0 (boids), 1 (predators) or 2 (leaders), got " +
                std::to_string(kind));
  }
  const bool three = world.dims() == 3;
  if (world.precision() == Precision::f32) {
    return three ? compute_typed<float, 3>(ex, f, world, kind, nullptr, last)
                 : compute_typed<float, 2>(ex, f, world, kind, nullptr, last);
  }
  return three ? compute_typed<double, 3>(ex, d, world, kind, nullptr, last)
               : compute_typed<double, 2>(ex, d, world, kind, nullptr, last);
}
}  // namespace

FlockMetrics MetricsCalculator::compute(const World& world, int kind) {
  return compute_any(impl_->ex, impl_->f, impl_->d, world, kind, false);
}

FlockMetrics MetricsCalculator::compute_final(const World& world, int kind) {
  return compute_any(impl_->ex, impl_->f, impl_->d, world, kind, true);
}

bool MetricsCalculator::defer(World& world, int kind) {
  if (kind != 0) return false;  // only kind 0 lives in the engine's cells
  impl_->deferred = grid_request_row(world);
  return impl_->deferred;
}

FlockMetrics MetricsCalculator::compute_deferred(const World& world, int kind) {
  const bool asked = impl_->deferred;
  impl_->deferred = false;
  auto run = [&]<class Real>(Scratch<Real>& s) {
    TakenRow<Real> tk;
    if (!asked || kind != 0 || !grid_taken_row<Real>(world, tk))
      throw Error(
          "metrics: the deferred state is gone (compute_deferred needs defer() and then exactly "
          "one step)");
    return world.dims() == 3 ? compute_typed<Real, 3>(impl_->ex, s, world, kind, &tk)
                             : compute_typed<Real, 2>(impl_->ex, s, world, kind, &tk);
  };
  return world.precision() == Precision::f32 ? run(impl_->f) : run(impl_->d);
}

std::uint64_t metrics_detail::metrics_fused_rows() {
  return g_fused_rows.load(std::memory_order_relaxed);
}
std::uint64_t metrics_detail::metrics_fused_boids() {
  return g_fused_boids.load(std::memory_order_relaxed);
}

FlockMetrics compute_metrics(const World& world, int kind) {
  MetricsCalculator calc(world.def().threads, world.def().host_parallel_for,
                         world.def().host_context);
  return calc.compute(world, kind);
}

}  // namespace boids
