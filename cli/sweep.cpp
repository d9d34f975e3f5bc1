// `boids sweep` (cli/sweep.hpp). Every combination of the varied values is run `repeats`
// times with seeds seed, seed+1, ...; each run steps a world and samples the flock metrics at
// steps M, M+e, ... and S, then reports each metric's mean and standard deviation over those
// samples.
//
// Scheduling: with at least as many runs as worker threads, the runs are spread over the
// workers, one single-threaded world each (small worlds scale best that way); with fewer, the
// runs go one after the other on a world that uses every thread. Either way each run's numbers
// do not depend on the thread count (the engines and the metrics are deterministic), rows are
// appended to --out and flushed as they finish (so an interrupted sweep keeps them and
// --resume skips them), and at the end the file is rewritten atomically in the canonical
// order (first varied key slowest, repeat fastest), so it is byte-identical for any thread
// count.
#include "cli/sweep.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "boids/metrics.hpp"
#include "boids/scenario.hpp"
#include "cli/sweep_plan.hpp"
#include "mpi/distributed.hpp"

namespace boids::cli {
namespace {

using namespace sweep_detail;

struct Result {
  bool done = false;
  std::string line;  // the whole CSV row
  std::vector<double> means;
};

Result run_job(const SweepOptions& o, const Plan& p, const Job& j, int threads) {
  World w = World::create(job_def(o, job_sets(o, p, j, threads)));
  MetricsCalculator calc(threads);
  std::vector<double> samples[kMetrics];
  const auto sample = [&] {
    const FlockMetrics m = calc.compute(w, o.kind);
    const double v[kMetrics] = {m.polarization,    m.milling,          m.mean_speed,     m.mean_nnd,
                                m.mean_neighbours, double(m.clusters), m.largest_cluster};
    for (int k = 0; k < kMetrics; ++k) samples[k].push_back(v[k]);
  };
  long long t = 0;
  for (;;) {
    if (t >= o.measure_from) sample();
    if (t == o.steps) break;
    long long next = t < o.measure_from ? o.measure_from : t + o.measure_every;
    next = std::min(next, o.steps);
    w.step(int(next - t));
    t = next;
  }
  Result r;
  r.done = true;
  r.line = j.prefix;
  for (int k = 0; k < kMetrics; ++k) {
    double sum = 0;
    for (double x : samples[k]) sum += x;
    const double mean = sum / double(samples[k].size());
    double var = 0;
    for (double x : samples[k]) var += (x - mean) * (x - mean);
    const double sd = std::sqrt(var / double(samples[k].size()));
    r.means.push_back(mean);
    r.line += "," + shortest(mean) + "," + shortest(sd);
  }
  return r;
}

void write_all(const std::string& path, const Plan& p, const std::vector<Result>& results) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << p.header << "\n";
    for (const Result& r : results) {
      if (r.done) f << r.line << "\n";
    }
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw Error(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path + ": cannot write here (directory missing or not writable)");
  }
}

// Rows of an earlier, interrupted run of the same sweep. Lines that are cut short or belong
// to no job of this plan are dropped (the file is rewritten without them).
void read_resume(const std::string& path, const Plan& p, std::vector<Result>& results) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return;  // nothing to resume: a fresh sweep
  std::string line;
  if (!std::getline(f, line)) return;
  if (line != p.header) {
    throw Error(path + ":1: --resume: the header does not match this sweep (expected " + p.header +
                ")");
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < p.jobs.size(); ++i) index[p.jobs[i].prefix] = i;
  const std::size_t lead = p.vary.size() + 2;
  while (std::getline(f, line)) {
    if (f.eof()) break;  // no newline: the row was being written when the sweep stopped
    const std::vector<std::string> cells = split_csv(line);
    if (cells.size() != p.columns) continue;
    std::string prefix;
    for (std::size_t c = 0; c < lead; ++c) prefix += (c ? "," : "") + cell(cells[c]);
    const auto it = index.find(prefix);
    if (it == index.end()) continue;
    Result& r = results[it->second];
    r.done = true;
    r.line = line;
    for (int k = 0; k < kMetrics; ++k) {
      double x = 0;
      if (!parse_double(cells[lead + 2 * std::size_t(k)], x)) x = NAN;
      r.means.push_back(x);
    }
  }
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  CLI::App* s = app.add_subcommand(
      "sweep", "Run a scenario over a grid of parameter values and seeds; metrics to CSV");
  s->add_option("--scenario", o.scenario, "Scenario TOML file (default: the built-in one)");
  s->add_option("--vary", o.vary,
                "KEY=FROM:TO:COUNT (COUNT values, ends included) or KEY=a,b,c (repeatable)")
      ->required();
  s->add_option("--set", o.sets, "Fix a scenario key: section.key=value (repeatable)");
  s->add_option("--repeats", o.repeats, "Runs per combination, seeds seed, seed+1, ...")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  s->add_option("--steps", o.steps, "Steps per run (S)")
      ->check(CLI::Range(0LL, 2000000000LL))
      ->capture_default_str();
  s->add_option("--measure-from", o.measure_from,
                "First step of the averaging window M (window: steps M..S)")
      ->check(CLI::Range(0LL, 2000000000LL))
      ->capture_default_str();
  s->add_option("--measure-every", o.measure_every, "Steps between samples in the window")
      ->check(CLI::Range(1LL, 2000000000LL))
      ->capture_default_str();
  s->add_option("--metrics-kind", o.kind, "Kind measured: 0 boids, 1 predators, 2 leaders")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  s->add_option("--threads", o.threads, "Worker threads; 0 = all cores")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  s->add_option("--out", o.out, "The sweep CSV (rows written as runs finish)")->required();
  s->add_option("--plot", o.plot, "Also draw the metrics against the first varied key (SVG)");
  s->add_flag("--resume", o.resume, "Keep the rows already in --out and run only the others");
  s->add_flag("--quiet", o.quiet, "No progress bar and no summary");
  return s;
}

