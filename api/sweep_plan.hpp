// Shared by the sweep's sources (api/sweep_plan.cpp, api/sweep.cpp, api/sweep_csv.cpp): the
// text helpers of the sweep CSV and how one job's world def is made (include/boids/sweep.hpp).
#pragma once

#include <string>
#include <vector>

#include "boids/sweep.hpp"
#include "boids/world_def.hpp"

namespace boids::sweep_detail {

/// Parses a whole finite number (std::from_chars); false otherwise.
bool parse_double(const std::string& s, double& out);
/// The shortest text that reads back as exactly v.
std::string shortest(double v);
/// A CSV cell: values with a comma, quote or newline are quoted.
std::string cell(const std::string& s);
/// Splits a CSV line into cells (quotes as written by cell()).
std::vector<std::string> split_csv(const std::string& line);
/// The row's leading cells: the varied values, repeat and seed.
std::string row_prefix(const SweepRow& row);
/// The overrides of job j: the fixed ones, the varied values, its seed, the world's threads.
std::vector<std::string> job_sets(const SweepDef& def, const SweepPlan& plan, std::size_t job,
                                  int threads);
/// The def's scenario (file, text or the built-in default) with `sets` applied.
WorldDef job_def(const SweepDef& def, const std::vector<std::string>& sets);

}  // namespace boids::sweep_detail
