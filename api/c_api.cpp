// The C API (include/boids/boids.h): a thin layer over boids::World. Every entry point runs
// its body inside guard() (api/c_api_internal.hpp), which turns every exception into a status
// code and a thread-local message, so nothing is ever thrown across the C boundary.
#include "boids/boids.h"

#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "api/c_api_internal.hpp"
#include "boids/world.hpp"
#include "core/input_limits.hpp"
#include "core/scenario.hpp"

namespace {

thread_local std::string g_last_error;

using boids::capi::fail;
using boids::capi::guard;

void require(bool ok, const char* what) {
  if (!ok) throw boids::Error(what);
}

boids::WorldDef to_cpp(const boids_world_def& c) {
  boids::WorldDef d = boids::default_world_def();
  require(c.engine == BOIDS_ENGINE_NAIVE || c.engine == BOIDS_ENGINE_GRID ||
              c.engine == BOIDS_ENGINE_CLUSTER,
          "engine.kind: must be BOIDS_ENGINE_NAIVE, BOIDS_ENGINE_GRID or BOIDS_ENGINE_CLUSTER");
  require(c.precision == BOIDS_F32 || c.precision == BOIDS_F64,
          "engine.precision: must be BOIDS_F32 or BOIDS_F64");
  require(c.boundary >= 0 && c.boundary <= 2, "world.boundary: must be a boids_boundary value");
  require(c.simd == 0 || c.simd == 1, "engine.simd: must be 0 or 1");
  d.dims = c.dims;
  d.size = c.size;
  d.boundary = static_cast<boids::Boundary>(c.boundary);
  d.count = c.count;
  d.predators = c.predators;
  d.leaders = c.leaders;
  d.seed = c.seed;
  d.dt = c.dt;
  for (int k = 0; k < boids::kKindCount; ++k) {
    const boids_kind_def& ck = c.kinds[k];
    boids::KindDef& kd = d.kinds[k];
    kd.rules = {ck.rules.radius,     ck.rules.separation_radius, ck.rules.view_angle,
                ck.rules.separation, ck.rules.alignment,         ck.rules.cohesion};
    kd.motion = {ck.motion.max_speed, ck.motion.min_speed, ck.motion.max_force};
  }
  d.engine = static_cast<boids::EngineKind>(c.engine);
  d.precision = static_cast<boids::Precision>(c.precision);
  d.threads = c.threads;
  d.simd = c.simd != 0;
  d.cells_per_radius = c.cells_per_radius;
  d.host_parallel_for = reinterpret_cast<boids::HostParallelFor>(c.host_parallel_for);
  d.host_context = c.host_context;
  d.internal_cookie = c.internal_cookie;  // validate() rejects a def not from the default
  return d;
}

// Keeps what the C struct cannot express (behaviours, vehicles, goals, obstacles, ...): starts
// from the world's current def and takes only the C struct's own fields from `c`.
boids::WorldDef to_cpp_over(const boids_world_def& c, const boids::WorldDef& base) {
  boids::WorldDef fromc = to_cpp(c);
  boids::WorldDef d = base;
  d.dims = fromc.dims;
  d.size = fromc.size;
  d.boundary = fromc.boundary;
  d.count = fromc.count;
  d.predators = fromc.predators;
  d.leaders = fromc.leaders;
  d.seed = fromc.seed;
  d.dt = fromc.dt;
  for (int k = 0; k < boids::kKindCount; ++k) {
    d.kinds[k].rules = fromc.kinds[k].rules;
    d.kinds[k].motion = fromc.kinds[k].motion;
  }
  d.engine = fromc.engine;
  d.precision = fromc.precision;
  d.threads = fromc.threads;
  d.simd = fromc.simd;
  d.cells_per_radius = fromc.cells_per_radius;
  d.host_parallel_for = fromc.host_parallel_for;
  d.host_context = fromc.host_context;
  d.internal_cookie = fromc.internal_cookie;
  return d;
}

boids_world_def to_c(const boids::WorldDef& d) {
  boids_world_def c;
  std::memset(&c, 0, sizeof(c));
  c.dims = d.dims;
  c.size = d.size;
  c.boundary = static_cast<int32_t>(d.boundary);
  c.count = d.count;
  c.predators = d.predators;
  c.leaders = d.leaders;
  c.seed = d.seed;
  c.dt = d.dt;
  for (int k = 0; k < boids::kKindCount; ++k) {
    const boids::KindDef& kd = d.kinds[k];
    c.kinds[k].rules = {kd.rules.radius,     kd.rules.separation_radius, kd.rules.view_angle,
                        kd.rules.separation, kd.rules.alignment,         kd.rules.cohesion};
    c.kinds[k].motion = {kd.motion.max_speed, kd.motion.min_speed, kd.motion.max_force};
  }
  c.engine = static_cast<int32_t>(d.engine);
  c.precision = static_cast<int32_t>(d.precision);
  c.threads = d.threads;
  c.simd = d.simd ? 1 : 0;
  c.cells_per_radius = d.cells_per_radius;
  c.host_parallel_for = reinterpret_cast<boids_host_parallel_for_fn>(d.host_parallel_for);
  c.host_context = d.host_context;
  c.internal_cookie = d.internal_cookie;
  return c;
}

const boids::World& W(const boids_world* w) {
  require(w != nullptr, "world is NULL");
  return w->world;
}
boids::World& W(boids_world* w) {
  require(w != nullptr, "world is NULL");
  return w->world;
}

// Interleaved doubles (count*dims) -> the component vectors of a State.
void fill_rows(boids::State& s, int dims, const double* pos, const double* vel,
               const uint8_t* kinds, size_t count) {
  require(pos != nullptr && vel != nullptr, "positions and velocities must not be NULL");
  std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
  for (int c = 0; c < dims; ++c) {
    p[c]->resize(count);
    v[c]->resize(count);
    for (size_t i = 0; i < count; ++i) {
      (*p[c])[i] = pos[i * size_t(dims) + size_t(c)];
      (*v[c])[i] = vel[i * size_t(dims) + size_t(c)];
    }
  }
  if (kinds) s.kind.assign(kinds, kinds + count);
}

template <class T>
void interleave(const boids::ComponentsView<T>& v, int dims, double* out) {
  const std::span<const T> comp[3] = {v.x, v.y, v.z};
  for (int c = 0; c < dims; ++c) {
    for (size_t i = 0; i < comp[c].size(); ++i)
      out[i * size_t(dims) + size_t(c)] = double(comp[c][i]);
  }
}

boids_status copy_vectors(const char* where, const boids_world* world, double* out, size_t capacity,
                          bool positions) {
  return guard(where, BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr, "output buffer is NULL");
    const size_t need = w.count() * size_t(w.dims());
    if (capacity < need)
      throw boids::Error("buffer holds " + std::to_string(capacity) +
                         " doubles, need count*dims = " + std::to_string(need));
    if (w.precision() == boids::Precision::f32)
      interleave(positions ? w.positions<float>() : w.velocities<float>(), w.dims(), out);
    else
      interleave(positions ? w.positions<double>() : w.velocities<double>(), w.dims(), out);
  });
}

