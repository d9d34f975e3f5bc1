#include "boids/world.hpp"

#include <unistd.h>

#include <cmath>
#include <sstream>

#include "core/engine.hpp"
#include "core/naive.hpp"
#include "core/validate.hpp"
#include "parallel/grid_engine.hpp"

namespace boids {

namespace {
constexpr std::uint32_t kDefCookie = 0xB01D5DEFu;

// Upper bound on the bytes per boid any engine holds (two stores, grid arrays, permutation,
// id-order view cache), used to refuse counts that cannot fit before allocating anything.
// Grid engine: 2 stores + view cache, 2 rank maps + keys + gather map (16), cell starts (<= 2
// cells per boid: 8), per-block histograms (<= 4 entries per boid: 16).
std::size_t worst_bytes_per_boid(const WorldDef& def) {
  const std::size_t real = def.precision == Precision::f64 ? 8 : 4;
  const std::size_t store = 6 * real + 5;
  return 3 * store + 40;
}
}  // namespace

WorldDef default_world_def() {
  WorldDef d;
  d.internal_cookie = kDefCookie;
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
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) {
    const double avail = 0.85 * double(pages) * double(page);
    const double need = double(def.count) * double(worst_bytes_per_boid(def));
    if (need > avail) {
      std::ostringstream os;
      os << "boids.count: " << def.count << " boids need about " << need / (1 << 30)
         << " GiB, more than this machine's " << avail / (1 << 30) << " GiB";
      throw Error(os.str());
    }
  }
  std::unique_ptr<EngineBase> e;
  if (def.engine == EngineKind::naive)
    e = make_naive_engine(def);
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
void World::set_state(const State& s) { engine_->set_state(s); }
std::uint64_t World::state_hash() const { return engine_->state_hash(); }
std::string World::kernel_name() const { return engine_->kernel_name(); }
std::span<const std::uint8_t> World::kinds() const { return engine_->kinds(); }
std::span<const std::uint32_t> World::ids() const { return engine_->ids(); }
EngineBase& World::engine() noexcept { return *engine_; }
const EngineBase& World::engine() const noexcept { return *engine_; }

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
