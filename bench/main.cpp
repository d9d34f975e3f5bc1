// boids-bench: sweeps the engines over boid counts, threads, dims and precision and writes a
// table, CSV, JSON and SVG plots. docs/bench.md describes presets, options and every figure.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench/bench.hpp"
#include "boids/world.hpp"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');) {
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

std::vector<int> parse_ints(const std::string& s, const std::string& what, int lo, int hi,
                            int cores) {
  std::vector<int> out;
  for (const std::string& t : split(s)) {
    if (t == "all" || t == "max") {
      out.push_back(cores);
      continue;
    }
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || used == 0 || v < lo || v > hi)
      throw boids::Error(what + ": \"" + t + "\" must be an integer in " + std::to_string(lo) +
                         ".." + std::to_string(hi));
    out.push_back(v);
  }
  if (out.empty()) throw boids::Error(what + ": empty list");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace boids::bench;
  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  CLI::App app{
      "boids-bench: how the boids engines scale with boid count and cores.\n"
      "Runs a preset sweep (or your own axes) and writes results.csv, results.json, table.txt\n"
      "and SVG plots into the output directory."};
  std::string preset_name = "quick", engines, counts, threads, dims, precision, scenario;
  std::string out_dir = "bench-results";
  std::vector<std::string> sets;
  long long max_count = 0;
  bool tiny = false, no_plots = false, quiet = false, no_extrapolate = false;
  std::string progress = "auto";
  int warmup = -1, reps = -1;
  double min_rep_ms = -1, budget = -1, probe_s = -1;

  app.add_option("--preset", preset_name,
                 "quick (< 2 min on 2 cores), demo (naive vs grid, ~1 min), full (whole "
                 "matrix), tiny (smoke test); issue 14's targets, each against its reference "
                 "(column x ref): all-behaviours, predators-10k, obstacles-10k, abm-profile")
      ->capture_default_str();
  app.add_option(
      "--engines", engines,
      "Comma list of naive, grid-scalar, grid-simd (grid, grid-rows), cluster, cluster-scalar");
  app.add_option("--counts", counts,
                 "Boid counts: 1000,1e4,100k,1M or a log range LO:HI[:PER_DECADE]");
  app.add_option("--threads", threads, "Comma list of thread counts, 'all' = every core");
  app.add_option("--dims", dims, "Comma list of 2 and/or 3");
  app.add_option("--precision", precision, "Comma list of float and/or double");
  app.add_option("--max-count", max_count, "Drop counts above this")->check(CLI::PositiveNumber);
  app.add_flag("--tiny", tiny,
               "Replace the counts with 100 and 300 boids and measure briefly (smoke test)");
  app.add_option("--warmup", warmup, "Untimed steps before timing")->check(CLI::Range(0, 1000));
  app.add_option("--reps", reps, "Timed repetitions per configuration")->check(CLI::Range(1, 1000));
  app.add_option("--min-rep-ms", min_rep_ms, "Minimum duration of one repetition (ms)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--budget", budget,
                 "Seconds one configuration may take; longer ones are skipped with a note")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-extrapolate", no_extrapolate,
               "Leave skipped naive points empty instead of extrapolating them as n^2");
  app.add_option("--probe-seconds", probe_s, "Duration of each machine-probe measurement")
      ->check(CLI::PositiveNumber);
  app.add_option("--scenario", scenario,
                 "Scenario TOML (default: built-in 3D wrap scenario, ~30 neighbours); the box is "
                 "rescaled with n to keep its neighbour count");
  app.add_option("--set", sets, "Override a scenario key: section.key=value (repeatable)");
  app.add_option("--out", out_dir, "Output directory")->capture_default_str();
  app.add_flag("--no-plots", no_plots, "Do not write SVG plots");
  app.add_option("--progress", progress,
                 "Progress bar: auto (when stderr is a terminal), "
                 "always, never (plain lines)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("--quiet", quiet, "Print nothing but errors");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    const Preset p = preset(preset_name, cores);
    RunOptions o;
    o.preset = p.name;
    o.sweep = p.sweep;
    o.settings = p.settings;
    if (tiny) {
      const Preset t = preset("tiny", cores);
      o.sweep.counts = t.sweep.counts;
      o.settings = t.settings;
      o.preset += "+tiny";
    }
    if (!engines.empty()) {
      o.sweep.variants.clear();
      for (const auto& e : split(engines)) {
        auto v = parse_variant(e);
        if (!v)
          throw boids::Error("--engines: unknown engine \"" + e +
                             "\" (choose naive, grid-scalar, grid-simd)");
        o.sweep.variants.push_back(*v);
      }
    }
    if (!counts.empty()) o.sweep.counts = parse_counts(counts, "--counts");
    if (!threads.empty()) o.sweep.threads = parse_ints(threads, "--threads", 1, 1024, cores);
    if (!dims.empty()) o.sweep.dims = parse_ints(dims, "--dims", 2, 3, cores);
    if (!precision.empty()) {
      o.sweep.precisions.clear();
      for (const auto& s : split(precision)) {
        if (s == "float" || s == "f32")
          o.sweep.precisions.push_back(boids::Precision::f32);
        else if (s == "double" || s == "f64")
          o.sweep.precisions.push_back(boids::Precision::f64);
        else
          throw boids::Error("--precision: \"" + s + "\" must be float or double");
      }
    }
    if (warmup >= 0) o.settings.warmup = warmup;
    if (reps > 0) o.settings.reps = reps;
    if (min_rep_ms >= 0) o.settings.min_rep_ms = min_rep_ms;
    if (budget > 0) o.settings.budget_s = budget;
    if (probe_s > 0) o.settings.probe_s = probe_s;
    if (no_extrapolate) o.settings.extrapolate = false;
    o.max_count = std::uint32_t(max_count);
    o.scenario = scenario;
    o.sets = sets;
    o.out_dir = out_dir;
    o.plots = !no_plots;
    o.quiet = quiet;
    o.tty = progress == "always" || (progress == "auto" && isatty(STDERR_FILENO));
    for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
    run(o, stderr);
  } catch (const boids::Error& e) {
    std::cerr << "boids-bench: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "boids-bench: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
