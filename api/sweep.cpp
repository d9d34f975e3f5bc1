// Running a sweep (include/boids/sweep.hpp). Each run steps a world and samples the flock
// metrics at steps M, M+e, ... and S, then reports each metric's mean and standard deviation
// over those samples.
//
// Scheduling (sweep_schedule): with at least as many runs as worker threads, the runs are
// spread over the workers, one single-threaded world each (small worlds scale best that way);
// with fewer, the runs go one after the other on a world that uses every thread. Either way a
// run's numbers do not depend on the thread count (the engines and the metrics are
// deterministic) and each row goes to its job's slot, so the result is the same for any
// thread count; only the order of the on_row calls follows completion.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "api/sweep_plan.hpp"
#include "boids/metrics.hpp"
#include "boids/world.hpp"

namespace boids {
namespace {

using namespace sweep_detail;

SweepRow run_job(const SweepDef& def, const SweepPlan& plan, std::size_t job, int threads) {
  World w = World::create(job_def(def, job_sets(def, plan, job, threads)));
  MetricsCalculator calc(threads);
  std::vector<double> samples[kSweepMetrics];
  const auto sample = [&](bool last) {  // last: no step follows (compute_final)
    const FlockMetrics m = last ? calc.compute_final(w, def.kind) : calc.compute(w, def.kind);
    const double v[kSweepMetrics] = {m.polarization,   m.milling,         m.mean_speed,
                                     m.mean_nnd,       m.mean_neighbours, double(m.clusters),
                                     m.largest_cluster};
    for (int k = 0; k < kSweepMetrics; ++k) samples[k].push_back(v[k]);
  };
  long long t = 0;
  for (;;) {
    if (t >= def.measure_from) sample(t == def.steps);
    if (t == def.steps) break;
    long long next = t < def.measure_from ? def.measure_from : t + def.measure_every;
    next = std::min(next, def.steps);
    w.step(int(next - t));
    t = next;
  }
  SweepRow r = sweep_row(plan, job);
  for (std::size_t k = 0; k < kSweepMetrics; ++k) {
    // Plain left-to-right sums (python/boids/_sweep.py repeats this arithmetic).
    double sum = 0;
    for (double x : samples[k]) sum += x;
    const double mean = sum / double(samples[k].size());
    double var = 0;
    for (double x : samples[k]) var += (x - mean) * (x - mean);
    r.mean[k] = mean;
    r.stddev[k] = std::sqrt(var / double(samples[k].size()));
  }
  return r;
}

}  // namespace

SweepSchedule sweep_schedule(int threads, std::size_t runs) {
  SweepSchedule s;
  s.threads = threads > 0 ? threads : int(std::thread::hardware_concurrency());
  if (s.threads < 1) s.threads = 1;
  const bool spread = runs >= std::size_t(s.threads);
  s.workers = spread ? s.threads : 1;
  s.world_threads = spread ? 1 : s.threads;
  return s;
}

std::vector<SweepRow> run_sweep(const SweepDef& def, const SweepPlan& plan,
                                const std::vector<std::size_t>& jobs) {
  for (std::size_t j : jobs) {
    if (j >= plan.jobs.size()) {
      throw Error("sweep job " + std::to_string(j) + ": the plan has " +
                  std::to_string(plan.jobs.size()) + " jobs");
    }
  }
  const SweepSchedule sched = sweep_schedule(def.threads, jobs.size());
  std::vector<SweepRow> rows(jobs.size());
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::size_t finished = 0;
  std::exception_ptr failure;
  auto worker = [&] {
    for (;;) {
      const std::size_t t = next.fetch_add(1);
      if (t >= jobs.size()) break;
      try {
        SweepRow r = run_job(def, plan, jobs[t], sched.world_threads);
        std::lock_guard<std::mutex> lock(mu);
        rows[t] = std::move(r);
        ++finished;
        if (def.on_row) def.on_row(rows[t]);
        if (def.on_progress) def.on_progress(finished, jobs.size());
      } catch (...) {
        // The first failure stops the sweep: no new run starts; the running ones finish.
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = jobs.size();
        break;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < sched.workers; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  return rows;
}

std::vector<SweepRow> run_sweep(const SweepDef& def) {
  const SweepPlan plan = plan_sweep(def);
  std::vector<std::size_t> all(plan.jobs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return run_sweep(def, plan, all);
}

}  // namespace boids
