// Sweep expansion, presets and the scaling of the scenario to each configuration.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "bench/bench.hpp"
#include "boids/world.hpp"

namespace boids::bench {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::naive:
      return "naive";
    case Variant::grid_scalar:
      return "grid-scalar";
    case Variant::grid_simd:
      return "grid-simd";
    case Variant::cluster_scalar:
      return "cluster-scalar";
    case Variant::cluster_simd:
      return "cluster";
  }
  return "?";
}

std::optional<Variant> parse_variant(std::string_view s) {
  if (s == "naive") return Variant::naive;
  if (s == "grid-scalar" || s == "scalar") return Variant::grid_scalar;
  if (s == "grid-simd" || s == "grid" || s == "grid-rows" || s == "simd") return Variant::grid_simd;
  if (s == "cluster" || s == "cluster-simd") return Variant::cluster_simd;
  if (s == "cluster-scalar") return Variant::cluster_scalar;
  return std::nullopt;
}

const char* precision_name(Precision p) { return p == Precision::f64 ? "double" : "float"; }

bool operator==(const Config& a, const Config& b) {
  return a.variant == b.variant && a.count == b.count && a.threads == b.threads &&
         a.dims == b.dims && a.precision == b.precision && a.workload == b.workload;
}

std::string config_label(const Config& c) {
  std::ostringstream os;
  os << variant_name(c.variant) << " " << c.dims << "D " << precision_name(c.precision)
     << " n=" << c.count << " t=" << c.threads;
  if (!c.workload.empty()) os << " " << c.workload;
  return os.str();
}