int run_sweep(const SweepOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const Plan p = make_plan(o);
  int hw = o.threads > 0 ? o.threads : int(std::thread::hardware_concurrency());
  if (hw < 1) hw = 1;
  // Check every combination before the first run: bad values fail now, not after an hour.
  for (const Job& j : p.jobs) {
    if (j.repeat != 0) continue;
    try {
      (void)job_def(o, job_sets(o, p, j, 1));
    } catch (const Error& e) {
      // Overrides are reported as "--set KEY=VALUE: ..."; name the option the user wrote.
      std::string msg = e.what();
      for (const Vary& v : p.vary) {
        if (msg.rfind("--set " + v.key + "=", 0) == 0) msg.replace(0, 5, "--vary");
      }
      throw Error(msg);
    }
  }
  std::vector<Result> results(p.jobs.size());
  if (o.resume) read_resume(o.out, p, results);
  // Under mpirun every rank runs every n-th remaining job; rank 0 alone writes (mpi/).
  const bool root = mpi::is_root();
  mpi::barrier();  // every rank has read the rows to resume before rank 0 rewrites them
  if (root) write_all(o.out, p, results);  // fresh file, or the kept rows without a cut-off line
  if (root && !o.plot.empty()) {
    std::FILE* probe = std::fopen((o.plot + ".tmp").c_str(), "wb");
    if (!probe) throw Error(o.plot + ": cannot write here (directory missing or not writable)");
    std::fclose(probe);
    std::remove((o.plot + ".tmp").c_str());
  }
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].done) todo.push_back(i);
  }
  const std::size_t resumed = results.size() - todo.size();
  const std::size_t all_todo = todo.size();
  {
    std::vector<std::size_t> mine;
    for (std::size_t t = 0; t < todo.size(); ++t)
      if (int(t % std::size_t(mpi::size())) == mpi::rank()) mine.push_back(todo[t]);
    todo.swap(mine);
  }
  const int workers =
      int(std::min<std::size_t>(std::size_t(hw), std::max<std::size_t>(todo.size(), 1)));
  const int world_threads = todo.size() >= std::size_t(hw) ? 1 : hw;
  const int pool = todo.size() >= std::size_t(hw) ? workers : 1;

  std::FILE* f = root ? std::fopen(o.out.c_str(), "ab") : nullptr;
  if (root && !f) throw Error(o.out + ": cannot write here (directory missing or not writable)");
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::size_t finished = 0;
  std::string failure;
  // Under mpirun a rank's stderr is a pipe to mpirun and its stdout a pty: rank 0 then draws
  // the bar (on stderr, which mpirun forwards) when its stdout is a terminal.
  const bool tty = !o.quiet && root && (::isatty(2) || (mpi::size() > 1 && ::isatty(1)));
  // done: finished runs (under mpirun, every rank's: mpi::poll_progress) out of all_todo.
  auto progress = [&](std::size_t done) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double frac = all_todo == 0 ? 1.0 : double(done) / double(all_todo);
    const int bar = int(frac * 30);
    std::string b(std::size_t(bar), '#');
    b.resize(30, '.');
    const double eta = done > 0 ? secs / double(done) * double(all_todo - done) : 0;
    std::fprintf(stderr, "\rsweep [%s] %zu/%zu runs, %.0f s, ETA %.0f s   ", b.c_str(),
                 done + resumed, results.size(), secs, eta);
    std::fflush(stderr);
  };
  const bool ranks = mpi::size() > 1;
  if (tty) progress(0);
  std::atomic<int> live{pool};
  auto worker = [&] {
    for (;;) {
      const std::size_t t = next.fetch_add(1);
      if (t >= todo.size()) break;
      Result r;
      try {
        r = run_job(o, p, p.jobs[todo[t]], world_threads);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.empty()) failure = e.what();
        next = todo.size();
        break;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (f) {
        std::fprintf(f, "%s\n", r.line.c_str());
        std::fflush(f);
      }
      results[todo[t]] = std::move(r);
      ++finished;
      if (tty && !ranks) progress(finished);
    }
    --live;
  };
  std::vector<std::thread> threads;
  if (!ranks) {
    for (int i = 1; i < pool; ++i) threads.emplace_back(worker);
    worker();
  } else {
    // Under mpirun the main thread only talks MPI (FUNNELED): it reduces the ranks' finished
    // runs on rank 0 for the progress bar while the workers run.
    for (int i = 0; i < pool; ++i) threads.emplace_back(worker);
    std::size_t posted = 0;
    for (;;) {
      const bool ending = live == 0;
      std::size_t mine;
      {
        std::lock_guard<std::mutex> lock(mu);
        mine = finished;
      }
      if (root) {
        const std::size_t others = mpi::poll_progress();
        if (tty) progress(mine + others);
      } else if (mine != posted) {
        mpi::post_progress(mine, false);
        posted = mine;
      }
      if (ending) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    mpi::post_progress(finished, true);
    const std::size_t others = mpi::wait_progress();
    if (tty) progress(finished + others);
  }
  for (std::thread& th : threads) th.join();
  if (f) std::fclose(f);
  if (tty) std::fprintf(stderr, "\n");
  int all_threads = hw;  // under mpirun: summed over the ranks
  if (mpi::size() > 1) {
    all_threads = 0;
    // Every rank's rows (the CSV line, then the means) and the first failure, on every rank.
    std::vector<std::pair<std::size_t, std::string>> rows;
    for (std::size_t i : todo) {
      if (!results[i].done) continue;
      std::string text = results[i].line;
      for (double m : results[i].means) text += "\x1f" + shortest(m);
      rows.emplace_back(i, std::move(text));
    }
    failure = mpi::share_rows(rows, failure);
    for (const auto& [i, text] : rows) {
      Result& r = results[i];
      std::size_t at = text.find('\x1f');
      r.done = true;
      r.line = text.substr(0, at);
      r.means.clear();
      for (; at != std::string::npos; at = text.find('\x1f', at + 1))
        r.means.push_back(std::strtod(text.c_str() + at + 1, nullptr));
    }
    finished = all_todo;
    for (const std::string& t : mpi::all_gather(std::to_string(hw))) all_threads += std::stoi(t);
  }
  if (!failure.empty()) throw Error(failure);
  if (!root) return 0;
  write_all(o.out, p, results);
  if (!o.plot.empty()) {
    std::vector<std::string> keys;
    for (const Vary& v : p.vary) keys.push_back(v.key);
    std::vector<SweepRow> rows;
    for (std::size_t i = 0; i < results.size(); ++i) {
      SweepRow row;
      for (std::size_t k = 0; k < p.vary.size(); ++k)
        row.values.push_back(p.vary[k].values[p.jobs[i].pick[k]]);
      row.repeat = p.jobs[i].repeat;
      row.means = results[i].means;
      rows.push_back(std::move(row));
    }
    write_sweep_plot(o.plot, keys, rows);
  }
  if (!o.quiet) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string where = std::to_string(all_threads) + (all_threads == 1 ? " thread" : " threads");
    if (mpi::size() > 1) where += " of " + std::to_string(mpi::size()) + " ranks";
    std::printf("sweep: %zu runs (%zu resumed) in %.1f s on %s (%s)\n", results.size(), resumed,
                secs, where.c_str(),
                world_threads == 1 ? "one single-threaded world per thread"
                                   : "one multi-threaded world at a time");
  }
  return 0;
}

}  // namespace boids::cli
