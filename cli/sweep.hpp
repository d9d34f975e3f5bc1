// `boids sweep`: parameter sweeps and ensembles over scenario keys, with the flock metrics
// averaged over a window of steps (docs/metrics.md, "Sweeps"). The plan, the runs and the CSV
// are the library's (include/boids/sweep.hpp); the program adds the options, the output file
// with --resume, the progress bar, the plot and the MPI ranks.
#pragma once

#include <string>
#include <vector>

#include "boids/sweep.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace boids::cli {

struct SweepOptions {
  std::string scenario;           ///< --scenario (empty: the built-in default)
  std::vector<std::string> vary;  ///< --vary KEY=FROM:TO:COUNT or KEY=a,b,c (repeatable)
  std::vector<std::string> sets;  ///< --set KEY=VALUE fixed overrides
  int repeats = 1;                ///< --repeats: seeds seed, seed+1, ...
  long long steps = 1000;         ///< --steps S
  long long measure_from = 0;     ///< --measure-from M: average over steps M..S
  long long measure_every = 1;    ///< --measure-every: sample every this many steps
  int kind = 0;                   ///< --metrics-kind
  int threads = 0;                ///< --threads: 0 = all cores
  std::string out;                ///< --out sweep.csv
  std::string plot;               ///< --plot sweep.svg (optional)
  bool resume = false;            ///< --resume: keep and skip the rows already in --out
  bool quiet = false;             ///< --quiet: no progress, no summary
};

/// Registers the `sweep` subcommand on `app`.
CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o);

/// Runs the sweep; throws boids::Error (one line) on bad input, before any run starts.
int run_sweep(const SweepOptions& o);

/// Writes the SVG plot of sweep rows: one panel per metric, its mean over repeats (error bars:
/// standard deviation over repeats) against the first varied key, one line per value of the
/// other keys. Atomic (temporary file and rename); throws boids::Error when it cannot write.
void write_sweep_plot(const std::string& path, const std::vector<std::string>& keys,
                      const std::vector<SweepRow>& rows);

}  // namespace boids::cli
