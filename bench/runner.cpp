// Measuring one configuration and running a whole sweep.
//
// Per configuration: World::create (timed as setup), `warmup` untimed steps (each timed
// only to size the repetitions), one count_pairs() pass for the pair figures, then `reps`
// timed repetitions of `steps_per_rep` steps; the figure is the median of the per-step times
// of the repetitions, the spread their interquartile range. Before those steps, the grid
// engines get as many repetitions of `steps_per_rep` passes of the neighbour kernel alone
// (grid_neighbour_pass over a cell list of the counted state), the same statistics per pass.
// Nothing is pinned: threads are the engine's own (its task_arena), scheduled by the OS.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <tuple>

#include "bench/bench.hpp"
#include "boids/engine_info.hpp"
#include "boids/scenario.hpp"
#include "boids/world.hpp"

namespace boids::bench {

namespace {
using Clock = std::chrono::steady_clock;
double cpu_ms_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
void add_note(std::string& note, const std::string& more) {
  if (!more.empty()) note += (note.empty() ? "" : "; ") + more;
}
}  // namespace

Result measure(const WorldDef& base, const Config& c, const Settings& s,
               const std::vector<Result>& done) {
  Result r;
  r.config = c;
  std::string scale_note;
  const WorldDef def = workload_def(base, c, &scale_note);
  r.world_size = def.size;
  const BudgetDecision b = check_budget(c, done, s);
  if (b.skip) {
    r.status = Status::skipped;
    r.note = b.note;
    if (c.variant == Variant::naive && s.extrapolate) r.extrapolated_ms = b.predicted_step_ms;
    return r;
  }
  r.note = scale_note;
  r.peak_rss_per_config = reset_peak_rss();
  const auto t_start = Clock::now();
  std::optional<World> world;
  try {
    world.emplace(World::create(def));
  } catch (const Error& e) {
    r.status = Status::unavailable;
    add_note(r.note, e.what());
    return r;
  } catch (const std::bad_alloc&) {
    r.status = Status::unavailable;
    add_note(r.note, "out of memory creating the world");
    return r;
  }
  World& w = *world;
  r.setup_ms = ms_since(t_start);
  r.kernel = w.kernel_name();

  // Warm-up; also sizes the repetitions. With no warm-up one step is still needed for that.
  double step_ms = 0;
  const int warm = std::max(1, s.warmup);
  for (int i = 0; i < warm; ++i) {
    const auto t0 = Clock::now();
    w.step(1);
    const double ms = ms_since(t0);
    step_ms = i == 0 ? ms : std::min(step_ms, ms);
  }
  r.warmup = warm;

  const PairCounts pc = count_pairs(w);
  r.candidates = pc.candidates;
  r.neighbours = pc.neighbours;

  int spr = int(std::ceil(s.min_rep_ms / std::max(step_ms, 1e-6)));
  spr = std::clamp(spr, 1, std::max(1, s.max_steps_per_rep));
  int reps = std::max(1, s.reps);
  // Stay inside the budget: fewer steps per repetition first, then fewer repetitions (>= 3).
  // A grid repetition's kernel passes are counted as steps (a pass is part of a step).
  const double unit_ms = step_ms * rep_cost_steps(c.variant);  // one step of a repetition
  const double left_ms = s.budget_s * 1e3 - ms_since(t_start);
  if (double(spr) * reps * unit_ms > left_ms) {
    spr = std::max(1, int(left_ms / (reps * std::max(unit_ms, 1e-6))));
    if (double(spr) * reps * unit_ms > left_ms) {
      const int fit = std::max(std::min(3, reps), int(left_ms / std::max(unit_ms, 1e-6)));
      if (fit < reps) {
        add_note(r.note, "repetitions cut from " + std::to_string(reps) + " to " +
                             std::to_string(fit) + " to fit the time budget");
        reps = fit;
      }
    }
  }
  if (c.variant != Variant::naive) {
    // The neighbour kernel alone, on the same threads, over a cell list rebuilt from the state
    // count_pairs() just counted: the repetitions below move the flock on (a small world
    // clumps within a few hundred steps), so timing the kernel after them would divide the
    // work of a later state by the candidates of this one.
    grid_build_cells(w);
    std::vector<double> passes;
    std::uint64_t found = 0;
    for (int i = 0; i < reps; ++i) {
      const auto t0 = Clock::now();
      for (int k = 0; k < spr; ++k) found += grid_neighbour_pass(w);
      passes.push_back(ms_since(t0) / spr);
    }
    r.kernel_ms = summarize(passes);
    if (found == 0 && r.neighbours > 0) add_note(r.note, "kernel pass found no neighbours");
  }
  std::vector<double> samples, cpu;
  for (int i = 0; i < reps; ++i) {
    const double c0 = cpu_ms_now();
    const auto t0 = Clock::now();
    w.step(spr);
    samples.push_back(ms_since(t0) / spr);
    cpu.push_back((cpu_ms_now() - c0) / spr);
  }
  r.cpu_ms = summarize(cpu).median;
  r.reps = reps;
  r.steps_per_rep = spr;
  r.ms = summarize(samples);
  // After the steps: the engine's buffers (step input, cell list) exist only once it stepped.
  r.bytes_per_boid = double(engine_bytes_per_boid(w));
  r.peak_rss_bytes = peak_rss_bytes();
  return r;
}

namespace {

std::string one_line(const Result& r) {
  char buf[320];
  const std::string label = config_label(r.config);
  if (r.status == Status::measured) {
    const int n = std::snprintf(
        buf, sizeof buf, "%s [%s]: %.4g ms/step (IQR %.2g), %s boid-steps/s", label.c_str(),
        r.kernel.c_str(), r.ms.median, r.ms.iqr(), si(r.boid_steps_per_s()).c_str());
    if (r.kernel_ms.n > 0 && n > 0 && std::size_t(n) < sizeof buf)
      std::snprintf(buf + n, sizeof buf - std::size_t(n), ", kernel %.4g ms/pass",
                    r.kernel_ms.median);
  } else {
    std::snprintf(buf, sizeof buf, "%s: %s: %s", label.c_str(), status_name(r.status),
                  r.note.c_str());
  }
  return buf;
}

std::string human_bytes(double b) { return si(b) + "B"; }

}  // namespace

RunOutput run(const RunOptions& o, std::FILE* log) {
  RunOutput out;
  const auto t_run = Clock::now();
  out.env = collect_environment();
  out.env.command_line = o.command_line;
  const std::string scenario_name = o.scenario.empty() ? "<built-in default scenario>" : o.scenario;
  const WorldDef base = o.scenario.empty()
                            ? parse_scenario(default_scenario_text(), scenario_name, o.sets)
                            : load_scenario(o.scenario, o.sets);
  const std::vector<Config> configs = expand(o.sweep, o.max_count);
  if (configs.empty())
    throw Error(
        "the sweep is empty: check --engines, --counts, --threads, --dims, --precision "
        "and --max-count");

  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  {
    std::ofstream probe(fs::path(o.out_dir) / ".write-test");
    if (!probe) throw Error(o.out_dir + ": cannot write the results here");
  }
  fs::remove(fs::path(o.out_dir) / ".write-test", ec);

  if (!o.quiet) {
    std::fprintf(log,
                 "boids-bench: preset %s, %zu configurations\n"
                 "  cpu: %s (%d threads), simd: %s\n"
                 "  build: %s, %s, commit %s\n"
                 "  scenario: %s, %s, expected ~%.0f neighbours per boid (box scaled with n)\n",
                 o.preset.c_str(), configs.size(), out.env.cpu_model.c_str(), out.env.cores,
                 out.env.simd_flags.c_str(), out.env.build_type.c_str(), out.env.compiler.c_str(),
                 out.env.git_commit.c_str(), scenario_name.c_str(),
                 base.boundary == Boundary::wrap      ? "wrap"
                 : base.boundary == Boundary::reflect ? "reflect"
                                                      : "open",
                 expected_neighbours(base));
    if (out.env.load_start > 0.5 * out.env.cores)
      std::fprintf(log,
                   "  note: load average %.1f on %d cores before starting: other work shares "
                   "this machine, expect noisy figures\n",
                   out.env.load_start, out.env.cores);
  }

  Progress progress(log, configs.size(), o.tty, o.quiet);
  std::map<std::tuple<std::string, int, int, int>, double> probe_cache;
  double max_peak = peak_rss_bytes();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    progress.begin(i, config_label(c));
    Result r = measure(base, c, o.settings, out.results);
    if (r.status == Status::measured) {
      r.probe_isa = probe_isa_for_kernel(r.kernel);
      const auto key = std::make_tuple(r.probe_isa, int(c.precision), c.dims, c.threads);
      auto it = probe_cache.find(key);
      if (it == probe_cache.end()) {
        const double peak =
            probe_pairs_per_s(r.probe_isa, c.precision, c.dims, c.threads, o.settings.probe_s);
        it = probe_cache.emplace(key, peak).first;
      }
      r.probe_pairs_per_s = it->second;
      max_peak = std::max(max_peak, r.peak_rss_bytes);
    }
    out.results.push_back(r);
    progress.end(i, one_line(r));
  }
  progress.finish();
  derive(out.results);
  out.env.peak_rss_bytes = std::max(max_peak, peak_rss_bytes());
  out.env.load_end = load_average();

