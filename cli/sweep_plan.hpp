// `boids sweep`'s plan (cli/sweep.cpp): the --vary specs parsed, every combination of their
// values times the repeats as jobs with their seeds, the CSV header, and the CSV cell quoting
// both the writer and the --resume reader use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "boids/world_def.hpp"
#include "cli/sweep.hpp"

namespace boids::cli::sweep_detail {

constexpr int kMetrics = 7;
constexpr const char* kMetricNames[kMetrics] = {"polarization",   "milling",         "mean_speed",
                                                "mean_nnd",       "mean_neighbours", "clusters",
                                                "largest_cluster"};

struct Vary {
  std::string key;
  std::vector<std::string> values;
};

struct Job {
  std::vector<std::size_t> pick;  // value index per varied key
  int repeat = 0;
  std::uint64_t seed = 0;
  std::string prefix;  // the row's leading cells: values, repeat, seed
};

struct Plan {
  std::vector<Vary> vary;
  std::vector<Job> jobs;
  std::string header;
  std::size_t columns = 0;
};

/// Parses a whole finite number (std::from_chars); false otherwise.
bool parse_double(const std::string& s, double& out);
/// The shortest text that reads back as exactly v.
std::string shortest(double v);
/// KEY=FROM:TO:COUNT or KEY=a,b,c; throws Error naming the spec.
Vary parse_vary(const std::string& spec);
/// A CSV cell: values with a comma or quote are quoted.
std::string cell(const std::string& s);
/// Splits a CSV line into cells (quotes as written by cell()).
std::vector<std::string> split_csv(const std::string& line);
/// The --set overrides of job j (the varied values, its seed, the world's threads).
std::vector<std::string> job_sets(const SweepOptions& o, const Plan& p, const Job& j, int threads);
/// The scenario (or the built-in default) with `sets` applied.
WorldDef job_def(const SweepOptions& o, const std::vector<std::string>& sets);
/// Every job, in the canonical order (first varied key slowest, repeat fastest).
Plan make_plan(const SweepOptions& o);

}  // namespace boids::cli::sweep_detail
