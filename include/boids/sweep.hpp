// boids: parameter sweeps and ensembles (what `boids sweep` runs; docs/metrics.md, "Sweeps").
//
// A sweep runs a scenario for every combination of the values of some keys, each combination
// `repeats` times with seeds seed, seed+1, ... (seed: the scenario's, after the fixed
// overrides). Each run steps a world for `steps` steps and samples the flock metrics of one
// kind at steps M, M+e, ... and S (M = measure_from, e = measure_every, S = steps); its row
// holds each metric's mean and (population) standard deviation over those samples.
//
//   boids::SweepDef def;
//   def.scenario_path = "scenarios/vicsek.toml";
//   def.vary = {"rules.noise=0:360:13"};
//   def.repeats = 5;
//   def.steps = 2000;
//   def.measure_from = 1000;
//   std::vector<boids::SweepRow> rows = boids::run_sweep(def);
//   boids::write_sweep_csv("sweep.csv", boids::plan_sweep(def), rows);
//
// Results are bit-identical for any thread count: each run's numbers do not depend on where
// or beside what it ran, and rows come back in the plan's order.
//
// Thread-safety: the functions are pure apart from the files they are told to read or write;
// run_sweep() calls the def's callbacks from its worker threads, one call at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "boids/export.h"

namespace boids {

/// The metrics a sweep row reports, in the CSV's order: polarization, milling, mean_speed,
/// mean_nnd, mean_neighbours, clusters, largest_cluster (boids::FlockMetrics).
constexpr int kSweepMetrics = 7;
BOIDS_API const std::array<const char*, kSweepMetrics>& sweep_metric_names();

/// The finished run `job` of a sweep.
struct SweepRow {
  std::size_t job = 0;              ///< index in SweepPlan::jobs (the canonical order)
  std::vector<std::string> values;  ///< the varied keys' values, as given to the scenario (TOML)
  int repeat = 0;                   ///< 0 .. repeats-1
  std::uint64_t seed = 0;           ///< the run's boids.seed: base seed + repeat
  std::array<double, kSweepMetrics> mean{};    ///< per metric, mean over the samples
  std::array<double, kSweepMetrics> stddev{};  ///< per metric, population std over the samples
};

/// Called once per finished run, in completion order (not the plan's), one call at a time.
using SweepRowCallback = std::function<void(const SweepRow& row)>;
/// Called after each finished run with the runs done so far and the runs of this call.
using SweepProgressCallback = std::function<void(std::size_t done, std::size_t total)>;

/// What to sweep. The defaults are those of `boids sweep`.
struct SweepDef {
  /// Scenario TOML file. Empty: `scenario_text`, or when that is empty too the built-in
  /// default scenario (default_scenario_text()). Give at most one of the two.
  std::string scenario_path;
  /// Scenario TOML text (used when scenario_path is empty).
  std::string scenario_text;
  /// Stands for the text in error messages.
  std::string scenario_name = "<scenario>";
  /// Varied keys: "KEY=FROM:TO:COUNT" (COUNT values evenly spaced, both ends included) or
  /// "KEY=a,b,c" (values in TOML syntax); at least one, each key once. Every combination runs.
  std::vector<std::string> vary;
  /// Fixed overrides "section.key=value" (as `--set`), applied before the varied values.
  std::vector<std::string> sets;
  int repeats = 1;                    ///< runs per combination (1 .. 1000000)
  long long steps = 1000;             ///< steps per run, S (0 .. 2000000000)
  long long measure_from = 0;         ///< first sampled step M (0 .. steps)
  long long measure_every = 1;        ///< steps between samples (>= 1); S is always sampled
  int kind = 0;                       ///< kind measured: 0 boids, 1 predators, 2 leaders
  int threads = 0;                    ///< worker threads, 0 = all cores (0 .. 1024)
  SweepRowCallback on_row;            ///< optional: each row as it finishes (stream or flush it)
  SweepProgressCallback on_progress;  ///< optional: progress after each run
};

/// One varied key and its values (text, as they go into the scenario).
struct SweepVary {
  std::string key;
  std::vector<std::string> values;
};

/// One run of the plan.
struct SweepJob {
  std::vector<std::size_t> pick;  ///< per varied key, the index of its value
  int repeat = 0;
  std::uint64_t seed = 0;
};

/// Every run of a sweep, in the canonical order: first varied key slowest, repeat fastest.
struct SweepPlan {
  std::vector<SweepVary> vary;
  std::vector<SweepJob> jobs;
};

/// Parses "KEY=FROM:TO:COUNT" or "KEY=a,b,c". Throws Error ("--vary SPEC: what is wrong")
/// for a missing '=', an unknown scenario key, no values, non-numbers in FROM:TO:COUNT, a
/// COUNT not a whole number in 1..100000, an empty list item or an unquoted value with spaces.
BOIDS_API SweepVary parse_sweep_vary(const std::string& spec);

/// Checks the def and makes the plan. Every combination's scenario is loaded once here, so
/// bad values fail before any run. Throws Error with one line naming the `boids sweep` option
/// at fault ("--vary ...", "--set ...", "--measure-from ...", "FILE:LINE: KEY: ...").
BOIDS_API SweepPlan plan_sweep(const SweepDef& def);

/// Plans and runs the whole sweep; the rows in the plan's order. Throws Error as plan_sweep,
/// or the first error of a run (the other runs stop then).
BOIDS_API std::vector<SweepRow> run_sweep(const SweepDef& def);

/// Runs the plan's jobs with these indices (e.g. the ones a resumed or distributed sweep still
/// needs); the rows in the order of `jobs`. `plan` must be plan_sweep(def).
BOIDS_API std::vector<SweepRow> run_sweep(const SweepDef& def, const SweepPlan& plan,
                                          const std::vector<std::size_t>& jobs);

/// How run_sweep() spreads `runs` runs over `threads` threads (0 = all cores): with at least
/// as many runs as threads, one single-threaded world per worker (small worlds scale best
/// that way); with fewer, one world at a time on every thread. Rows do not depend on it.
struct SweepSchedule {
  int threads = 1;        ///< threads used (0 resolved to the core count)
  int workers = 1;        ///< runs at once
  int world_threads = 1;  ///< threads of each world (engine.threads)
};
BOIDS_API SweepSchedule sweep_schedule(int threads, std::size_t runs);

/// The row of plan job `job` without its metrics (values, repeat, seed).
BOIDS_API SweepRow sweep_row(const SweepPlan& plan, std::size_t job);

/// The CSV's columns: the varied keys, repeat, seed, then <metric>_mean and <metric>_std for
/// each metric of sweep_metric_names().
BOIDS_API std::vector<std::string> sweep_columns(const SweepPlan& plan);
/// The header line (no newline); cells with a comma or quote are quoted.
BOIDS_API std::string sweep_csv_header(const SweepPlan& plan);
/// One row's line (no newline): numbers in the shortest form that reads back exactly.
BOIDS_API std::string sweep_csv_line(const SweepRow& row);

/// Writes the header and `rows` in the plan's order (whatever order they are given in), what
/// `boids sweep --out` writes, atomically (temporary file and rename): an existing file is
/// replaced only by a complete one. Throws Error naming the file when it cannot write.
BOIDS_API void write_sweep_csv(const std::string& path, const SweepPlan& plan,
                               const std::vector<SweepRow>& rows);

/// The rows of an earlier, maybe interrupted, run of the same sweep in `path` (what
/// `--resume` keeps), one per job, in the plan's order. A missing file gives none. Lines cut
/// short, with a number that does not parse, or of no job of this plan are left out. Throws
/// Error ("PATH:1: --resume: the header does not match ...") when the header differs.
BOIDS_API std::vector<SweepRow> read_sweep_csv(const std::string& path, const SweepPlan& plan);

}  // namespace boids
