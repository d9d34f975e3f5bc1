// The `boids` command-line program: runs a scenario with either engine and reads/writes
// state files. Every input is validated before the first step; every error, whether found by
// the option parser or later, is one line "boids: error: ..." on stderr and exit status 2.
#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>

#include "boids/h5md.hpp"
#include "boids/io.hpp"
#include "boids/scenario.hpp"
#include "boids/world.hpp"
#include "cli/metrics_output.hpp"
#include "cli/sweep.hpp"
#include "mpi/distributed.hpp"

namespace {

// Numbers are taken as text and parsed here, so that every mistake gets a message naming the
// option and the accepted range (CLI11's validators say "not in range" for "abc").
struct RunOptions {
  std::string scenario;
  std::string steps_text = "100";
  std::string engine;
  std::string threads_text;
  std::string seed_text;
  std::string init;
  std::string out;
  std::vector<std::string> sets;
  bool quiet = false;
  std::string save;    // snapshot written after the last step
  std::string load;    // snapshot to continue instead of a scenario
  std::string record;  // trajectory file (.csv: CSV, .h5/.h5md: H5MD, else binary)
  std::string every_text = "1";
  // Parsed from the texts above by finish_options().
  int steps = 100;
  int threads = -1;
  std::optional<std::uint64_t> seed;
  long long every = 1;
  boids::cli::MetricsOptions metrics;  // --metrics, --metrics-every, --metrics-kind
  int record_compress = 0;             // H5MD deflate level, 0 = off
  long long init_frame = -1;           // frame of an --init FILE.h5, -1 = the last
};

// An unsigned decimal integer in [lo, hi], or Error "OPTION: ...".
std::uint64_t parse_uint(const std::string& option, const std::string& text, std::uint64_t lo,
                         std::uint64_t hi) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
    throw boids::Error(option + ": expected an integer between " + std::to_string(lo) + " and " +
                       std::to_string(hi) + ", got \"" + text + "\"");
  return v;
}

void finish_options(RunOptions& o) {
  constexpr auto int_max = std::uint64_t(std::numeric_limits<std::int32_t>::max());
  o.steps = int(parse_uint("--steps", o.steps_text, 0, int_max));
  if (!o.threads_text.empty()) o.threads = int(parse_uint("--threads", o.threads_text, 0, 1024));
  if (!o.seed_text.empty())
    o.seed = parse_uint("--seed", o.seed_text, 0, std::numeric_limits<std::uint64_t>::max());
  o.every = (long long)parse_uint("--every", o.every_text, 1, int_max);
  if (!o.engine.empty() && o.engine != "naive" && o.engine != "grid" && o.engine != "grid-rows" &&
      o.engine != "cluster")
    throw boids::Error("--engine: expected naive, grid, grid-rows or cluster, got \"" + o.engine +
                       "\"");
}

const char* engine_name(boids::EngineKind e) {
  return e == boids::EngineKind::naive     ? "naive"
         : e == boids::EngineKind::cluster ? "cluster"
                                           : "grid";
}

