// Statistics, derived figures and the time budget.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/bench.hpp"

namespace boids::bench {

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * double(v.size() - 1);
  const std::size_t lo = std::size_t(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - double(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_sorted(samples, 0.5);
  s.q1 = quantile_sorted(samples, 0.25);
  s.q3 = quantile_sorted(samples, 0.75);
  return s;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::measured:
      return "measured";
    case Status::skipped:
      return "skipped";
    case Status::unavailable:
      return "unavailable";
  }
  return "?";
}

namespace {
double per_second(double amount, double ms) { return ms > 0 ? amount / (ms * 1e-3) : 0; }
bool same_world(const Config& a, const Config& b) {
  return a.count == b.count && a.dims == b.dims && a.precision == b.precision &&
         a.workload == b.workload;
}
}  // namespace

double Result::boid_steps_per_s() const {
  return status == Status::measured ? per_second(double(config.count), ms.median) : 0;
}
double Result::candidates_per_s() const {
  return status == Status::measured ? per_second(double(candidates), ms.median) : 0;
}
double Result::neighbours_per_s() const {
  return status == Status::measured ? per_second(double(neighbours), ms.median) : 0;
}
double Result::useful_per_s_per_core() const {
  return neighbours_per_s() / double(config.threads > 0 ? config.threads : 1);
}
double Result::useful_fraction() const {
  return status == Status::measured && candidates > 0 ? double(neighbours) / double(candidates) : 0;
}
double Result::rss_bytes_per_boid() const {
  return peak_rss_bytes > 0 && config.count > 0 ? peak_rss_bytes / double(config.count) : 0;
}
double Result::kernel_candidates_per_s() const {
  return status == Status::measured ? per_second(double(candidates), kernel_ms.median) : 0;
}

void derive(std::vector<Result>& results) {
  for (Result& r : results) {
    r.speedup_naive = r.speedup_1t = r.efficiency = r.probe_fraction = r.ratio_ref = 0;
    r.kernel_probe_fraction = 0;
    r.speedup_naive_extrapolated = false;
    if (r.status != Status::measured || !(r.ms.median > 0)) continue;
    for (const Result& n : results) {
      if (n.config.variant != Variant::naive || !same_world(n.config, r.config)) continue;
      if (n.status == Status::measured && n.ms.median > 0) {
        r.speedup_naive = n.ms.median / r.ms.median;
      } else if (n.status == Status::skipped && n.extrapolated_ms > 0) {
        r.speedup_naive = n.extrapolated_ms / r.ms.median;
        r.speedup_naive_extrapolated = true;
      }
      break;
    }
    for (const Result& one : results) {
      if (one.config.variant != r.config.variant || !same_world(one.config, r.config) ||
          one.config.threads != 1 || one.status != Status::measured || !(one.ms.median > 0))
        continue;
      r.speedup_1t = one.ms.median / r.ms.median;
      r.efficiency = r.speedup_1t / r.config.threads;
      break;
    }
    // The sweep's first workload (the first row's) is the reference of every other one.
    const std::string& ref_w = results.front().config.workload;
    for (const Result& q : results) {
      const Config& a = q.config;
      const Config& b = r.config;
      if (ref_w.empty() || a.workload != ref_w || a.variant != b.variant || a.count != b.count ||
          a.threads != b.threads || a.dims != b.dims || a.precision != b.precision ||
          q.status != Status::measured || !(q.ms.median > 0))
        continue;
      r.ratio_ref = r.ms.median / q.ms.median;
      break;
    }
    if (r.probe_pairs_per_s > 0) {
      r.probe_fraction = r.candidates_per_s() / r.probe_pairs_per_s;
      r.kernel_probe_fraction = r.kernel_candidates_per_s() / r.probe_pairs_per_s;
    }
  }
}

int cost_exponent(Variant v) { return v == Variant::naive ? 2 : 1; }

int rep_cost_steps(Variant v) { return v == Variant::naive ? 1 : 2; }

BudgetDecision check_budget(const Config& c, const std::vector<Result>& done, const Settings& s) {
  BudgetDecision d;
  const Result* ref = nullptr;
  for (const Result& r : done) {
    const Config& rc = r.config;
    if (r.status != Status::measured || rc.variant != c.variant || rc.threads != c.threads ||
        rc.dims != c.dims || rc.precision != c.precision || rc.workload != c.workload ||
        rc.count >= c.count || !(r.ms.median > 0))
      continue;
    if (!ref || rc.count > ref->config.count) ref = &r;
  }
  if (!ref) return d;
  const int e = cost_exponent(c.variant);
  d.predicted_step_ms = ref->ms.median * std::pow(double(c.count) / ref->config.count, e);
  // The least a measurement can do (measure() cuts down to it): the warm-up, the pair count
  // (about one more step) and one step in each of min(3, reps) repetitions, plus for the grid
  // engines one kernel pass per repetition (counted as a step: a pass is part of one).
  const int min_reps = std::min(3, std::max(1, s.reps));
  const double need_s = d.predicted_step_ms * 1e-3 *
                        (std::max(1, s.warmup) + min_reps * rep_cost_steps(c.variant) + 1);
  if (need_s > s.budget_s) {
    d.skip = true;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "over the %.0f s budget: ~%.3g s/step predicted from n=%u scaled as n^%d "
                  "(needs ~%.0f s)",
                  s.budget_s, d.predicted_step_ms * 1e-3, ref->config.count, e, need_s);
    d.note = buf;
  }
  return d;
}

}  // namespace boids::bench
