// boids-microbench, grid engine pieces: the cell-list rebuild and the neighbour kernel alone
// (parallel/cell_list.hpp, core/kernels.hpp), on the default scenario's density.
//
//   BM_CellListBuild  plan + keys + counting sort + gather of n boids in id order
//   BM_CellKernel     the dispatched (or a chosen) ISA's kernel over every row of a built grid
//   BM_Probe          boids-bench's machine probe (bench/probe_kernel.hpp) on one thread, per
//                     ISA, so its pairs/s lines up with BM_CellKernel's in the same run
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench.hpp"
#include "core/engine.hpp"
#include "core/kernels.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"

namespace {

using namespace boids;

// One pass of `kernel` over every x-row of cells.
template <class Real>
void time_all_rows(benchmark::State& state, RowKernel<Real> kernel, const GridView<Real>& g,
                   FlockSums<Real>* out) {
  KernelScratch<Real> scratch;
  for (auto _ : state) {
    for (std::uint32_t r = 0; r < g.nrows(); ++r) kernel(g, r, out + g.row_start(r), scratch);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}

// n boids of the default scenario in a box holding its ~30 neighbours per boid, built once
// into cell order.
template <class Real>
struct GridFixture {
  WorldDef def = default_world_def();
  ModelParams<Real> m;
  BoidStore<Real> src, dst;
  CellList<Real> cells;
  GridSettings gs;

  GridFixture(std::uint32_t n, int dims) {
    def.count = n;
    def.dims = dims;
    const double k = 0.01 * 4.0 / 3.0 * std::numbers::pi * 729.0;
    const double rho = dims == 3 ? 0.01 : k / (std::numbers::pi * 81.0);
    def.size = std::pow(double(n) / rho, 1.0 / dims);
    m = ModelParams<Real>::from_def(def);
    src.dims = dims;
    src.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) src.id[i] = i;
    init_state(def, src);
    gs.dims = dims;
    gs.boundary = def.boundary;
    gs.size = def.size;
    gs.radius = def.kinds[0].rules.radius;
    gs.cells_per_radius = def.cells_per_radius;
  }
  void build(Executor& ex) { cells.build(gs, src, dst, ex); }
};

// Args: n, dims, threads.
void BM_CellListBuild(benchmark::State& state) {
  GridFixture<float> f(std::uint32_t(state.range(0)), int(state.range(1)));
  Executor ex(int(state.range(2)));
  for (auto _ : state) {
    f.build(ex);
    benchmark::DoNotOptimize(f.dst.p[0].data());
  }
  state.SetItemsProcessed(std::int64_t(state.iterations()) * state.range(0));
  state.SetLabel("items = boids");
}
BENCHMARK(BM_CellListBuild)
    ->ArgNames({"n", "dims", "threads"})
    ->Args({100000, 3, 1})
    ->Args({100000, 3, 2})
    ->Args({1000000, 3, 1})
    ->Args({1000000, 3, 2})
    ->Args({100000, 2, 1})
    ->Unit(benchmark::kMillisecond);

// Args: isa (0 scalar, 1 sse4.2, 2 avx2, 3 avx512), n, dims. One thread, all cells in order.
template <class Real>
void BM_CellKernel(benchmark::State& state) {
  const Isa isa = Isa(state.range(0));
  if (int(isa) > int(dispatched_isa(true))) {
    state.SkipWithError("instruction set not available in this build or on this CPU");
    return;
  }
  GridFixture<Real> f(std::uint32_t(state.range(1)), int(state.range(2)));
  Executor ex(1);
  f.build(ex);
  const GridView<Real> g = f.cells.view(f.dst, f.m);
  const RowKernel<Real> kernel =
      select_row_kernel<Real>(isa, g.dims, f.cells.plan().wrap, g.kp.full_view);
  std::vector<FlockSums<Real>> out(f.dst.n);
  // Candidate pairs of one pass, to report pairs per second.
  double candidates = 0;
  for (std::uint32_t c = 0; c < g.ncells(); ++c) {
    CandidateRun<Real> runs[kMaxRuns];
    const int nr = cell_runs(g, c, runs);
    double len = 0;
    for (int r = 0; r < nr; ++r) len += runs[r].end - runs[r].begin;
    // Every boid tests the others of its stencil, not itself (as count_pairs() counts).
    const double occ = g.cell_start[c + 1] - g.cell_start[c];
    if (occ > 0) candidates += occ * (len - 1);
  }
  time_all_rows<Real>(state, kernel, g, out.data());
  state.SetLabel(isa_name(isa));
  state.counters["pairs/s"] =
      benchmark::Counter(candidates * double(state.iterations()), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(std::int64_t(state.iterations()) * state.range(1));
}
BENCHMARK(BM_CellKernel<float>)
    ->ArgNames({"isa", "n", "dims"})
    ->Args({0, 100000, 3})
    ->Args({1, 100000, 3})
    ->Args({2, 100000, 3})
    ->Args({3, 100000, 3})
    ->Args({3, 100000, 2})
    ->Unit(benchmark::kMillisecond);

// The machine probe's loop, one sweep (probe_pairs_per_sweep() candidate pairs, in L1) per
// iteration on one thread. Args: isa (numbered as for BM_CellKernel), dims.
template <class Real>
void BM_Probe(benchmark::State& state) {
  const std::string isa = bench::probe_isa_for_kernel(isa_name(Isa(state.range(0))));
  const std::vector<std::string> available = bench::probe_isas();
  if (std::find(available.begin(), available.end(), isa) == available.end()) {
    state.SkipWithError("instruction set not available in this build or on this CPU");
    return;
  }
  const Precision p = std::is_same_v<Real, double> ? Precision::f64 : Precision::f32;
  const int dims = int(state.range(1));
  double sink = 0;
  for (auto _ : state) {
    sink += bench::probe_sweeps(isa, p, dims, 1);
    benchmark::DoNotOptimize(sink);
  }
  state.SetLabel(isa);
  state.counters["pairs/s"] = benchmark::Counter(
      bench::probe_pairs_per_sweep() * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Probe<float>)
    ->ArgNames({"isa", "dims"})
    ->Args({0, 3})
    ->Args({1, 3})
    ->Args({2, 3})
    ->Args({3, 3})
    ->Args({3, 2})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CellKernel<double>)
    ->ArgNames({"isa", "n", "dims"})
    ->Args({0, 100000, 3})
    ->Args({2, 100000, 3})
    ->Args({3, 100000, 3})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Probe<double>)
    ->ArgNames({"isa", "dims"})
    ->Args({0, 3})
    ->Args({2, 3})
    ->Args({3, 3})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
