// The `boids` command-line program: runs a scenario with either engine and reads/writes
// state files. Every input is validated before the first step; errors are one line on stderr
// and a non-zero exit status.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "boids/world.hpp"
#include "cli/metrics_output.hpp"
#include "cli/sweep.hpp"
#include "core/engine.hpp"
#include "core/record.hpp"
#include "core/scenario.hpp"
#include "core/state_csv.hpp"
#include "io/h5md.hpp"

namespace {

struct RunOptions {
  std::string scenario;
  int steps = 100;
  std::string engine;
  int threads = -1;
  long long seed = -1;
  std::string init;
  std::string out;
  std::vector<std::string> sets;
  bool quiet = false;
  std::string save;    // snapshot written after the last step
  std::string load;    // snapshot to continue instead of a scenario
  std::string record;  // trajectory file (.csv: CSV, .h5/.h5md: H5MD, else binary)
  long long every = 1;
  boids::cli::MetricsOptions metrics;  // --metrics, --metrics-every, --metrics-kind
  int record_compress = 0;             // H5MD deflate level, 0 = off
  long long init_frame = -1;           // frame of an --init FILE.h5, -1 = the last
};

const char* engine_name(boids::EngineKind e) {
  return e == boids::EngineKind::naive     ? "naive"
         : e == boids::EngineKind::cluster ? "cluster"
                                           : "grid";
}

// Fails early when `path` cannot be written, before any step runs.
void check_writable(const std::string& path) {
  const std::string probe = path + ".probe.tmp";
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) throw boids::Error(path + ": cannot write here (directory missing or not writable)");
  std::fclose(f);
  std::remove(probe.c_str());
}

