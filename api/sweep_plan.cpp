// The sweep's plan (include/boids/sweep.hpp): the --vary specs parsed, every combination of
// their values times the repeats as jobs with their seeds, checked before any run.
#include "api/sweep_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "boids/scenario.hpp"
#include "boids/world.hpp"

namespace boids {
namespace sweep_detail {

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

std::vector<std::string> job_sets(const SweepDef& def, const SweepPlan& plan, std::size_t job,
                                  int threads) {
  const SweepJob& j = plan.jobs[job];
  std::vector<std::string> sets = def.sets;
  for (std::size_t k = 0; k < plan.vary.size(); ++k) {
    sets.push_back(plan.vary[k].key + "=" + plan.vary[k].values[j.pick[k]]);
  }
  sets.push_back("boids.seed=" + std::to_string(j.seed));
  sets.push_back("engine.threads=" + std::to_string(threads));
  return sets;
}

WorldDef job_def(const SweepDef& def, const std::vector<std::string>& sets) {
  if (!def.scenario_path.empty()) return load_scenario(def.scenario_path, sets);
  if (!def.scenario_text.empty()) return parse_scenario(def.scenario_text, def.scenario_name, sets);
  return parse_scenario(default_scenario_text(), "<built-in default scenario>", sets);
}

}  // namespace sweep_detail

using namespace sweep_detail;

SweepVary parse_sweep_vary(const std::string& spec) {
  const auto fail = [&](const std::string& what) { throw Error("--vary " + spec + ": " + what); };
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) fail("expected KEY=FROM:TO:COUNT or KEY=a,b,c");
  SweepVary v;
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

namespace {

void check_range(const char* option, long long v, long long lo, long long hi) {
  if (v < lo || v > hi) {
    throw Error(std::string(option) + ": must be from " + std::to_string(lo) + " to " +
                std::to_string(hi) + ", got " + std::to_string(v));
  }
}

}  // namespace

SweepPlan plan_sweep(const SweepDef& def) {
  // The program's CLI11 checks the same ranges before it gets here.
  check_range("--repeats", def.repeats, 1, 1000000);
  check_range("--steps", def.steps, 0, 2000000000LL);
  check_range("--measure-from", def.measure_from, 0, 2000000000LL);
  check_range("--measure-every", def.measure_every, 1, 2000000000LL);
  check_range("--metrics-kind", def.kind, 0, 2);
  check_range("--threads", def.threads, 0, 1024);
  if (!def.scenario_path.empty() && !def.scenario_text.empty()) {
    throw Error("--scenario: give a scenario file or scenario text, not both");
  }
  SweepPlan p;
  if (def.vary.empty()) throw Error("--vary: give at least one KEY=FROM:TO:COUNT or KEY=a,b,c");
  for (const std::string& spec : def.vary) {
    p.vary.push_back(parse_sweep_vary(spec));
    for (std::size_t k = 0; k + 1 < p.vary.size(); ++k) {
      if (p.vary[k].key == p.vary.back().key) throw Error("--vary " + spec + ": key varied twice");
    }
  }
  if (def.measure_from > def.steps) {
    throw Error("--measure-from: must be <= --steps (" + std::to_string(def.steps) + "), got " +
                std::to_string(def.measure_from));
  }
  // The base seed is the scenario's (after the fixed overrides), so repeat r runs with seed + r.
  const WorldDef base = job_def(def, def.sets);
  std::vector<std::size_t> pick(p.vary.size(), 0);
  for (;;) {
    for (int r = 0; r < def.repeats; ++r) {
      SweepJob j;
      j.pick = pick;
      j.repeat = r;
      j.seed = base.seed + std::uint64_t(r);
      p.jobs.push_back(std::move(j));
    }
    std::size_t k = p.vary.size();
    while (k > 0 && ++pick[k - 1] == p.vary[k - 1].values.size()) pick[--k] = 0;
    if (k == 0) break;
  }
  // Check every combination before the first run: bad values fail now, not after an hour.
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    if (p.jobs[i].repeat != 0) continue;
    try {
      (void)job_def(def, job_sets(def, p, i, 1));
    } catch (const Error& e) {
      // Overrides are reported as "--set KEY=VALUE: ..."; name the option the user wrote.
      std::string msg = e.what();
      for (const SweepVary& v : p.vary) {
        if (msg.rfind("--set " + v.key + "=", 0) == 0) msg.replace(0, 5, "--vary");
      }
      throw Error(msg);
    }
  }
  return p;
}

SweepRow sweep_row(const SweepPlan& plan, std::size_t job) {
  if (job >= plan.jobs.size()) {
    throw Error("sweep job " + std::to_string(job) + ": the plan has " +
                std::to_string(plan.jobs.size()) + " jobs");
  }
  const SweepJob& j = plan.jobs[job];
  SweepRow row;
  row.job = job;
  for (std::size_t k = 0; k < plan.vary.size(); ++k) {
    row.values.push_back(plan.vary[k].values[j.pick[k]]);
  }
  row.repeat = j.repeat;
  row.seed = j.seed;
  return row;
}

}  // namespace boids
