// boids-bench: the benchmark harness's testable logic (library boids_bench_lib).
//
// A run is: a sweep (engines x boid counts x threads x dims x precision) expanded into a list
// of configurations, each measured by warm-up steps followed by repeated timed runs (median
// and interquartile range), with the pair counts taken once outside the timed loop. The
// results are turned into derived figures (speedups, efficiency, fraction of the machine
// probe's peak for the whole step and for the neighbour kernel alone) and written as a table, CSV,
// JSON and SVG plots. docs/bench.md explains every column. Nothing here asserts or depends on
// timings; the tests feed it synthetic numbers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "boids/world_def.hpp"

namespace boids::bench {

// ---------------------------------------------------------------------------------------------
// Sweep

/// The engines the bench compares. Grid scalar and grid SIMD are the same engine with
/// WorldDef::simd false or true; cluster and cluster-scalar are engine.kind = "cluster"
/// (the cluster-pair kernels) with SIMD on or off.
enum class Variant : std::uint8_t { naive, grid_scalar, grid_simd, cluster_scalar, cluster_simd };

/// "naive", "grid-scalar", "grid-simd", "cluster-scalar", "cluster"
const char* variant_name(Variant v);
/// Also accepts "grid" and "grid-rows" = grid-simd, "cluster-simd" = cluster.
std::optional<Variant> parse_variant(std::string_view s);
const char* precision_name(Precision p);  ///< "float" or "double"

/// One measured point. (A constructor, not an aggregate, so the five-field braced form stays
/// valid with the optional workload.)
struct Config {
  Config() = default;
  Config(Variant v, std::uint32_t n, int t, int d, Precision p, std::string w = {})
      : variant(v), count(n), threads(t), dims(d), precision(p), workload(std::move(w)) {}
  Variant variant = Variant::naive;
  std::uint32_t count = 1000;
  int threads = 1;
  int dims = 3;
  Precision precision = Precision::f32;
  /// A workload of issue 14's targets (workload_names(); empty = the scenario as given):
  /// adds behaviours, predators, obstacles or the abm profile to the world (workload_def()).
  std::string workload;
};
bool operator==(const Config& a, const Config& b);
/// "grid-simd 3D float n=100000 t=2"
std::string config_label(const Config& c);

/// The axes of a sweep; expand() takes their cartesian product.
struct SweepSpec {
  SweepSpec() = default;
  SweepSpec(std::vector<Variant> v, std::vector<std::uint32_t> n, std::vector<int> t,
            std::vector<int> d, std::vector<Precision> p, std::vector<std::string> w = {})
      : variants(std::move(v)),
        counts(std::move(n)),
        threads(std::move(t)),
        dims(std::move(d)),
        precisions(std::move(p)),
        workloads(std::move(w)) {}
  std::vector<Variant> variants;
  std::vector<std::uint32_t> counts;
  std::vector<int> threads;
  std::vector<int> dims;
  std::vector<Precision> precisions;
  /// Workloads (Config::workload); empty = {""}. The first is each row's reference: the
  /// table's `x ref` is a row's ms/step over the first workload's at the same engine, n,
  /// threads, dims and precision.
  std::vector<std::string> workloads;
};

/// Cartesian product in a fixed order: dims, precision, variant, count (ascending), threads
/// (ascending), so every configuration comes after the smaller counts of the same engine (the
/// time budget predicts from them). The naive stepper is single-threaded, so it gets only
/// threads = 1. Duplicate values on an axis are removed; counts above `max_count` (if > 0) are
/// dropped.
std::vector<Config> expand(const SweepSpec& s, std::uint32_t max_count = 0);

/// `per_decade` counts per factor of ten from lo to hi inclusive (1-2-5 style rounding for 3,
/// exact powers of ten for 1): log_counts(1000, 100000, 2) = {1000, 3000, 10000, 30000, 100000}.
std::vector<std::uint32_t> log_counts(std::uint32_t lo, std::uint32_t hi, int per_decade);
/// 1, 2, 4, ... up to cores, plus cores itself.
std::vector<int> thread_ladder(int cores);

/// How each configuration is measured.
struct Settings {
  int warmup = 2;          ///< untimed steps after creating the world
  int reps = 5;            ///< timed repetitions (median and IQR over these)
  double min_rep_ms = 50;  ///< a repetition runs enough steps to last about this long
  int max_steps_per_rep = 1000;
  double budget_s = 10;     ///< skip a configuration predicted to take longer than this
  bool extrapolate = true;  ///< give skipped naive points an n^2 extrapolation (labelled)
  double probe_s = 0.25;    ///< seconds per machine-probe measurement
};

struct Preset {
  std::string name;
  std::string description;
  SweepSpec sweep;
  Settings settings;
};
/// "quick", "full", "demo" or "tiny" (the smoke-test preset). Throws boids::Error otherwise.
Preset preset(std::string_view name, int cores);
std::vector<std::string> preset_names();

/// Parses "1000,1e4,100k,1M" or a log range "1e3:1e7" (3 per decade) or "1e3:1e7:2".
/// Throws boids::Error naming `what` on bad input.
std::vector<std::uint32_t> parse_counts(std::string_view s, const std::string& what);

/// The world definition of configuration `c` derived from the scenario `base`: the box is
/// resized so the expected neighbour count of the base (density times the perception volume)
/// is kept for any n and for the other dimensionality. `note` receives a remark when the box
/// had to be enlarged to stay valid (wrap worlds need radius < size/2).
WorldDef def_for(const WorldDef& base, const Config& c, std::string* note = nullptr);
/// def_for() with c.workload applied (bench/workloads.cpp): its rule changes before the box is
/// sized, its predators and obstacles (n/100 of each, fixed seed) after.
WorldDef workload_def(const WorldDef& base, const Config& c, std::string* note = nullptr);
/// "plain", "all-behaviours", "predators-0", "predators", "obstacles-0", "obstacles",
/// "standard-2d", "abm".
std::vector<std::string> workload_names();
/// Expected neighbours per boid of a uniform world: density * volume of the radius ball.
double expected_neighbours(const WorldDef& d);

// ---------------------------------------------------------------------------------------------
// Statistics

struct Summary {
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  double iqr() const { return q3 - q1; }
};
/// Linear-interpolation quantile (type 7, like numpy's default) of sorted data, q in [0,1].
double quantile_sorted(const std::vector<double>& sorted, double q);
/// Summary of unsorted samples; all zeros when empty.
Summary summarize(std::vector<double> samples);

// ---------------------------------------------------------------------------------------------
// Results

enum class Status : std::uint8_t {
  measured,
  skipped,      ///< over the time budget (maybe with an extrapolated figure)
  unavailable,  ///< the engine could not be created (not built, does not fit, ...)
};
const char* status_name(Status s);

struct Result {
  Config config;
  Status status = Status::measured;
  std::string note;
  std::string kernel;  ///< EngineBase::kernel_name(): the instruction set dispatched
  Summary ms;          ///< ms per step over the repetitions (wall clock)
  /// Grid engines: ms per pass of the neighbour kernel alone (boids::grid_neighbour_pass over
  /// a cell list of the state count_pairs() counted), `reps` repetitions of `steps_per_rep`
  /// passes. n = 0 (all zeros) for naive and for rows not measured.
  Summary kernel_ms;
  double cpu_ms = 0;  ///< median process CPU ms per step (all threads); < ms when others run
  int warmup = 0, reps = 0, steps_per_rep = 0;
  double world_size = 0;             ///< box edge used
  double setup_ms = 0;               ///< World::create
  std::uint64_t candidates = 0;      ///< candidate pairs per step (count_pairs)
  std::uint64_t neighbours = 0;      ///< useful pairs per step
  double bytes_per_boid = 0;         ///< engine's own figure
  double peak_rss_bytes = 0;         ///< VmHWM during this configuration (see docs)
  bool peak_rss_per_config = false;  ///< true when the peak was reset before the config
  double extrapolated_ms = 0;        ///< > 0: a labelled n^2 extrapolation for a skipped point
  double probe_pairs_per_s = 0;      ///< machine probe peak for this ISA/precision/dims/threads
  std::string probe_isa;