int run(const RunOptions& o) {
  // Everything is read and checked before the first step, so bad input never costs a run.
  std::optional<boids::World> loaded;
  boids::WorldDef def;
  // An H5MD --init gives the state, step count and id counter of one recorded frame, and the
  // scenario the recording was made with (unless --scenario names another).
  const bool h5_init = !o.init.empty() && boids::h5md::is_h5md_path(o.init);
  std::optional<boids::h5md::RecordedFrame> frame;
  if (o.init_frame != -1 && !h5_init)
    throw boids::Error("--init-frame: needs --init with an H5MD recording (.h5, .h5md)");
  if (o.record_compress != 0 && !boids::h5md::is_h5md_path(o.record))
    throw boids::Error("--record-compress: needs --record with an H5MD file (.h5, .h5md)");
  if (!o.record.empty() && boids::h5md::is_h5md_path(o.record) && !boids::h5md::available())
    throw boids::Error(o.record +
                       ": this build of boids has no HDF5 support (install "
                       "libhdf5-dev and reconfigure with -DBOIDS_HDF5=ON)");
  if (h5_init && !o.load.empty())
    throw boids::Error("--init: an H5MD recording cannot be combined with --load");
  if (!o.load.empty()) {
    boids::LoadOptions lo;
    lo.threads = o.threads;
    loaded.emplace(boids::World::load(o.load, lo));
    def = loaded->def();
  } else {
    std::vector<std::string> sets = o.sets;
    if (!o.engine.empty()) sets.push_back("engine.kind=\"" + o.engine + "\"");
    if (o.threads >= 0) sets.push_back("engine.threads=" + std::to_string(o.threads));
    if (o.seed >= 0) sets.push_back("boids.seed=" + std::to_string(o.seed));
    if (h5_init) frame.emplace(boids::h5md::read_frame(o.init, o.init_frame));
    def = !o.scenario.empty() ? boids::load_scenario(o.scenario, sets)
          : frame
              ? boids::parse_scenario(frame->scenario_toml, o.init + " (embedded scenario)", sets)
              : boids::parse_scenario(boids::default_scenario_text(), "<built-in default scenario>",
                                      sets);
  }
  boids::State init;
  if (!o.init.empty() && !h5_init) {
    const std::size_t n = loaded ? loaded->count() : def.count;
    init = boids::read_state_csv(o.init, def.dims, n);
  }
  if (!o.out.empty()) check_writable(o.out);
  if (!o.save.empty()) check_writable(o.save);
  if (!o.record.empty()) check_writable(o.record);
  if (!o.metrics.path.empty()) check_writable(o.metrics.path);

  boids::World world = loaded  ? std::move(*loaded)
                       : frame ? boids::h5md::world_from_frame(def, *frame, o.init)
                               : boids::World::create(def);
  if (!o.init.empty() && !h5_init) world.set_state(init);

  // Frames at the start and after every `every` steps; the last one also when the run does
  // not end on a multiple. Recording happens between timed step batches.
  std::optional<boids::Recorder> rec;
  std::optional<boids::h5md::Writer> h5rec;
  if (!o.record.empty() && boids::h5md::is_h5md_path(o.record)) {
    boids::h5md::WriterOptions wo;
    wo.every = std::uint64_t(o.every);
    wo.compress = o.record_compress;
    h5rec.emplace(o.record, world, wo);
    h5rec->frame(world);
  } else if (!o.record.empty()) {
    rec.emplace(o.record, world, std::uint64_t(o.every));
    rec->frame(world);
  }
  // Metrics rows likewise: the state before the first step, every N-th step and the last.
  std::optional<boids::cli::MetricsOutput> met;
  if (!o.metrics.path.empty()) {
    met.emplace(o.metrics, world);
  }
  // Each metrics row also goes into an H5MD recording's /observables (docs/formats.md).
  const auto observe = [&](const boids::FlockMetrics& m) {
    if (!h5rec) return;
    h5rec->append_observables(world.step_count(), double(world.step_count()) * world.def().dt,
                              {{"polarization", m.polarization},
                               {"milling", m.milling},
                               {"mean_speed", m.mean_speed},
                               {"mean_nnd", m.mean_nnd},
                               {"mean_neighbours", m.mean_neighbours},
                               {"clusters", double(m.clusters)},
                               {"largest_cluster", m.largest_cluster}});
  };
  if (met) observe(met->row(world));
  const bool recording = rec || h5rec;
  double ms = 0;
  for (int done = 0; done < o.steps;) {
    long long batch = o.steps - done;
    if (recording) batch = std::min(batch, o.every - done % o.every);
    if (met) batch = std::min(batch, met->every() - done % met->every());
    const auto t0 = std::chrono::steady_clock::now();
    world.step(int(batch));
    const auto t1 = std::chrono::steady_clock::now();
    ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    done += int(batch);
    if (done % o.every == 0 || done == o.steps) {
      if (rec) rec->frame(world);
      if (h5rec) h5rec->frame(world);
    }
    if (met && (done % met->every() == 0 || done == o.steps)) observe(met->row(world));
  }
  if (rec) rec->finish();
  if (h5rec) h5rec->finish();
  if (met) met->finish();
  if (!o.save.empty()) world.save(o.save);
  if (!o.out.empty()) boids::write_state_csv(o.out, world.state(), def.dims, def.precision);
  if (!o.quiet) {
    std::printf("engine %s (%s), %dD, %zu boids, %d steps: %.3f ms/step, %.3g boid-steps/s\n",
                engine_name(def.engine), world.engine().kernel_name().c_str(), def.dims,
                world.count(), o.steps, o.steps > 0 ? ms / o.steps : 0.0,
                ms > 0 ? double(world.count()) * o.steps / (ms * 1e-3) : 0.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"boids: a multithreaded flocking engine. Runs scenarios, reads and writes states."};
  app.set_version_flag("--version", std::string("boids ") + boids::version());
  app.require_subcommand(1);

  RunOptions o;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scenario for a number of steps");
  run_cmd->add_option("--scenario", o.scenario,
                      "Scenario TOML file (default: the built-in 3D scenario, 10,000 boids)");
  run_cmd->add_option("--steps", o.steps, "Number of steps to run")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run_cmd
      ->add_option("--engine", o.engine,
                   "Stepper: naive (O(n^2) reference), grid (fast; = grid-rows) or cluster "
                   "(grid with cluster-pair kernels)")
      ->check(CLI::IsMember({"naive", "grid", "grid-rows", "cluster"}));
  run_cmd->add_option("--threads", o.threads, "Worker threads; 0 = all cores, 1 = no workers")
      ->check(CLI::Range(0, 1024));
  run_cmd->add_option("--seed", o.seed, "Seed of the initial state (overrides boids.seed)")
      ->check(CLI::NonNegativeNumber);
  CLI::Option* init_opt = run_cmd->add_option(
      "--init", o.init,
      "Start from this state CSV, or from a frame of an H5MD recording (.h5, .h5md: its "
      "state, step count and scenario), instead of the seeded state");
  run_cmd
      ->add_option("--init-frame", o.init_frame,
                   "With --init FILE.h5: the frame to start from (0 = first; default the last)")
      ->check(CLI::NonNegativeNumber)
      ->needs(init_opt);
  run_cmd->add_option("--out", o.out, "Write the final state CSV here (atomically)");
  run_cmd->add_option("--set", o.sets, "Override a scenario key: section.key=value (repeatable)");
  run_cmd->add_flag("--quiet", o.quiet, "Print nothing on success");
  CLI::Option* load_opt = run_cmd->add_option(
      "--load", o.load, "Continue a snapshot written by --save (its def, state and step count)");
  load_opt->excludes(run_cmd->get_option("--scenario"))
      ->excludes(run_cmd->get_option("--set"))
      ->excludes(run_cmd->get_option("--seed"))
      ->excludes(run_cmd->get_option("--engine"));
  run_cmd->add_option("--save", o.save,
                      "Write a snapshot of the whole world after the last step (atomically)");
  CLI::Option* record_opt = run_cmd->add_option(
      "--record", o.record,
      "Write the trajectory here: H5MD if it ends in .h5 or .h5md (plus FILE.xdmf for "
      "ParaView), CSV if it ends in .csv, else binary (docs/formats.md)");
  run_cmd->add_option("--every", o.every, "With --record: steps between recorded frames")
      ->check(CLI::PositiveNumber)
      ->needs(record_opt)
      ->capture_default_str();
  run_cmd
      ->add_option("--record-compress", o.record_compress,
                   "With --record FILE.h5: deflate level 1-9 (with shuffle); 0 = off")
      ->check(CLI::Range(0, 9))
      ->needs(record_opt)
      ->capture_default_str();
  boids::cli::add_metrics_options(run_cmd, o.metrics);
  boids::cli::SweepOptions sweep;
  CLI::App* sweep_cmd = boids::cli::add_sweep_command(app, sweep);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (run_cmd->parsed()) return run(o);
    if (sweep_cmd->parsed()) return boids::cli::run_sweep(sweep);
  } catch (const boids::Error& e) {
    std::cerr << "boids: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "boids: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "boids: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
