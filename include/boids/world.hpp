// boids: the public C++ API of a world.
//
// Error policy: every function that can fail on bad input throws boids::Error (and nothing
// else of ours); its message is one line naming what is at fault. Functions marked noexcept
// never throw. The C API (boids.h) wraps these and turns Error into error codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "boids/world_def.hpp"

namespace boids {

/// The one exception type of the API: bad input, a bad file, or an impossible request.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Read-only view of one vector quantity, one contiguous span per component, in id order.
/// In 2D, z is empty. Valid until the next call that changes the world.
template <class T>
struct ComponentsView {
  std::span<const T> x, y, z;
};

/// Boid state in id order, for writing back with World::set_state(). Vectors of size count
/// (z, vz empty in 2D). Values are doubles whatever the world's precision.
struct State {
  std::vector<std::uint32_t> id;
  std::vector<double> x, y, z, vx, vy, vz;
  std::vector<std::uint8_t> kind;
};

class EngineBase;  // internal

/// A simulated flock. Movable, not copyable.
class World {
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
  /// Replaces positions, velocities and kinds of all boids (ids must match ids()).
  void set_state(const State& s);

  /// Hash of the exact bytes of the state in id order (FNV-1a 64), for determinism checks.
  std::uint64_t state_hash() const;

  /// Internal engine, for tools inside this project (bench, tests). Not a stable API.
  EngineBase& engine() noexcept;
  const EngineBase& engine() const noexcept;

 private:
  explicit World(std::unique_ptr<EngineBase> e);
  std::unique_ptr<EngineBase> engine_;
};

/// Validates a def; throws Error naming the first bad field ("rules.radius: ...").
void validate(const WorldDef& def);

/// Library version, "MAJOR.MINOR.PATCH".
const char* version() noexcept;

}  // namespace boids
