// The internal engine interface behind boids::World.
//
// EngineBase is what World forwards to; EngineT<Real> adds the typed SoA store shared by both
// steppers. Slot order is engine-defined: the naive stepper keeps id order, the grid engine
// keeps cell order and a permutation. Virtual dispatch happens once per step or per view,
// never per boid.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "boids/engine_info.hpp"
#include "boids/world.hpp"
#include "core/model.hpp"
#include "core/store.hpp"

namespace boids {

// PairCounts is public (boids/engine_info.hpp).

class EngineBase {
 public:
  explicit EngineBase(const WorldDef& def) : def_(def) {}
  virtual ~EngineBase() = default;
  EngineBase(const EngineBase&) = delete;
  EngineBase& operator=(const EngineBase&) = delete;

  virtual void step(int count) = 0;
  virtual std::size_t count() const = 0;
  virtual Precision precision() const = 0;
  virtual State state() const = 0;
  virtual void set_state(const State& s) = 0;
  /// Appends `count` boids of `kind` with ids next_id().. and the seeded initial state of
  /// init_state() (a function of (seed, id) only). Returns the first new id.
  virtual std::uint32_t add_seeded(std::uint32_t count, std::uint8_t kind) = 0;
  /// Appends boids with the given rows (s.id must be empty); returns the first new id.
  virtual std::uint32_t add_rows(const State& s) = 0;
  /// Removes the boids with these ids (each must exist, no duplicates).
  virtual void remove(std::span<const std::uint32_t> ids) = 0;
  /// Replaces the whole population (ids strictly increasing, all < next_id), the step count
  /// and the id counter: the snapshot loader's entry point.
  virtual void restore(const State& s, std::uint64_t steps, std::uint32_t next_id) = 0;
  /// Applies a validated def whose structural fields (World::set_def) are unchanged.
  virtual void set_def(const WorldDef& def) = 0;
  virtual std::uint64_t state_hash() const = 0;
  virtual std::span<const std::uint8_t> kinds() const = 0;
  virtual std::span<const std::uint32_t> ids() const = 0;
  /// Name of the kernel path in use, e.g. "scalar", "avx2+fma" (naive: "naive").
  virtual std::string kernel_name() const = 0;
  /// Bytes this engine holds per boid (store, buffers, grid share), for the bench.
  virtual std::size_t bytes_per_boid() const = 0;
  /// Counts the pairs one step would examine and accept, in a separate (slow) pass over the
  /// current state; never done inside step().
  virtual PairCounts count_pairs() const = 0;

  const WorldDef& def() const noexcept { return def_; }
  std::uint64_t step_count() const noexcept { return steps_; }
  /// The id the next added boid gets; ids are never reused.
  std::uint32_t next_id() const noexcept { return next_id_; }

 protected:
  WorldDef def_;
  std::uint64_t steps_ = 0;
  std::uint32_t next_id_ = 0;
};

/// Typed engine: owns the store in its own slot order.
template <class Real>
class EngineT : public EngineBase {
 public:
  explicit EngineT(const WorldDef& def);

  std::size_t count() const override { return s_.n; }
  Precision precision() const override {
    return sizeof(Real) == 4 ? Precision::f32 : Precision::f64;
  }
  State state() const override;
  void set_state(const State& s) override;
  std::uint32_t add_seeded(std::uint32_t count, std::uint8_t kind) override;
  std::uint32_t add_rows(const State& s) override;
  void remove(std::span<const std::uint32_t> ids) override;
  void restore(const State& s, std::uint64_t steps, std::uint32_t next_id) override;
  void set_def(const WorldDef& def) override;
  std::uint64_t state_hash() const override;
  std::span<const std::uint8_t> kinds() const override;
  std::span<const std::uint32_t> ids() const override;

  /// The store in id order: the store itself when slots are in id order, else a gathered
  /// copy cached until the next step or set_state.
  const BoidStore<Real>& id_ordered() const;

  const ModelParams<Real>& params() const noexcept { return m_; }
  /// The store in slot order and the slot of every id rank (nullptr: slot order is id order),
  /// for the streaming writers (core/id_rows.hpp), which must not build the id-order copy.
  const BoidStore<Real>& slots() const noexcept { return s_; }
  const std::uint32_t* rank_slots() const { return slot_of_rank(); }

 protected:
  /// Slot of the boid with the given id rank, or nullptr when slots are in id order.
  virtual const std::uint32_t* slot_of_rank() const { return nullptr; }
  /// Called after s_ was rewritten in id order (set_state, add, remove, restore; the count
  /// may have changed): engines re-derive their slot order and caches from s_.
  virtual void on_state_replaced() {}
  /// Called after set_def() replaced def_ and m_ (rules, motion, dt, behaviours may differ;
  /// dims, size, boundary, count, engine settings do not): engines re-derive what depends on
  /// them, e.g. the grid's cell size from the largest radius.
  virtual void on_def_changed() {}
  /// Swaps in `fresh` (id order) and calls on_state_replaced().
  void replace_store(BoidStore<Real>& fresh);
  void invalidate_cache() { cache_valid_ = false; }
  /// Bytes held by the id-order copy (0 until a view asked for it).
  std::size_t cache_bytes() const noexcept { return cache_.capacity() * (6 * sizeof(Real) + 5); }

  ModelParams<Real> m_;
  BoidStore<Real> s_;

 private:
  mutable BoidStore<Real> cache_;
  mutable bool cache_valid_ = false;
};

/// The engine behind a World, for the library's own sources, its tests and the internal kernel
/// benchmarks (docs/architecture.md). Not part of the public API: World hands out no engine.
struct WorldInternals {
  static EngineBase& engine(World& w) noexcept { return *w.engine_; }
  static const EngineBase& engine(const World& w) noexcept { return *w.engine_; }
};
inline EngineBase& engine_of(World& w) noexcept { return WorldInternals::engine(w); }
inline const EngineBase& engine_of(const World& w) noexcept { return WorldInternals::engine(w); }

/// Fills `s` (already resized, ids set) with the deterministic initial state of `def`.
template <class Real>
void init_state(const WorldDef& def, BoidStore<Real>& s);

/// FNV-1a 64 over bytes, chainable.
std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ull);

extern template class EngineT<float>;
extern template class EngineT<double>;

}  // namespace boids
