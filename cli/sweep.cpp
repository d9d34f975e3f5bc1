// `boids sweep` (cli/sweep.hpp): a thin user of the library's sweep (include/boids/sweep.hpp,
// which plans, checks, schedules and runs; api/sweep.cpp says how). The program adds:
// the output file, where rows are appended and flushed as they finish (so an interrupted
// sweep keeps them and --resume skips them) and which is rewritten atomically at the end in
// the canonical order (first varied key slowest, repeat fastest), so it is byte-identical for
// any thread count; the progress bar and ETA on a terminal; the plot; and under mpirun the
// spreading of the runs over the ranks (mpi/distributed.hpp).
#include "cli/sweep.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "boids/world.hpp"
#include "mpi/distributed.hpp"

namespace boids::cli {
namespace {

SweepDef sweep_def(const SweepOptions& o) {
  SweepDef d;
  d.scenario_path = o.scenario;  // empty: the built-in default
  d.vary = o.vary;
  d.sets = o.sets;
  d.repeats = o.repeats;
  d.steps = o.steps;
  d.measure_from = o.measure_from;
  d.measure_every = o.measure_every;
  d.kind = o.kind;
  d.threads = o.threads;
  return d;
}

// A row's numbers as text for the ranks' exchange (each reads back exactly).
std::string encode(const SweepRow& r) {
  std::string text;
  for (std::size_t k = 0; k < kSweepMetrics; ++k) {
    for (double v : {r.mean[k], r.stddev[k]}) {
      char buf[64];
      const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
      if (!text.empty()) text += '\x1f';
      text.append(buf, end);
    }
  }
  return text;
}

void decode(const std::string& text, SweepRow& r) {
  std::size_t at = 0;
  for (std::size_t k = 0; k < kSweepMetrics; ++k) {
    for (double* v : {&r.mean[k], &r.stddev[k]}) {
      *v = std::strtod(text.c_str() + at, nullptr);
      at = text.find('\x1f', at) + 1;
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
  SweepDef def = sweep_def(o);
  const SweepPlan p = plan_sweep(def);  // every combination checked before the first run
  std::vector<std::optional<SweepRow>> results(p.jobs.size());
  if (o.resume) {
    for (SweepRow& r : read_sweep_csv(o.out, p)) results[r.job] = std::move(r);
  }
  const auto done_rows = [&] {
    std::vector<SweepRow> rows;
    for (const auto& r : results)
      if (r) rows.push_back(*r);
    return rows;
  };
  // Under mpirun every rank runs every n-th remaining job; rank 0 alone writes (mpi/).
  const bool root = mpi::is_root();
  // A --plot that cannot be written fails before --out is touched.
  if (root && !o.plot.empty()) {
    std::FILE* probe = std::fopen((o.plot + ".tmp").c_str(), "wb");
    if (!probe) throw Error(o.plot + ": cannot write here (directory missing or not writable)");
    std::fclose(probe);
    std::remove((o.plot + ".tmp").c_str());
  }
  mpi::barrier();  // every rank has read the rows to resume before rank 0 rewrites them
  if (root) write_sweep_csv(o.out, p, done_rows());  // fresh, or the kept rows alone
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) todo.push_back(i);
  }
  const std::size_t resumed = results.size() - todo.size();
  const std::size_t all_todo = todo.size();
  {
    std::vector<std::size_t> mine;
    for (std::size_t t = 0; t < todo.size(); ++t)
      if (int(t % std::size_t(mpi::size())) == mpi::rank()) mine.push_back(todo[t]);
    todo.swap(mine);
  }
  const SweepSchedule sched = sweep_schedule(o.threads, todo.size());

  std::FILE* f = root ? std::fopen(o.out.c_str(), "ab") : nullptr;
  if (root && !f) throw Error(o.out + ": cannot write here (directory missing or not writable)");
  std::mutex mu;
  std::size_t finished = 0;
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
  // The library calls these one at a time, from its worker threads.
  def.on_row = [&](const SweepRow& r) {
    std::lock_guard<std::mutex> lock(mu);
    if (f) {
      std::fprintf(f, "%s\n", sweep_csv_line(r).c_str());
      std::fflush(f);
    }
    results[r.job] = r;
    ++finished;
  };
  if (tty && !ranks) def.on_progress = [&](std::size_t done, std::size_t) { progress(done); };
  std::string failure;
  const auto run_mine = [&] {
    try {
      (void)run_sweep(def, p, todo);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu);
      failure = e.what();
    }
  };
  if (!ranks) {
    run_mine();
  } else {
    // Under mpirun the main thread only talks MPI (FUNNELED): it reduces the ranks' finished
    // runs on rank 0 for the progress bar while the library's workers run.
    std::thread runner(run_mine);
    std::size_t posted = 0;
    for (bool ending = false; !ending;) {
      std::size_t mine;
      {
        std::lock_guard<std::mutex> lock(mu);
        mine = finished;
        ending = mine == todo.size() || !failure.empty();
      }
      if (root) {
        const std::size_t others = mpi::poll_progress();
        if (tty) progress(mine + others);
      } else if (mine != posted) {
        mpi::post_progress(mine, false);
        posted = mine;
      }
      if (!ending) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    runner.join();
    mpi::post_progress(finished, true);
    const std::size_t others = mpi::wait_progress();
    if (tty) progress(finished + others);
  }
  if (f) std::fclose(f);
  if (tty) std::fprintf(stderr, "\n");
  int all_threads = sched.threads;  // under mpirun: summed over the ranks
  if (ranks) {
    all_threads = 0;
    // Every rank's rows and the first failure, on every rank.
    std::vector<std::pair<std::size_t, std::string>> rows;
    for (std::size_t i : todo) {
      if (results[i]) rows.emplace_back(i, encode(*results[i]));
    }
    failure = mpi::share_rows(rows, failure);
    for (const auto& [i, text] : rows) {
      SweepRow r = sweep_row(p, i);
      decode(text, r);
      results[i] = std::move(r);
    }
    for (const std::string& t : mpi::all_gather(std::to_string(sched.threads)))
      all_threads += std::stoi(t);
  }
  if (!failure.empty()) throw Error(failure);
  if (!root) return 0;
  const std::vector<SweepRow> rows = done_rows();
  write_sweep_csv(o.out, p, rows);
  if (!o.plot.empty()) {
    std::vector<std::string> keys;
    for (const SweepVary& v : p.vary) keys.push_back(v.key);
    write_sweep_plot(o.plot, keys, rows);
  }
  if (!o.quiet) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string where = std::to_string(all_threads) + (all_threads == 1 ? " thread" : " threads");
    if (ranks) where += " of " + std::to_string(mpi::size()) + " ranks";
    std::printf("sweep: %zu runs (%zu resumed) in %.1f s on %s (%s)\n", results.size(), resumed,
                secs, where.c_str(),
                sched.world_threads == 1 ? "one single-threaded world per thread"
                                         : "one multi-threaded world at a time");
  }
  return 0;
}

}  // namespace boids::cli
