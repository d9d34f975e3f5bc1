// `boids run --metrics FILE.csv --metrics-every N [--metrics-kind K]`: the flock metrics of
// the running world as CSV (docs/metrics.md). Only public headers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "boids/metrics.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace boids::cli {

struct MetricsOptions {
  std::string path;     ///< --metrics: the CSV to write; empty = no metrics
  long long every = 1;  ///< --metrics-every: steps between rows
  int kind = 0;         ///< --metrics-kind: which kind of agent
};

/// Registers --metrics, --metrics-every and --metrics-kind on `run`.
void add_metrics_options(CLI::App* run, MetricsOptions& o);

/// The exact header line (without the newline).
inline constexpr const char* kMetricsHeader =
    "step,time,polarization,milling,mean_speed,mean_nnd,mean_neighbours,clusters,"
    "largest_cluster";

/// Formats one CSV row (without the newline): integers as integers, time with %.9g, the
/// metrics in the shortest form that reads back to the same double.
std::string metrics_row(std::uint64_t step, double dt, const FlockMetrics& m);

/// Writes the CSV to a temporary file beside `path` and renames it over `path` in finish(),
/// so a failed run leaves an existing file untouched. Rows are flushed as they are written.
class MetricsOutput {
 public:
  MetricsOutput(const MetricsOptions& o, const World& world);
  ~MetricsOutput();
  MetricsOutput(const MetricsOutput&) = delete;
  MetricsOutput& operator=(const MetricsOutput&) = delete;

  /// Appends the row of the world's current state and returns its metrics. `last`: no step
  /// follows this state (MetricsCalculator::compute_final, the same bytes).
  FlockMetrics row(const World& world, bool last = false);
  /// Asks the world's next step to measure the current state (MetricsCalculator::defer);
  /// false when it cannot (then row() now).
  bool defer(World& world);
  /// After defer() and one step: appends the row of the state defer() saw and returns its
  /// metrics; `step` is that state's step count.
  FlockMetrics deferred_row(const World& world, std::uint64_t step);
  void finish();
  long long every() const { return every_; }

 private:
  void put(std::uint64_t step, double dt, const FlockMetrics& m);
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  long long every_;
  int kind_;
  MetricsCalculator calc_;
};

}  // namespace boids::cli
