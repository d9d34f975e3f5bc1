// boids: the public C++ API of a world.
//
// Error policy: every function that can fail on bad input (null or mismatched arguments, NaN
// or out-of-box states, unknown ids, bad files) throws boids::Error and no other exception of
// ours; its message is one line naming what is at fault, and the world is left unchanged.
// The only other exception that can escape is std::bad_alloc when memory runs out. Functions
// marked noexcept never throw. The C API (boids.h) wraps these and turns them into status
// codes plus boids_last_error(); nothing is ever thrown across it.
//
// Ids: every boid has a uint32 id that never changes and is never reused. The boids created
// with the world get 0..count-1; added boids get next_id() onwards. All bulk views and states
// list boids in ascending id order, whatever order the engine keeps them in internally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "boids/version.hpp"
#include "boids/world_def.hpp"

namespace boids {

/// The one exception type of the API: bad input, a bad file, or an impossible request.
class BOIDS_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Read-only view of one vector quantity, one contiguous span per component, in id order.
/// In 2D, z is empty. Valid until the next call that changes the world.
template <class T>
struct ComponentsView {
  std::span<const T> x, y, z;
  /// The components lie in one block at this fixed distance (in elements, >= the count):
  /// y.data() == x.data() + stride, and z.data() == y.data() + stride in 3D. So the view is
  /// also one strided (count, dims) array, e.g. a zero-copy numpy view.
  std::size_t stride = 0;
};

/// Boid state in id order, for writing back with World::set_state(). Vectors of size count
/// (z, vz empty in 2D). Values are doubles whatever the world's precision.
struct State {
  std::vector<std::uint32_t> id;
  std::vector<double> x, y, z, vx, vy, vz;
  std::vector<std::uint8_t> kind;
};

class EngineBase;       // internal: the engine behind a World
struct WorldInternals;  // internal

/// Options for World::load(). The snapshot holds every def field except the host threading
/// (function pointers cannot be saved); give it here, or override the thread count.
struct LoadOptions {
  int threads = -1;                             ///< worker threads; -1 keeps the saved value
  HostParallelFor host_parallel_for = nullptr;  ///< see WorldDef::host_parallel_for
  void* host_context = nullptr;                 ///< see WorldDef::host_context
};

/// index_of() result for an id that is not in the world.
inline constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

/// A simulated flock. Movable, not copyable.
class BOIDS_API World {
 public:
  /// Creates a world from a def obtained from default_world_def(). Throws Error when the def
  /// is invalid (the message names the field) or the boid count would not fit in memory.
  static World create(const WorldDef& def);

  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  ~World();

  /// Advances the world by `count` steps of def().dt.
  void step(int count = 1);

  const WorldDef& def() const noexcept;
  /// Live boids now (def().count stays the number the world was created with).
  std::size_t count() const noexcept;
  std::uint64_t step_count() const noexcept;
  int dims() const noexcept;
  Precision precision() const noexcept;

  /// Bulk views in id order. The typed accessors throw Error when T does not match
  /// precision(). The naive engine stores id order, so its views are zero-copy; the grid
  /// engine stores cell order and its views are one gather into a cached id-order buffer.
  template <class T>
  ComponentsView<T> positions() const;
  template <class T>
  ComponentsView<T> velocities() const;
  std::span<const std::uint8_t> kinds() const;
  std::span<const std::uint32_t> ids() const;

  /// Full state as doubles in id order.
  State state() const;
  /// Replaces positions, velocities and kinds of all boids (ids must match ids(); kind may be
  /// empty to keep the kinds). Every value must be finite and, unless the boundary is open,
  /// inside [0, size). Throws Error otherwise and changes nothing.
  void set_state(const State& s);

  /// Adds `count` boids of `kind` between steps. Their initial state is the seeded one of
  /// create() (a function of (seed, id) only, so it does not depend on what happened before;
  /// the speed is the mean of the kind's min_speed and max_speed).
  /// Returns the first new id; the new boids have ids first .. first+count-1.
  std::uint32_t add_boids(std::uint32_t count, Kind kind = Kind::boid);
  /// Adds boids with the given state (rows as in set_state(); `rows.id` must be empty, an
  /// empty `rows.kind` means Kind::boid). Returns the first new id.
  std::uint32_t add_boids(const State& rows);
  /// Removes the boids with these ids. Throws Error (removing nothing) when an id is not in
  /// the world or appears twice. The other boids keep their ids and their order.
  void remove_boids(std::span<const std::uint32_t> ids);
  /// The id the next added boid will get.
  std::uint32_t next_id() const noexcept;
  /// Position of `id` in the id-ordered views, or kNoIndex when there is no such boid.
  std::size_t index_of(std::uint32_t id) const;

  /// Changes the def between steps. Start from def(), change what you need and pass it back.
  /// Runtime-changeable: dt, every kind's rules and motion, and all behaviour fields (goals,
  /// obstacles, ...). Fixed for the life of the world (Error naming the key if changed):
  /// world.dims, world.size, world.boundary, boids.count, predators.count, leaders.count
  /// (use add/remove), boids.seed,
  /// engine.kind, engine.precision, engine.threads, engine.simd, engine.cells_per_radius and
  /// the host threading. The new def is validated like create()'s; on error nothing changes.
  void set_def(const WorldDef& def);

  /// Saves the whole world (def, state in native precision, step count, id counter) to a
  /// versioned binary snapshot with a checksum, written atomically (docs/formats.md).
  void save(const std::string& path) const;
  /// Loads a snapshot. Stepping the loaded world gives bit-identical results to stepping the
  /// saved one. Throws Error with one line naming the file when it is missing, truncated,
  /// corrupt, of another format version or not a snapshot at all.
  static World load(const std::string& path, const LoadOptions& options = {});

  /// Hash of the exact bytes of the state in id order (FNV-1a 64), for determinism checks.
  std::uint64_t state_hash() const;

  /// The kernel path stepping this world: "naive" for the reference stepper, else the grid
  /// engine's instruction set, e.g. "scalar", "sse4.2", "avx2+fma" or "avx512".
  std::string kernel_name() const;

 private:
  friend struct WorldInternals;  // the library's own access to the engine (core/engine.hpp)
  explicit World(std::unique_ptr<EngineBase> e);
  std::unique_ptr<EngineBase> engine_;
};

/// Validates a def; throws Error naming the first bad field ("rules.radius: ...").
BOIDS_API void validate(const WorldDef& def);

}  // namespace boids