boids_status view_vectors(const char* where, const boids_world* world, boids_view* out,
                          bool positions) {
  return guard(where, BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr, "output view is NULL");
    boids_view v{};
    auto set = [&](const auto& cv) {
      v.x = cv.x.data();
      v.y = cv.y.data();
      v.z = w.dims() == 3 ? cv.z.data() : nullptr;
      v.count = cv.x.size();
    };
    if (w.precision() == boids::Precision::f32) {
      set(positions ? w.positions<float>() : w.velocities<float>());
      v.precision = BOIDS_F32;
    } else {
      set(positions ? w.positions<double>() : w.velocities<double>());
      v.precision = BOIDS_F64;
    }
    *out = v;
  });
}

}  // namespace

void boids::capi::set_last_error(std::string message) { g_last_error = std::move(message); }

boids_status boids::capi::fail(boids_status s, const std::string& message) {
  g_last_error = boids::escape_control(message);  // one line, whatever the input held
  return s;
}

extern "C" {

const char* boids_version(void) { return boids::version(); }
const char* boids_last_error(void) { return g_last_error.c_str(); }

const char* boids_status_name(boids_status status) {
  switch (status) {
    case BOIDS_OK:
      return "ok";
    case BOIDS_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case BOIDS_ERROR_IO:
      return "i/o error";
    case BOIDS_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case BOIDS_ERROR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

boids_world_def boids_default_world_def(void) { return to_c(boids::default_world_def()); }

boids_status boids_world_create(const boids_world_def* def, boids_world** out_world) {
  return guard("boids_world_create", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    require(def != nullptr, "def is NULL");
    require(out_world != nullptr, "out_world is NULL");
    *out_world = new boids_world{boids::World::create(to_cpp(*def))};
  });
}

boids_status boids_world_create_from_scenario(const char* toml_text, boids_world** out_world) {
  return guard("boids_world_create_from_scenario", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    require(toml_text != nullptr, "toml_text is NULL");
    require(out_world != nullptr, "out_world is NULL");
    *out_world =
        new boids_world{boids::World::create(boids::parse_scenario(toml_text, "<scenario>"))};
  });
}

void boids_world_destroy(boids_world* world) { delete world; }

boids_status boids_world_step(boids_world* world, int32_t steps) {
  return guard("boids_world_step", BOIDS_ERROR_INVALID_ARGUMENT, [&] { W(world).step(steps); });
}

boids_status boids_world_count(const boids_world* world, size_t* out_count) {
  return guard("boids_world_count", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_count != nullptr, "out_count is NULL");
    *out_count = w.count();
  });
}