  RunInfo info;
  info.preset = o.preset;
  info.scenario = scenario_name;
  info.expected_neighbours = expected_neighbours(base);
  info.settings = o.settings;
  info.wall_s = ms_since(t_run) * 1e-3;

  auto write = [&](const std::string& name, const std::string& text) {
    const fs::path p = fs::path(o.out_dir) / name;
    std::ofstream f(p, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw Error(p.string() + ": cannot write");
    out.files.push_back(p.string());
  };
  const std::string table = format_table(out.results);
  {
    std::ostringstream csv, json;
    write_csv(csv, out.results);
    write_json(json, out.results, out.env, info);
    write("results.csv", csv.str());
    write("results.json", json.str());
    write("table.txt", table);
  }
  if (o.plots) {
    for (const auto& [name, plot] : make_plots(out.results)) write(name, render_svg(plot));
  }
  if (!o.quiet) {
    std::printf("\n%s", table.c_str());
    std::printf(
        "\nprocess peak RSS %s; per-row B/boid is the engine's own figure "
        "(bytes_per_boid x n = its memory)\n",
        human_bytes(out.env.peak_rss_bytes).c_str());
    if (out.env.load_end > 0.5 * out.env.cores)
      std::printf("load average %.1f at the end on %d cores: other work shared the machine\n",
                  out.env.load_end, out.env.cores);
    std::printf("%.0f s in all; wrote", info.wall_s);
    for (const auto& f : out.files) std::printf(" %s", f.c_str());
    std::printf("\n");
    std::fflush(stdout);
  }
  return out;
}

}  // namespace boids::bench
