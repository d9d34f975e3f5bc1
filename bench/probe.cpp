// Dispatch and timing of the machine probe (the loop itself is in probe_kernel.hpp).
#include <atomic>
#include <chrono>
#include <thread>

#include "bench/bench.hpp"
#include "bench/probe_kernel.hpp"
#include "boids/world.hpp"

namespace boids::bench {

namespace probe {
double sweeps_scalar(bool f64, int dims, int sweeps);
#ifdef BOIDS_BENCH_PROBE_X86
double sweeps_sse42(bool f64, int dims, int sweeps);
double sweeps_avx2(bool f64, int dims, int sweeps);
#endif
#ifdef BOIDS_BENCH_PROBE_AVX512
double sweeps_avx512(bool f64, int dims, int sweeps);
#endif
}  // namespace probe

namespace {
using SweepFn = double (*)(bool, int, int);

SweepFn sweep_fn(const std::string& isa) {
  if (isa == "scalar") return probe::sweeps_scalar;
#ifdef BOIDS_BENCH_PROBE_X86
  if (isa == "sse4.2" && __builtin_cpu_supports("sse4.2")) return probe::sweeps_sse42;
  if (isa == "avx2" && __builtin_cpu_supports("avx2")) return probe::sweeps_avx2;
#endif
#ifdef BOIDS_BENCH_PROBE_AVX512
  if (isa == "avx512" && __builtin_cpu_supports("avx512f")) return probe::sweeps_avx512;
#endif
  return nullptr;
}

SweepFn checked_sweep_fn(const std::string& isa) {
  const SweepFn fn = sweep_fn(isa);
  if (!fn) throw Error("probe: instruction set \"" + isa + "\" is not available here");
  return fn;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::atomic<double> g_sink{0};  // keeps the probe's result alive
}  // namespace

std::vector<std::string> probe_isas() {
  std::vector<std::string> out;
  for (const char* isa : {"scalar", "sse4.2", "avx2", "avx512"}) {
    if (sweep_fn(isa)) out.push_back(isa);
  }
  return out;
}

std::string probe_isa_for_kernel(std::string_view kernel) {
  if (kernel.find("avx512") != std::string_view::npos) return "avx512";
  if (kernel.find("avx2") != std::string_view::npos) return "avx2";
  if (kernel.find("sse") != std::string_view::npos) return "sse4.2";
  return "scalar";  // "scalar", "naive" and anything unknown
}

double probe_pairs_per_s(const std::string& isa, Precision p, int dims, int threads,
                         double seconds) {
  const SweepFn fn = checked_sweep_fn(isa);
  const bool f64 = p == Precision::f64;
  if (threads < 1) threads = 1;
  // Calibrate on one thread: enough sweeps to last `seconds`.
  auto t0 = std::chrono::steady_clock::now();
  int sweeps = 1;
  double dt = 0;
  for (;;) {
    t0 = std::chrono::steady_clock::now();
    g_sink = g_sink + fn(f64, dims, sweeps);
    dt = seconds_since(t0);
    if (dt > seconds * 0.2 || sweeps > (1 << 24)) break;
    sweeps *= 4;
  }
  const int target = std::max(1, int(double(sweeps) * seconds / std::max(dt, 1e-9)));
  // Every thread runs the same number of sweeps at once; the rate is total pairs over the
  // slowest thread's time.
  std::vector<double> took(std::size_t(threads), 0.0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const auto s0 = std::chrono::steady_clock::now();
      const double r = fn(f64, dims, target);
      took[std::size_t(t)] = seconds_since(s0);
      g_sink = g_sink + r;
    });
  }
  for (auto& th : pool) th.join();
  double slowest = 0;
  for (double s : took) slowest = std::max(slowest, s);
  const double pairs = double(target) * probe_pairs_per_sweep() * threads;
  return slowest > 0 ? pairs / slowest : 0;
}

double probe_sweeps(const std::string& isa, Precision p, int dims, int sweeps) {
  return checked_sweep_fn(isa)(p == Precision::f64, dims, sweeps);
}

double probe_pairs_per_sweep() { return double(probe::kRun) * double(probe::kRun); }

}  // namespace boids::bench