boids_status boids_world_step_count(const boids_world* world, uint64_t* out_steps) {
  return guard("boids_world_step_count", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_steps != nullptr, "out_steps is NULL");
    *out_steps = w.step_count();
  });
}

boids_status boids_world_dims(const boids_world* world, int32_t* out_dims) {
  return guard("boids_world_dims", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_dims != nullptr, "out_dims is NULL");
    *out_dims = w.dims();
  });
}

boids_status boids_world_precision(const boids_world* world, int32_t* out_precision) {
  return guard("boids_world_precision", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_precision != nullptr, "out_precision is NULL");
    *out_precision = w.precision() == boids::Precision::f64 ? BOIDS_F64 : BOIDS_F32;
  });
}

boids_status boids_world_next_id(const boids_world* world, uint32_t* out_id) {
  return guard("boids_world_next_id", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_id != nullptr, "out_id is NULL");
    *out_id = w.next_id();
  });
}

boids_status boids_world_index_of(const boids_world* world, uint32_t id, size_t* out_index) {
  return guard("boids_world_index_of", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_index != nullptr, "out_index is NULL");
    const size_t i = w.index_of(id);
    if (i == boids::kNoIndex) throw boids::Error("no boid has id " + std::to_string(id));
    *out_index = i;
  });
}

boids_status boids_world_state_hash(const boids_world* world, uint64_t* out_hash) {
  return guard("boids_world_state_hash", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_hash != nullptr, "out_hash is NULL");
    *out_hash = w.state_hash();
  });
}

boids_status boids_world_get_positions(const boids_world* world, double* out, size_t capacity) {
  return copy_vectors("boids_world_get_positions", world, out, capacity, true);
}

boids_status boids_world_get_velocities(const boids_world* world, double* out, size_t capacity) {
  return copy_vectors("boids_world_get_velocities", world, out, capacity, false);
}

boids_status boids_world_get_kinds(const boids_world* world, uint8_t* out, size_t capacity) {
  return guard("boids_world_get_kinds", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr, "output buffer is NULL");
    const auto k = w.kinds();
    if (capacity < k.size())
      throw boids::Error("buffer holds " + std::to_string(capacity) +
                         " kinds, need count = " + std::to_string(k.size()));
    std::memcpy(out, k.data(), k.size());
  });
}

boids_status boids_world_get_ids(const boids_world* world, uint32_t* out, size_t capacity) {
  return guard("boids_world_get_ids", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr, "output buffer is NULL");
    const auto ids = w.ids();
    if (capacity < ids.size())
      throw boids::Error("buffer holds " + std::to_string(capacity) +
                         " ids, need count = " + std::to_string(ids.size()));
    std::memcpy(out, ids.data(), ids.size_bytes());
  });
}

boids_status boids_world_view_positions(const boids_world* world, boids_view* out) {
  return view_vectors("boids_world_view_positions", world, out, true);
}

boids_status boids_world_view_velocities(const boids_world* world, boids_view* out) {
  return view_vectors("boids_world_view_velocities", world, out, false);
}

boids_status boids_world_view_kinds(const boids_world* world, const uint8_t** out,
                                    size_t* out_count) {
  return guard("boids_world_view_kinds", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr && out_count != nullptr, "output pointer is NULL");
    const auto k = w.kinds();
    *out = k.data();
    *out_count = k.size();
  });
}

