// The World functions that change a world's population or def between steps, and snapshots.
// (api/world.cpp holds creation, stepping and the views.)
#include <algorithm>

#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/input_limits.hpp"
#include "core/snapshot.hpp"
#include "core/state_csv.hpp"

namespace boids {

std::uint32_t World::add_boids(std::uint32_t count, Kind kind) {
  // Refused before anything is allocated, like create().
  check_boid_count(std::uint64_t(engine_->count()) + count, def(), "add_boids: count");
  return engine_->add_seeded(count, static_cast<std::uint8_t>(kind));
}

std::uint32_t World::add_boids(const State& rows) {
  check_boid_count(std::uint64_t(engine_->count()) + rows.x.size(), def(), "add_boids: count");
  check_state_values(rows, def(), "add_boids");
  return engine_->add_rows(rows);
}

void World::remove_boids(std::span<const std::uint32_t> ids) { engine_->remove(ids); }

std::uint32_t World::next_id() const noexcept { return engine_->next_id(); }

std::size_t World::index_of(std::uint32_t id) const {
  const std::span<const std::uint32_t> all = ids();
  const auto it = std::lower_bound(all.begin(), all.end(), id);
  return it != all.end() && *it == id ? std::size_t(it - all.begin()) : kNoIndex;
}

void World::set_def(const WorldDef& def) {
  validate(def);
  const WorldDef& cur = engine_->def();
  auto fixed = [](bool same, const char* key) {
    if (!same) throw Error(std::string(key) + ": cannot change between steps (create a new world)");
  };
  fixed(def.dims == cur.dims, "world.dims");
  fixed(def.size == cur.size, "world.size");
  fixed(def.boundary == cur.boundary, "world.boundary");
  if (def.count != cur.count)
    throw Error("boids.count: cannot change with set_def (use add_boids / remove_boids)");
  if (def.predators != cur.predators || def.leaders != cur.leaders)
    throw Error(std::string(def.predators != cur.predators ? "predators" : "leaders") +
                ".count: cannot change with set_def (use add_boids / remove_boids)");
  fixed(def.seed == cur.seed, "boids.seed");
  fixed(def.engine == cur.engine, "engine.kind");
  // The grid and cluster engines run world.update = "sequential" on an engine of its own.
  fixed(def.update == cur.update || def.engine == EngineKind::naive, "world.update");
  fixed(def.precision == cur.precision, "engine.precision");
  fixed(def.threads == cur.threads, "engine.threads");
  fixed(def.simd == cur.simd, "engine.simd");
  fixed(def.cells_per_radius == cur.cells_per_radius, "engine.cells_per_radius");
  fixed(def.host_parallel_for == cur.host_parallel_for && def.host_context == cur.host_context,
        "host_parallel_for");
  engine_->set_def(def);
}

void World::save(const std::string& path) const {
  write_snapshot(path, *this);  // streamed (core/snapshot.hpp)
}

World World::load(const std::string& path, const LoadOptions& options) {
  SnapshotData d = decode_snapshot(read_file_bytes(path), path);
  if (options.threads >= 0) d.def.threads = options.threads;
  d.def.host_parallel_for = options.host_parallel_for;
  d.def.host_context = options.host_context;
  World w = World::create(d.def);
  try {
    check_state_values(d.state, d.def, "restore");
    w.engine_->restore(d.state, d.step_count, d.next_id);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return w;
}

}  // namespace boids