  // Derived by derive(); 0 = not applicable.
  double ratio_ref = 0;  ///< ms/step over the sweep's first workload's (same config otherwise)
  double speedup_naive = 0;
  bool speedup_naive_extrapolated = false;  ///< naive figure was extrapolated
  double speedup_1t = 0;
  double efficiency = 0;
  double probe_fraction = 0;         ///< candidates_per_s() / probe: the whole step
  double kernel_probe_fraction = 0;  ///< kernel_candidates_per_s() / probe: the kernel alone

  double ms_per_step() const { return ms.median; }
  double boid_steps_per_s() const;
  double candidates_per_s() const;
  /// Candidate pairs per second of the neighbour kernel alone (candidates / kernel_ms.median);
  /// 0 when the kernel was not timed.
  double kernel_candidates_per_s() const;
  double neighbours_per_s() const;
  /// Useful pair interactions (neighbours) per second per thread of the run: the issue-13
  /// figure of merit (neighbours_per_s / threads).
  double useful_per_s_per_core() const;
  /// Fraction of the computed (candidate) pairs that were useful: neighbours / candidates.
  double useful_fraction() const;
  /// Peak RSS of the configuration per boid (0 when unknown).
  double rss_bytes_per_boid() const;
  double memory_bytes() const { return bytes_per_boid * config.count; }
};

/// Fills speedups over naive (same n, dims, precision; naive extrapolation used and flagged
/// when the naive point was skipped), over one thread (same engine), parallel efficiency
/// and the fractions of the probe peak (whole step, and kernel alone where it was timed).
void derive(std::vector<Result>& results);

// ---------------------------------------------------------------------------------------------
// Time budget

struct BudgetDecision {
  bool skip = false;
  double predicted_step_ms = 0;  ///< 0 when there is nothing to predict from
  std::string note;
};
/// Predicts the step time of `c` from the largest smaller count already measured for the
/// same engine, threads, dims and precision (naive scales as n^2, grid as n) and skips it
/// when warm-up, the minimum repetitions and the pair count would exceed the budget. For the
/// grid engines each repetition's kernel passes count as that many more steps.
BudgetDecision check_budget(const Config& c, const std::vector<Result>& done, const Settings& s);
/// Step-cost exponent used for predictions: 2 for naive, 1 for the grid engine.
int cost_exponent(Variant v);
/// What one timed step of a repetition costs, in steps: 1 for naive, 2 for the grid engines
/// (the step and one kernel-only pass, which is at most a step).
int rep_cost_steps(Variant v);

// ---------------------------------------------------------------------------------------------
// Environment and memory

struct Environment {
  std::string cpu_model;
  int cores = 0;
  std::string simd_flags;  ///< the x86 SIMD flags the CPU reports
  std::string compiler;
  std::string build_type;
  std::string git_commit;
  std::string boids_version;
  std::string os;
  std::string timestamp_utc;
  std::string command_line;
  double peak_rss_bytes = 0;  ///< process-wide, at the end of the run
  double load_start = -1;     ///< 1-minute load average at the start (-1 = unknown)
  double load_end = -1;       ///< ... and at the end: above `cores`, figures are noisy
};
/// The 1-minute load average from /proc/loadavg, -1 when unknown.
double load_average();
/// Reads /proc/cpuinfo, uname, the compile-time compiler and build type, and the git commit
/// (`git rev-parse` in the source tree at run time, else the configure-time commit, else
/// "unknown").
Environment collect_environment();

/// Resets the kernel's peak-RSS counter (writes 5 to /proc/self/clear_refs); false if not
/// possible, in which case the peak is process-wide.
bool reset_peak_rss();
/// Peak resident set size in bytes: VmHWM of /proc/self/status, else getrusage.
double peak_rss_bytes();

// ---------------------------------------------------------------------------------------------
// Machine probe

/// ISAs the probe can run on this CPU: "scalar" and those of "sse4.2", "avx2", "avx512" that
/// the CPU and compiler support.
std::vector<std::string> probe_isas();
/// Maps an engine kernel name ("avx2+fma", "sse4.2", "scalar", "naive") to a probe ISA.
std::string probe_isa_for_kernel(std::string_view kernel);
/// Peak candidate pairs per second of a tight loop over contiguous SoA candidates doing the
/// neighbour test's arithmetic (distance squared, compare, masked accumulate of count,
/// offsets and velocities), on `threads` threads at once for about `seconds`.
double probe_pairs_per_s(const std::string& isa, Precision p, int dims, int threads,
                         double seconds);
/// The probe's loop itself, for boids-microbench: `sweeps` sweeps on the calling thread, each
/// of probe_pairs_per_sweep() candidate pairs. Returns a checksum (use it, or the loop may be
/// optimised away). Throws boids::Error when `isa` is not one of probe_isas().
double probe_sweeps(const std::string& isa, Precision p, int dims, int sweeps);
double probe_pairs_per_sweep();

// ---------------------------------------------------------------------------------------------
// Output

void write_csv(std::ostream& os, const std::vector<Result>& results);
struct RunInfo {
  std::string preset;
  std::string scenario;
  double expected_neighbours = 0;
  Settings settings;
  double wall_s = 0;
};
void write_json(std::ostream& os, const std::vector<Result>& results, const Environment& env,
                const RunInfo& info);
/// The human-readable table printed at the end of a run.
std::string format_table(const std::vector<Result>& results);
/// Engineering-style number with 3 significant digits: "1.23M", "45.6k", "999".
std::string si(double v);
/// A boid count in short form: 1000 -> "1k", 2500 -> "2.5k", 1000000 -> "1M".
std::string short_count(double n);

/// A minimal SVG line-plot writer: log or linear axes, one polyline and circle markers per
/// series, a legend.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
  std::string color;  ///< empty = from the palette
  bool dashed = false;
  bool markers = true;
};
struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  bool integer_x = false;  ///< linear x axis: ticks on whole numbers only (thread counts)
  int width = 940, height = 540;
  std::vector<Series> series;
};
std::string render_svg(const PlotSpec& p);
std::string xml_escape(std::string_view s);

