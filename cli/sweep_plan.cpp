#include "cli/sweep_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "boids/scenario.hpp"
#include "boids/world.hpp"

namespace boids::cli::sweep_detail {

bool parse_double(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  const auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e && std::isfinite(out);
}

std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Vary parse_vary(const std::string& spec) {
  const auto fail = [&](const std::string& what) { throw Error("--vary " + spec + ": " + what); };
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) fail("expected KEY=FROM:TO:COUNT or KEY=a,b,c");
  Vary v;
  v.key = spec.substr(0, eq);
  const std::string rhs = spec.substr(eq + 1);
  const std::vector<std::string> keys = scenario_keys();
  if (std::find(keys.begin(), keys.end(), v.key) == keys.end()) {
    fail("unknown scenario key " + v.key);
  }
  if (rhs.empty()) fail("no values");
  if (rhs.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    for (;;) {
      const std::size_t c = rhs.find(':', at);
      parts.push_back(rhs.substr(at, c - at));
      if (c == std::string::npos) break;
      at = c + 1;
    }
    double from = 0, to = 0, count = 0;
    if (parts.size() != 3 || !parse_double(parts[0], from) || !parse_double(parts[1], to) ||
        !parse_double(parts[2], count)) {
      fail("expected FROM:TO:COUNT with numbers");
    }
    if (count < 1 || count != std::floor(count) || count > 100000) {
      fail("COUNT must be a whole number from 1 to 100000");
    }
    const int n = int(count);
    for (int i = 0; i < n; ++i) {
      const double x = n == 1 ? from : (i == n - 1 ? to : from + (to - from) * i / (n - 1));
      v.values.push_back(shortest(x));
    }
  } else {
    std::size_t at = 0;
    for (;;) {
      const std::size_t c = rhs.find(',', at);
      std::string item = rhs.substr(at, c - at);
      if (item.empty()) fail("empty value in the list");
      if (item.find('"') == std::string::npos && item.find_first_of(" \t") != std::string::npos) {
        fail("a value contains spaces");
      }
      v.values.push_back(item);
      if (c == std::string::npos) break;
      at = c + 1;
    }
  }
  return v;
}

std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> job_sets(const SweepOptions& o, const Plan& p, const Job& j, int threads) {
  std::vector<std::string> sets = o.sets;
  for (std::size_t k = 0; k < p.vary.size(); ++k) {
    sets.push_back(p.vary[k].key + "=" + p.vary[k].values[j.pick[k]]);
  }
  sets.push_back("boids.seed=" + std::to_string(j.seed));
  sets.push_back("engine.threads=" + std::to_string(threads));
  return sets;
}

WorldDef job_def(const SweepOptions& o, const std::vector<std::string>& sets) {
  return o.scenario.empty()
             ? parse_scenario(default_scenario_text(), "<built-in default scenario>", sets)
             : load_scenario(o.scenario, sets);
}

Plan make_plan(const SweepOptions& o) {
  Plan p;
  if (o.vary.empty()) throw Error("--vary: give at least one KEY=FROM:TO:COUNT or KEY=a,b,c");
  for (const std::string& spec : o.vary) {
    p.vary.push_back(parse_vary(spec));
    for (std::size_t k = 0; k + 1 < p.vary.size(); ++k) {
      if (p.vary[k].key == p.vary.back().key) throw Error("--vary " + spec + ": key varied twice");
    }
  }
  if (o.measure_from > o.steps) {
    throw Error("--measure-from: must be <= --steps (" + std::to_string(o.steps) + "), got " +
                std::to_string(o.measure_from));
  }
  // The base seed is the scenario's (after --set), so repeat r runs with seed + r.
  const WorldDef base = job_def(o, o.sets);
  std::vector<std::size_t> pick(p.vary.size(), 0);
  for (;;) {
    for (int r = 0; r < o.repeats; ++r) {
      Job j;
      j.pick = pick;
      j.repeat = r;
      j.seed = base.seed + std::uint64_t(r);
      for (std::size_t k = 0; k < p.vary.size(); ++k)
        j.prefix += cell(p.vary[k].values[pick[k]]) + ",";
      j.prefix += std::to_string(r) + "," + std::to_string(j.seed);
      p.jobs.push_back(std::move(j));
    }
    std::size_t k = p.vary.size();
    while (k > 0 && ++pick[k - 1] == p.vary[k - 1].values.size()) pick[--k] = 0;
    if (k == 0) break;
  }
  for (const Vary& v : p.vary) p.header += cell(v.key) + ",";
  p.header += "repeat,seed";
  for (const char* m : kMetricNames) p.header += std::string(",") + m + "_mean," + m + "_std";
  p.columns = p.vary.size() + 2 + 2 * kMetrics;
  return p;
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

}  // namespace boids::cli::sweep_detail