namespace {
template <class T>
std::vector<T> unique_in_order(const std::vector<T>& v) {
  std::vector<T> out;
  for (const T& x : v) {
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  return out;
}
}  // namespace

std::vector<Config> expand(const SweepSpec& s, std::uint32_t max_count) {
  std::vector<std::uint32_t> counts = unique_in_order(s.counts);
  std::sort(counts.begin(), counts.end());
  if (max_count > 0) std::erase_if(counts, [&](std::uint32_t n) { return n > max_count; });
  std::vector<int> threads = unique_in_order(s.threads);
  std::sort(threads.begin(), threads.end());
  std::vector<std::string> workloads = unique_in_order(s.workloads);
  if (workloads.empty()) workloads.push_back("");
  std::vector<Config> out;
  for (int d : unique_in_order(s.dims)) {
    for (Precision p : unique_in_order(s.precisions)) {
      for (Variant v : unique_in_order(s.variants)) {
        for (std::uint32_t n : counts) {
          for (const std::string& w : workloads) {
            if (v == Variant::naive) {
              // Single-threaded by design; one point per count.
              if (!threads.empty()) out.push_back({v, n, 1, d, p, w});
              continue;
            }
            for (int t : threads) out.push_back({v, n, t, d, p, w});
          }
        }
      }
    }
  }
  return out;
}

std::vector<std::uint32_t> log_counts(std::uint32_t lo, std::uint32_t hi, int per_decade) {
  std::vector<double> mant;
  if (per_decade <= 1)
    mant = {1};
  else if (per_decade == 2)
    mant = {1, 3};
  else if (per_decade == 3)
    mant = {1, 2, 5};
  else {
    for (int k = 0; k < per_decade; ++k) {
      const double m = std::pow(10.0, double(k) / per_decade);
      mant.push_back(std::round(m * 10) / 10);  // two significant digits
    }
  }
  std::vector<std::uint32_t> out;
  if (lo == 0 || hi < lo) return out;
  double decade = std::pow(10.0, std::floor(std::log10(double(lo))));
  while (decade <= double(hi)) {
    for (double m : mant) {
      const double v = std::round(m * decade);
      if (v >= lo && v <= hi) out.push_back(std::uint32_t(v));
    }
    decade *= 10;
  }
  return out;
}

std::vector<int> thread_ladder(int cores) {
  std::vector<int> out;
  if (cores < 1) cores = 1;
  for (int t = 1; t < cores; t *= 2) out.push_back(t);
  out.push_back(cores);
  return out;
}

std::vector<std::string> preset_names() {
  return {"quick",          "demo",          "full",          "tiny",
          "all-behaviours", "predators-10k", "obstacles-10k", "abm-profile"};
}

Preset preset(std::string_view name, int cores) {
  Preset p;
  p.name = std::string(name);
  const std::vector<Variant> all = {Variant::naive, Variant::grid_scalar, Variant::grid_simd};
  const int two = std::min(2, std::max(1, cores));
  if (name == "quick") {
    p.description = "3D float, all three engines, 1e3..1e6 boids, 1 and all threads (< 2 min)";
    p.sweep = {all, {1000, 10000, 100000, 1000000}, {1, std::max(1, cores)}, {3}, {Precision::f32}};
    p.settings.warmup = 2;
    p.settings.reps = 5;
    p.settings.min_rep_ms = 40;
    p.settings.budget_s = 15;
  } else if (name == "demo") {
    p.description = "naive vs grid on the default scenario (3D, wrap, ~30 neighbours), 1-2 threads";
    p.sweep = {{Variant::naive, Variant::grid_simd},
               {1000, 3000, 10000, 30000, 100000},
               {1, two},
               {3},
               {Precision::f32}};
    p.settings.warmup = 2;
    p.settings.reps = 5;
    p.settings.min_rep_ms = 40;
    p.settings.budget_s = 20;
  } else if (name == "full") {
    p.description =
        "the whole matrix: 3 engines x 1e3..1e7 x threads 1..cores x 2D/3D x float/double";
    p.sweep = {all,
               log_counts(1000, 10000000, 2),
               thread_ladder(cores),
               {2, 3},
               {Precision::f32, Precision::f64}};
    p.settings.warmup = 3;
    p.settings.reps = 7;
    p.settings.min_rep_ms = 100;
    p.settings.budget_s = 60;
  } else if (name == "tiny") {
    p.description = "smoke test: the quick matrix at 100 and 300 boids, 2D and 3D";
    p.sweep = {all, {100, 300}, {1, two}, {2, 3}, {Precision::f32}};
    p.settings.warmup = 1;
    p.settings.reps = 3;
    p.settings.min_rep_ms = 1;
    p.settings.max_steps_per_rep = 5;
    p.settings.budget_s = 5;
    p.settings.probe_s = 0.01;
  } else if (name == "all-behaviours" || name == "predators-10k" || name == "obstacles-10k" ||
             name == "abm-profile") {
    // Issue 14's targets: each workload next to its reference, 1e4..1e6 boids, one thread;
    // the table's `x ref` column is the ratio (docs/bench.md).
    const bool abm = name == "abm-profile";
    p.description = abm ? "the abm profile against the standard 2D step (same density, radius)"
                        : "issue 14: " + std::string(name) + " against its reference step";
    p.sweep = {{Variant::grid_simd},
               {10000, 100000, 1000000},
               {1},
               {abm ? 2 : 3},
               abm ? std::vector<Precision>{Precision::f32, Precision::f64}
                   : std::vector<Precision>{Precision::f32}};
    p.sweep.workloads =
        name == "all-behaviours"  ? std::vector<std::string>{"plain", "all-behaviours"}
        : name == "predators-10k" ? std::vector<std::string>{"predators-0", "predators"}
        : name == "obstacles-10k" ? std::vector<std::string>{"obstacles-0", "obstacles"}
                                  : std::vector<std::string>{"standard-2d", "abm"};
    p.settings.warmup = 1;
    p.settings.reps = 3;
    p.settings.min_rep_ms = 1;
    p.settings.max_steps_per_rep = 3;
    p.settings.budget_s = 120;
  } else {
    std::string list;
    for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
    throw Error("--preset: unknown preset \"" + std::string(name) + "\" (choose " + list + ")");
  }
  return p;
}

namespace {
std::uint32_t parse_one_count(std::string_view tok, const std::string& what) {
  std::string t(tok);
  auto bad = [&] {
    return Error(what + ": \"" + t + "\" is not a boid count (examples: 1000, 1e4, 100k, 2M)");
  };
  if (t.empty()) throw bad();
  double mult = 1;
  const char last = t.back();
  if (last == 'k' || last == 'K') mult = 1e3;
  if (last == 'm' || last == 'M') mult = 1e6;
  if (mult != 1) t.pop_back();
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (used != t.size()) throw bad();
  v *= mult;
  if (!(v >= 1) || v > 2147483647.0 || v != std::floor(v)) throw bad();
  return std::uint32_t(v);
}
}  // namespace

std::vector<std::uint32_t> parse_counts(std::string_view s, const std::string& what) {
  std::vector<std::uint32_t> out;
  if (s.find(':') != std::string_view::npos) {
    std::vector<std::string> parts;
    std::stringstream ss{std::string(s)};
    for (std::string part; std::getline(ss, part, ':');) parts.push_back(part);
    if (parts.size() < 2 || parts.size() > 3)
      throw Error(what + ": a range is LO:HI or LO:HI:PER_DECADE, got \"" + std::string(s) + "\"");
    const std::uint32_t lo = parse_one_count(parts[0], what);
    const std::uint32_t hi = parse_one_count(parts[1], what);
    int per = 3;
    if (parts.size() == 3) {
      try {
        per = std::stoi(parts[2]);
      } catch (const std::exception&) {
        per = 0;
      }
      if (per < 1 || per > 10) throw Error(what + ": PER_DECADE must be 1..10");
    }
    if (hi < lo) throw Error(what + ": range " + std::string(s) + " has HI < LO");
    out = log_counts(lo, hi, per);
    if (out.empty() || out.front() != lo) out.insert(out.begin(), lo);
    if (out.back() != hi) out.push_back(hi);
    return out;
  }
  std::stringstream ss{std::string(s)};
  for (std::string tok; std::getline(ss, tok, ',');) out.push_back(parse_one_count(tok, what));
  if (out.empty()) throw Error(what + ": no counts given");
  return out;
}

namespace {
constexpr double kPi = 3.14159265358979323846;
double ball_volume(int dims, double r) {
  return dims == 2 ? kPi * r * r : 4.0 / 3.0 * kPi * r * r * r;
}
// Fraction of the ball inside the view cone of full angle `deg`.
double cone_fraction(int dims, double deg) {
  if (deg >= 360) return 1;
  if (dims == 2) return deg / 360.0;
  return (1 - std::cos(deg * 0.5 * kPi / 180.0)) / 2;
}
}  // namespace

double expected_neighbours(const WorldDef& d) {
  const double rho = double(d.count) / std::pow(d.size, d.dims);
  const RuleDef& r = d.kinds[0].rules;
  return rho * ball_volume(d.dims, r.radius) * cone_fraction(d.dims, r.view_angle);
}

WorldDef def_for(const WorldDef& base, const Config& c, std::string* note) {
  if (base.count == 0)
    throw Error("boids.count: the bench keeps the scenario's density, so count must be > 0");
  const double k = expected_neighbours(base);
  const RuleDef& r = base.kinds[0].rules;
  WorldDef d = base;
  d.dims = c.dims;
  d.count = c.count;
  d.threads = c.threads;
  d.precision = c.precision;
  d.engine = c.variant == Variant::naive ? EngineKind::naive
             : (c.variant == Variant::cluster_simd || c.variant == Variant::cluster_scalar)
                 ? EngineKind::cluster
                 : EngineKind::grid;
  d.simd = c.variant == Variant::grid_simd || c.variant == Variant::cluster_simd;
  const double rho = k / (ball_volume(c.dims, r.radius) * cone_fraction(c.dims, r.view_angle));
  d.size = std::pow(double(c.count) / rho, 1.0 / c.dims);
  const double min_size = 2.05 * r.radius;
  if (d.boundary == Boundary::wrap && d.size < min_size) {
    d.size = min_size;
    if (note)
      *note = "box enlarged to 2.05 r (wrap needs r < size/2), so sparser than the scenario";
  }
  return d;
}

}  // namespace boids::bench