/// The plots of a run: per (dims, precision) present, "time_per_step_<d>d_<prec>.svg" (log-log,
/// with O(n) and O(n^2) reference slopes) and, when more than one thread count was measured,
/// "speedup_threads_<d>d_<prec>.svg" (with the ideal line). Returns (file name, plot) pairs.
std::vector<std::pair<std::string, PlotSpec>> make_plots(const std::vector<Result>& results);

// ---------------------------------------------------------------------------------------------
// Progress

/// "[#######.......]  7/12  58%  0:42  grid-simd 3D float n=100000 t=2", fit into `width`.
std::string render_bar(std::size_t done, std::size_t total, double elapsed_s,
                       std::string_view label, int width);

/// A live progress bar on a terminal (a background thread redraws the elapsed time once a
/// second, so long configurations still show progress), plain lines otherwise.
class Progress {
 public:
  Progress(std::FILE* out, std::size_t total, bool tty, bool quiet = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void begin(std::size_t index, const std::string& label);
  void end(std::size_t index, const std::string& line);
  void finish();

 private:
  void draw();  // with mu_ held

  std::FILE* out_;
  std::size_t total_;
  bool tty_, quiet_;
  double t0_;
  std::size_t done_ = 0;
  std::string label_;
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
};

// ---------------------------------------------------------------------------------------------
// Running

struct RunOptions {
  std::string preset = "quick";
  SweepSpec sweep;
  Settings settings;
  std::uint32_t max_count = 0;
  std::string scenario;           ///< empty = the built-in default scenario
  std::vector<std::string> sets;  ///< --set overrides applied to the scenario
  std::string out_dir = "bench-results";
  bool plots = true;
  bool quiet = false;
  bool tty = false;
  std::string command_line;
};

struct RunOutput {
  std::vector<Result> results;
  Environment env;
  std::vector<std::string> files;  ///< written files
};

/// Measures one configuration (or skips it by the budget). `engine_error` remembers engines
/// that could not be created so later configurations of the same variant skip at once.
Result measure(const WorldDef& base, const Config& c, const Settings& s,
               const std::vector<Result>& done);

/// Runs the whole sweep with progress on `log`, writes CSV, JSON and plots into out_dir.
RunOutput run(const RunOptions& o, std::FILE* log);

}  // namespace boids::bench
