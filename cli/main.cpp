// The `boids` command-line program: runs a scenario with either engine and reads/writes
// state files. Every input is validated before the first step; errors are one line on stderr
// and a non-zero exit status.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/record.hpp"
#include "core/scenario.hpp"
#include "core/state_csv.hpp"

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
  std::string record;  // trajectory file (.csv: CSV, else binary)
  long long every = 1;
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
    def = o.scenario.empty() ? boids::parse_scenario(boids::default_scenario_text(),
                                                     "<built-in default scenario>", sets)
                             : boids::load_scenario(o.scenario, sets);
  }
  boids::State init;
  if (!o.init.empty()) {
    const std::size_t n = loaded ? loaded->count() : def.count;
    init = boids::read_state_csv(o.init, def.dims, n);
  }
  if (!o.out.empty()) check_writable(o.out);
  if (!o.save.empty()) check_writable(o.save);
  if (!o.record.empty()) check_writable(o.record);

  boids::World world = loaded ? std::move(*loaded) : boids::World::create(def);
  if (!o.init.empty()) world.set_state(init);

  // Frames at the start and after every `every` steps; the last one also when the run does
  // not end on a multiple. Recording happens between timed step batches.
  std::optional<boids::Recorder> rec;
  if (!o.record.empty()) {
    rec.emplace(o.record, world, std::uint64_t(o.every));
    rec->frame(world);
  }
  double ms = 0;
  for (int done = 0; done < o.steps;) {
    const int batch = rec ? int(std::min<long long>(o.every, o.steps - done)) : o.steps;
    const auto t0 = std::chrono::steady_clock::now();
    world.step(batch);
    const auto t1 = std::chrono::steady_clock::now();
    ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    done += batch;
    if (rec) rec->frame(world);
  }
  if (rec) rec->finish();
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
  run_cmd->add_option("--init", o.init, "Start from this state CSV instead of the seeded state");
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
      "Write the trajectory here: binary (docs/formats.md), or CSV if it ends in .csv");
  run_cmd->add_option("--every", o.every, "With --record: steps between recorded frames")
      ->check(CLI::PositiveNumber)
      ->needs(record_opt)
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (run_cmd->parsed()) return run(o);
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