int run(RunOptions& o) {
  finish_options(o);
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
    if (o.seed) sets.push_back("boids.seed=\"" + std::to_string(*o.seed) + "\"");
    if (h5_init) frame.emplace(boids::h5md::read_frame(o.init, o.init_frame));
    def = !o.scenario.empty() ? boids::load_scenario(o.scenario, sets)
          : frame
              ? boids::parse_scenario(frame->scenario_toml, o.init + " (embedded scenario)", sets)
              : boids::parse_scenario(boids::default_scenario_text(), "<built-in default scenario>",
                                      sets);
  }
  // The count must fit before anything the size of the flock is read or allocated.
  if (!loaded) boids::check_boid_count(def.count, def, "boids.count");
  boids::State init;
  if (!o.init.empty() && !h5_init) {
    const std::size_t n = loaded ? loaded->count() : def.count;
    init = boids::read_state_csv(o.init, def.dims, n);
  }
  // Outputs fail here, before the first step, not after a long run.
  if (!o.out.empty()) boids::check_output_path(o.out);
  if (!o.save.empty()) boids::check_output_path(o.save);
  if (!o.record.empty()) boids::check_output_path(o.record);
  if (!o.metrics.path.empty()) boids::check_output_path(o.metrics.path);

  boids::World world = loaded  ? std::move(*loaded)
                       : frame ? boids::h5md::world_from_frame(def, *frame, o.init)
                               : boids::World::create(def);
  if (!o.init.empty() && !h5_init) world.set_state(init);
  // Under mpirun every rank steps its slab (mpi/distributed.hpp); rank 0 gathers the state
  // into `world` before each write and is the only one to write or print.
  const std::unique_ptr<boids::mpi::Stepper> dist = boids::mpi::make_stepper(world);
  const bool writer = boids::mpi::is_root();
  if (dist && !writer) {
    // The stepper holds this rank's boids; only rank 0's World receives the gathered state.
    // The others drop their copy of the whole flock (about 60 bytes per boid).
    boids::WorldDef empty = world.def();
    empty.count = empty.predators = empty.leaders = 0;
    world = boids::World::create(empty);
  }

  // Frames at the start and after every `every` steps; the last one also when the run does
  // not end on a multiple. Recording happens between timed step batches.
  std::optional<boids::Recorder> rec;
  std::optional<boids::h5md::Writer> h5rec;
  if (!writer) {
  } else if (!o.record.empty() && boids::h5md::is_h5md_path(o.record)) {
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
  if (!o.metrics.path.empty() && writer) {
    met.emplace(o.metrics, world);
  }
  // Each metrics row also goes into an H5MD recording's /observables (docs/formats.md).
  const auto observe = [&](const boids::FlockMetrics& m, std::uint64_t step) {
    if (!h5rec) return;
    h5rec->append_observables(step, double(step) * world.def().dt,
                              {{"polarization", m.polarization},
                               {"milling", m.milling},
                               {"mean_speed", m.mean_speed},
                               {"mean_nnd", m.mean_nnd},
                               {"mean_neighbours", m.mean_neighbours},
                               {"clusters", double(m.clusters)},
                               {"largest_cluster", m.largest_cluster}});
  };
  // A row before a step is taken by that step (MetricsCalculator::defer: the counts and
  // nearest distances from its own kernel) and written after it; not under mpirun nor into
  // an H5MD recording's observables (whose order would change), nor after the last step,
  // whose row does not build the engine's cell list for a step that never comes
  // (MetricsCalculator::compute_final).
  const bool can_defer = met && !dist && !h5rec;
  std::uint64_t pending = 0;  // the step count of a deferred row, + 1
  const auto row_now = [&](int done) {
    if (can_defer && done < o.steps && met->defer(world))
      pending = world.step_count() + 1;
    else
      observe(met->row(world, done == o.steps), world.step_count());
  };
  if (met) row_now(0);
  // The batches depend on the options only, so every rank of a distributed run agrees.
  const bool recording = !o.record.empty(), metrics = !o.metrics.path.empty();
  double ms = 0;
  for (int done = 0; done < o.steps;) {
    long long batch = o.steps - done;
    if (recording) batch = std::min(batch, o.every - done % o.every);
    if (metrics) batch = std::min(batch, o.metrics.every - done % o.metrics.every);
    if (pending) batch = 1;  // the step that takes the deferred row
    const auto t0 = std::chrono::steady_clock::now();
    if (dist)
      dist->step(int(batch));
    else
      world.step(int(batch));
    const auto t1 = std::chrono::steady_clock::now();
    ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    done += int(batch);
    if (pending) observe(met->deferred_row(world, pending - 1), pending - 1);
    pending = 0;
    const bool at_frame = recording && (done % o.every == 0 || done == o.steps);
    const bool row = metrics && (done % o.metrics.every == 0 || done == o.steps);
    if (dist && (at_frame || row)) dist->sync(world);
    if (at_frame && rec) rec->frame(world);
    if (at_frame && h5rec) h5rec->frame(world);
    if (row && met) row_now(done);
  }
  if (dist) dist->sync(world);
  const std::string dist_line = dist ? dist->summary() : std::string();
  if (!writer) return 0;
  // The model never makes NaN from valid input; this guards the files against a bug ever
  // writing one. It reads the store in place: at 10M boids no copy of the state is made.
  if (!boids::state_is_finite(world))
    throw boids::Error("the state became non-finite during the run; nothing was written");
  if (rec) rec->finish();
  if (h5rec) h5rec->finish();
  if (met) met->finish();
  if (!o.save.empty()) world.save(o.save);
  if (!o.out.empty()) boids::write_state_csv(o.out, world);  // streamed
  if (!o.quiet) {
    std::printf("engine %s (%s), %dD, %zu boids, %d steps: %.3f ms/step, %.3g boid-steps/s\n",
                engine_name(def.engine), world.kernel_name().c_str(), def.dims, world.count(),
                o.steps, o.steps > 0 ? ms / o.steps : 0.0,
                ms > 0 ? double(world.count()) * o.steps / (ms * 1e-3) : 0.0);
    if (!dist_line.empty()) std::printf("%s\n", dist_line.c_str());
  }
  return 0;
}

// The one way the program reports an error: one line, control bytes escaped, status 2.
int fail(const std::string& message) {
  if (!boids::mpi::is_root()) return 2;  // every rank meets the same error; rank 0 says it
  std::string line = message;
  while (!line.empty() && line.back() == '\n') line.pop_back();
  std::cerr << "boids: error: " << boids::escape_control(line) << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  boids::mpi::Session mpi_session(argc, argv);
  CLI::App app{"boids: a multithreaded flocking engine. Runs scenarios, reads and writes states."};
  app.set_version_flag("--version", std::string("boids ") + boids::version());
  app.require_subcommand(1);

  RunOptions o;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scenario for a number of steps");
  run_cmd->add_option("--scenario", o.scenario,
                      "Scenario TOML file (default: the built-in 3D scenario, 10,000 boids)");
  run_cmd->add_option("--steps", o.steps_text, "Number of steps to run (0 to 2147483647)")
      ->capture_default_str();
  run_cmd->add_option("--engine", o.engine,
                      "Stepper: naive (O(n^2) reference), grid (fast; = grid-rows) or cluster "
                      "(grid with cluster-pair kernels)");
  run_cmd->add_option("--threads", o.threads_text,
                      "Worker threads, 0 to 1024; 0 = all cores, 1 = no workers");
  run_cmd->add_option("--seed", o.seed_text,
                      "Seed of the initial state, 0 to 2^64-1 (overrides boids.seed)");
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
  run_cmd->add_option("--every", o.every_text, "With --record: steps between recorded frames")
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
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see boids run --help)");
  }
  try {
    if (run_cmd->parsed()) return run(o);
    if (sweep_cmd->parsed()) return boids::cli::run_sweep(sweep);
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
