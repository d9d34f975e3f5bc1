#include "cli/metrics_output.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>

namespace boids::cli {

void add_metrics_options(CLI::App* run, MetricsOptions& o) {
  CLI::Option* file = run->add_option(
      "--metrics", o.path,
      "Write the flock metrics (polarization, milling, ...) of every --metrics-every-th step "
      "to this CSV (docs/metrics.md)");
  run->add_option("--metrics-every", o.every, "With --metrics: steps between rows")
      ->check(CLI::Range(1LL, 1000000000000LL))
      ->needs(file)
      ->capture_default_str();
  run->add_option("--metrics-kind", o.kind,
                  "With --metrics: kind of agent measured, 0 boids, 1 predators, 2 leaders")
      ->check(CLI::Range(0, 2))
      ->needs(file)
      ->capture_default_str();
}

namespace {
void put_double(std::string& s, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}
}  // namespace

std::string metrics_row(std::uint64_t step, double dt, const FlockMetrics& m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%llu,%.9g,", static_cast<unsigned long long>(step),
                double(step) * dt);
  std::string s = buf;
  for (double v : {m.polarization, m.milling, m.mean_speed, m.mean_nnd, m.mean_neighbours}) {
    put_double(s, v);
    s += ',';
  }
  s += std::to_string(m.clusters);
  s += ',';
  put_double(s, m.largest_cluster);
  return s;
}

MetricsOutput::MetricsOutput(const MetricsOptions& o, const World& world)
    : path_(o.path),
      tmp_(o.path + ".tmp"),
      every_(o.every),
      kind_(o.kind),
      calc_(world.def().threads, world.def().host_parallel_for, world.def().host_context) {
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw Error(path_ + ": cannot write here (directory missing or not writable)");
  std::fprintf(f_, "%s\n", kMetricsHeader);
}

MetricsOutput::~MetricsOutput() {
  if (f_) {
    std::fclose(f_);
    std::remove(tmp_.c_str());
  }
}

FlockMetrics MetricsOutput::row(const World& world, bool last) {
  const FlockMetrics m = last ? calc_.compute_final(world, kind_) : calc_.compute(world, kind_);
  put(world.step_count(), world.def().dt, m);
  return m;
}

bool MetricsOutput::defer(World& world) { return calc_.defer(world, kind_); }

FlockMetrics MetricsOutput::deferred_row(const World& world, std::uint64_t step) {
  const FlockMetrics m = calc_.compute_deferred(world, kind_);
  put(step, world.def().dt, m);
  return m;
}

void MetricsOutput::put(std::uint64_t step, double dt, const FlockMetrics& m) {
  const std::string line = metrics_row(step, dt, m);
  if (std::fprintf(f_, "%s\n", line.c_str()) < 0 || std::fflush(f_) != 0) {
    throw Error(path_ + ": write failed");
  }
}

void MetricsOutput::finish() {
  const bool ok = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    throw Error(path_ + ": write failed");
  }
}

}  // namespace boids::cli
