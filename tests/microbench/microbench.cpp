// boids-microbench: Google Benchmark micro-benchmarks of the pieces of a step, so a change to
// one can be measured alone. `boids-microbench --benchmark_filter=Integrate` etc.
//
//   BM_Integrate   the per-boid update after the neighbour sums (core/model.hpp finish_boid)
//   BM_Step        whole steps of the naive and grid engines at small n, 1 thread
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/model.hpp"
#include "core/store.hpp"

namespace {

using boids::Precision;

// A store of n boids with deterministic positions and velocities and matching neighbour sums,
// as after the neighbour pass of one step.
template <class Real>
struct IntegrateFixture {
  boids::ModelParams<Real> m;
  boids::BoidStore<Real> s, out;
  std::vector<boids::FlockSums<Real>> sums;

  explicit IntegrateFixture(std::size_t n) {
    boids::WorldDef d = boids::default_world_def();
    m = boids::ModelParams<Real>::from_def(d);
    s.resize(n);
    out.resize(n);
    sums.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) {
        const double t = double(i * 3 + std::size_t(c));
        s.p[c][i] = Real(std::fmod(t * 0.618034, 1.0) * d.size);
        s.v[c][i] = Real(std::sin(t) * 3.0);
        sums[i].d[c] = Real(std::cos(t) * 20.0);
        sums[i].v[c] = Real(std::sin(t * 1.3) * 60.0);
        sums[i].sep[c] = Real(std::cos(t * 0.7));
      }
      sums[i].k = std::int32_t(10 + i % 40);
    }
  }
};

template <class Real, int D>
void BM_Integrate(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  IntegrateFixture<Real> f(n);
  const boids::StepContext<Real> ctx{};
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      Real p[3], v[3], po[3], vo[3];
      for (int c = 0; c < D; ++c) {
        p[c] = f.s.p[c][i];
        v[c] = f.s.v[c][i];
      }
      boids::finish_boid<Real, D>(f.m, ctx, 0, std::uint32_t(i), f.sums[i], p, v, po, vo);
      for (int c = 0; c < D; ++c) {
        f.out.p[c][i] = po[c];
        f.out.v[c][i] = vo[c];
      }
    }
    benchmark::DoNotOptimize(f.out.p[0].data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(n));
  state.SetLabel("boids/s = items/s");
}
BENCHMARK(BM_Integrate<float, 3>)->Arg(100000);
BENCHMARK(BM_Integrate<double, 3>)->Arg(100000);
BENCHMARK(BM_Integrate<float, 2>)->Arg(100000);

// Whole steps; args: engine (0 naive, 1 grid scalar, 2 grid simd), n, dims, precision (0 f32).
void BM_Step(benchmark::State& state) {
  boids::WorldDef d = boids::default_world_def();
  const int engine = int(state.range(0));
  d.engine = engine == 0 ? boids::EngineKind::naive : boids::EngineKind::grid;
  d.simd = engine == 2;
  d.count = std::uint32_t(state.range(1));
  d.dims = int(state.range(2));
  d.precision = state.range(3) ? Precision::f64 : Precision::f32;
  d.threads = 1;
  // Keep the default scenario's ~30 neighbours per boid at any n (3D: 0.01 boids per u^3).
  const double k = 0.01 * 4.0 / 3.0 * 3.14159265358979 * 729.0;
  const double rho = d.dims == 3 ? 0.01 : k / (3.14159265358979 * 81.0);
  d.size = std::pow(double(d.count) / rho, 1.0 / d.dims);
  try {
    boids::World w = boids::World::create(d);
    w.step(1);
    state.SetLabel(engine_of(w).kernel_name());
    for (auto _ : state) w.step(1);
  } catch (const boids::Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetItemsProcessed(std::int64_t(state.iterations()) * state.range(1));
}
BENCHMARK(BM_Step)
    ->ArgNames({"engine", "n", "dims", "f64"})
    ->Args({0, 2000, 3, 0})
    ->Args({1, 2000, 3, 0})
    ->Args({2, 2000, 3, 0})
    ->Args({1, 20000, 3, 0})
    ->Args({2, 20000, 3, 0})
    ->Args({2, 20000, 2, 0})
    ->Args({2, 20000, 3, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