boids_status boids_world_view_ids(const boids_world* world, const uint32_t** out,
                                  size_t* out_count) {
  return guard("boids_world_view_ids", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out != nullptr && out_count != nullptr, "output pointer is NULL");
    const auto ids = w.ids();
    *out = ids.data();
    *out_count = ids.size();
  });
}

boids_status boids_world_set_state(boids_world* world, const double* positions,
                                   const double* velocities, const uint8_t* kinds, size_t count) {
  return guard("boids_world_set_state", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    if (count != w.count())
      throw boids::Error("count is " + std::to_string(count) + ", the world has " +
                         std::to_string(w.count()) + " boids");
    boids::State s;
    const auto ids = w.ids();
    s.id.assign(ids.begin(), ids.end());
    fill_rows(s, w.dims(), positions, velocities, kinds, count);
    w.set_state(s);
  });
}

boids_status boids_world_add(boids_world* world, uint32_t count, int32_t kind,
                             uint32_t* out_first_id) {
  return guard("boids_world_add", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    require(kind >= 0 && kind < BOIDS_KIND_COUNT, "kind out of range");
    const uint32_t first = w.add_boids(count, static_cast<boids::Kind>(kind));
    if (out_first_id) *out_first_id = first;
  });
}

boids_status boids_world_add_with_state(boids_world* world, const double* positions,
                                        const double* velocities, const uint8_t* kinds,
                                        size_t count, uint32_t* out_first_id) {
  return guard("boids_world_add_with_state", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    boids::check_boid_count(std::uint64_t(w.count()) + count, w.def(), "count");
    boids::State s;
    fill_rows(s, w.dims(), positions, velocities, kinds, count);
    const uint32_t first = w.add_boids(s);
    if (out_first_id) *out_first_id = first;
  });
}

boids_status boids_world_remove(boids_world* world, const uint32_t* ids, size_t count) {
  return guard("boids_world_remove", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    require(ids != nullptr || count == 0, "ids is NULL");
    w.remove_boids(std::span<const uint32_t>(ids, count));
  });
}

boids_status boids_world_get_def(const boids_world* world, boids_world_def* out_def) {
  return guard("boids_world_get_def", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    require(out_def != nullptr, "out_def is NULL");
    *out_def = to_c(w.def());
  });
}

boids_status boids_world_set_def(boids_world* world, const boids_world_def* def) {
  return guard("boids_world_set_def", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    require(def != nullptr, "def is NULL");
    w.set_def(to_cpp_over(*def, w.def()));
  });
}

boids_status boids_world_set_scenario(boids_world* world, const char* toml_text) {
  return guard("boids_world_set_scenario", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    boids::World& w = W(world);
    require(toml_text != nullptr, "toml_text is NULL");
    boids::WorldDef d = boids::parse_scenario(toml_text, "<scenario>");
    d.host_parallel_for = w.def().host_parallel_for;
    d.host_context = w.def().host_context;
    w.set_def(d);
  });
}

boids_status boids_world_get_scenario(const boids_world* world, char* buffer, size_t capacity,
                                      size_t* out_length) {
  return guard("boids_world_get_scenario", BOIDS_ERROR_INVALID_ARGUMENT, [&] {
    const boids::World& w = W(world);
    const std::string t = boids::scenario_to_toml(w.def());
    if (out_length) *out_length = t.size();
    if (buffer == nullptr || capacity < t.size() + 1)
      throw boids::Error("buffer too small: the scenario needs " + std::to_string(t.size() + 1) +
                         " bytes");
    std::memcpy(buffer, t.c_str(), t.size() + 1);
  });
}

boids_status boids_world_save(const boids_world* world, const char* path) {
  const boids::World* w = world ? &world->world : nullptr;
  if (!w) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_save: world is NULL");
  if (!path) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_save: path is NULL");
  return guard("boids_world_save", BOIDS_ERROR_IO, [&] { w->save(path); });
}

boids_status boids_world_load(const char* path, boids_host_parallel_for_fn host_parallel_for,
                              void* host_context, boids_world** out_world) {
  if (!path) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_load: path is NULL");
  if (!out_world) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_load: out_world is NULL");
  return guard("boids_world_load", BOIDS_ERROR_IO, [&] {
    boids::LoadOptions o;
    o.host_parallel_for = reinterpret_cast<boids::HostParallelFor>(host_parallel_for);
    o.host_context = host_context;
    *out_world = new boids_world{boids::World::load(path, o)};
  });
}

}  // extern "C"
