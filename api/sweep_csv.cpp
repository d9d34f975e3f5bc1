// The sweep CSV (include/boids/sweep.hpp): what `boids sweep --out` writes and `--resume`
// reads back. One header line, then one line per finished run in the plan's order.
#include <cstdio>
#include <fstream>
#include <map>

#include "api/sweep_plan.hpp"
#include "boids/world.hpp"

namespace boids {
namespace sweep_detail {

std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::string row_prefix(const SweepRow& row) {
  std::string s;
  for (const std::string& v : row.values) {
    s += cell(v);
    s += ',';
  }
  s += std::to_string(row.repeat);
  s += ',';
  s += std::to_string(row.seed);
  return s;
}

}  // namespace sweep_detail

using namespace sweep_detail;

const std::array<const char*, kSweepMetrics>& sweep_metric_names() {
  static const std::array<const char*, kSweepMetrics> names = {
      "polarization",    "milling",  "mean_speed",     "mean_nnd",
      "mean_neighbours", "clusters", "largest_cluster"};
  return names;
}

std::vector<std::string> sweep_columns(const SweepPlan& plan) {
  std::vector<std::string> c;
  for (const SweepVary& v : plan.vary) c.push_back(v.key);
  c.push_back("repeat");
  c.push_back("seed");
  for (const char* m : sweep_metric_names()) {
    c.push_back(std::string(m) + "_mean");
    c.push_back(std::string(m) + "_std");
  }
  return c;
}

std::string sweep_csv_header(const SweepPlan& plan) {
  std::string h;
  for (const std::string& c : sweep_columns(plan)) {
    if (!h.empty()) h += ',';
    h += cell(c);
  }
  return h;
}

std::string sweep_csv_line(const SweepRow& row) {
  std::string line = row_prefix(row);
  for (int k = 0; k < kSweepMetrics; ++k) {
    line += ',';
    line += shortest(row.mean[std::size_t(k)]);
    line += ',';
    line += shortest(row.stddev[std::size_t(k)]);
  }
  return line;
}

void write_sweep_csv(const std::string& path, const SweepPlan& plan,
                     const std::vector<SweepRow>& rows) {
  std::vector<const SweepRow*> order(plan.jobs.size(), nullptr);
  for (const SweepRow& r : rows) {
    if (r.job >= order.size()) {
      throw Error(path + ": row of job " + std::to_string(r.job) + " is not in the plan");
    }
    order[r.job] = &r;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << sweep_csv_header(plan) << "\n";
    for (const SweepRow* r : order) {
      if (r) f << sweep_csv_line(*r) << "\n";
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

std::vector<SweepRow> read_sweep_csv(const std::string& path, const SweepPlan& plan) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};  // nothing to resume: a fresh sweep
  std::string line;
  if (!std::getline(f, line)) return {};
  const std::string header = sweep_csv_header(plan);
  if (line != header) {
    throw Error(path + ":1: --resume: the header does not match this sweep (expected " + header +
                ")");
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) index[row_prefix(sweep_row(plan, i))] = i;
  const std::size_t lead = plan.vary.size() + 2;
  const std::size_t columns = lead + 2 * kSweepMetrics;
  std::vector<SweepRow> found(plan.jobs.size());
  std::vector<bool> have(plan.jobs.size(), false);
  while (std::getline(f, line)) {
    if (f.eof()) break;  // no newline: the row was being written when the sweep stopped
    const std::vector<std::string> cells = split_csv(line);
    if (cells.size() != columns) continue;
    std::string prefix;
    for (std::size_t c = 0; c < lead; ++c) {
      if (c) prefix += ',';
      prefix += cell(cells[c]);
    }
    const auto it = index.find(prefix);
    if (it == index.end()) continue;
    SweepRow r = sweep_row(plan, it->second);
    bool ok = true;
    for (std::size_t k = 0; k < kSweepMetrics; ++k) {
      ok = ok && parse_double(cells[lead + 2 * k], r.mean[k]) &&
           parse_double(cells[lead + 2 * k + 1], r.stddev[k]);
    }
    if (!ok) continue;  // run it again rather than keep a number that does not read back
    found[it->second] = std::move(r);
    have[it->second] = true;
  }
  std::vector<SweepRow> rows;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (have[i]) rows.push_back(std::move(found[i]));
  }
  return rows;
}

}  // namespace boids
