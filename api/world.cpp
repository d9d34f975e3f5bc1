#include "boids/world.hpp"

#include <cmath>

#include "core/engine.hpp"
#include "core/input_limits.hpp"
#include "core/naive.hpp"
#include "core/scenario.hpp"
#include "core/validate.hpp"
#include "parallel/grid_engine.hpp"
#include "parallel/sequential_engine.hpp"

namespace boids {

namespace {
constexpr std::uint32_t kDefCookie = 0xB01D5DEFu;

}  // namespace

WorldDef default_world_def() {
  WorldDef d;
  d.internal_cookie = kDefCookie;
  return d;
}

WorldDef default_world_def(Profile profile) {
  WorldDef d = default_world_def();
  d.profile = profile;
  apply_profile_defaults(d);
  return d;
}

const char* version() noexcept { return BOIDS_VERSION_STRING; }

void validate(const WorldDef& def) {
  if (def.internal_cookie != kDefCookie)
    throw Error("WorldDef was not initialised with boids::default_world_def()");
  if (auto e = check_def(def)) throw Error(e->field + ": " + e->message);
}

World World::create(const WorldDef& def) {
  validate(def);
  // Refused before anything is allocated (physical memory and the cgroup limit).
  check_boid_count(def.count, def, "boids.count");
  std::unique_ptr<EngineBase> e;
  if (def.engine == EngineKind::naive)
    e = make_naive_engine(def);
  else if (def.update == UpdateOrder::sequential)
    e = make_sequential_engine(def);  // in place, one agent at a time: its own cell index
  else
    e = make_grid_engine(def);
  return World(std::move(e));
}

World::World(std::unique_ptr<EngineBase> e) : engine_(std::move(e)) {}
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

void World::step(int count) {
  if (count < 0) throw Error("step: count must be >= 0");
  engine_->step(count);
}

const WorldDef& World::def() const noexcept { return engine_->def(); }
std::size_t World::count() const noexcept { return engine_->count(); }
std::uint64_t World::step_count() const noexcept { return engine_->step_count(); }
int World::dims() const noexcept { return engine_->def().dims; }
Precision World::precision() const noexcept { return engine_->precision(); }
State World::state() const { return engine_->state(); }
void World::set_state(const State& s) {
  check_state_values(s, def(), "set_state");
  engine_->set_state(s);
}
std::uint64_t World::state_hash() const { return engine_->state_hash(); }
std::string World::kernel_name() const { return engine_->kernel_name(); }
std::span<const std::uint8_t> World::kinds() const { return engine_->kinds(); }
std::span<const std::uint32_t> World::ids() const { return engine_->ids(); }

PairCounts count_pairs(const World& w) { return engine_of(w).count_pairs(); }
std::size_t engine_bytes_per_boid(const World& w) { return engine_of(w).bytes_per_boid(); }

namespace {
template <class T>
const EngineT<T>& typed(const EngineBase& e) {
  const auto* t = dynamic_cast<const EngineT<T>*>(&e);
  if (!t) throw Error("view type does not match the world's precision");
  return *t;
}
}  // namespace

template <class T>
ComponentsView<T> World::positions() const {
  const BoidStore<T>& s = typed<T>(*engine_).id_ordered();
  ComponentsView<T> v{{s.p[0].data(), s.n}, {s.p[1].data(), s.n}, {}, s.capacity()};
  if (s.dims == 3) v.z = {s.p[2].data(), s.n};
  return v;
}

template <class T>
ComponentsView<T> World::velocities() const {
  const BoidStore<T>& s = typed<T>(*engine_).id_ordered();
  ComponentsView<T> v{{s.v[0].data(), s.n}, {s.v[1].data(), s.n}, {}, s.capacity()};
  if (s.dims == 3) v.z = {s.v[2].data(), s.n};
  return v;
}

template ComponentsView<float> World::positions<float>() const;
template ComponentsView<double> World::positions<double>() const;
template ComponentsView<float> World::velocities<float>() const;
template ComponentsView<double> World::velocities<double>() const;

}  // namespace boids
