// A world's boids in id order, read a chunk at a time straight from the engine's store
// through its rank -> slot map. The writers that stream a whole population to a file (state
// CSV, snapshots, recordings) use it, so that writing costs a few kilobytes of buffer instead
// of the id-order copy of the store (World::positions(): 29 B per boid in 3D float) or a
// State (56 B per boid) or the file's text in memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "boids/world.hpp"

namespace boids {

class IdRows {
 public:
  /// The columns gather() copies: positions, velocities (elements of the world's precision,
  /// 4 or 8 bytes), ids (uint32) and kinds (uint8).
  enum Col : int { x = 0, y, z, vx, vy, vz, id, kind };
  /// Rows per chunk the writers gather at a time.
  static constexpr std::size_t kChunk = 4096;

  explicit IdRows(const World& w);

  std::size_t count() const noexcept { return n_; }
  int dims() const noexcept { return dims_; }
  Precision precision() const noexcept { return prec_; }
  /// Bytes of one element of `col`.
  std::size_t elem_bytes(int col) const noexcept;
  /// Copies column `col` of the boids with id ranks [first, first + rows) to `out`.
  void gather(int col, std::size_t first, std::size_t rows, void* out) const;
  /// True when any boid has a kind other than 0.
  bool any_kind() const;
  /// True when every position and velocity is finite.
  bool all_finite() const;

 private:
  const void* engine_;  // EngineT<float> or EngineT<double>, by prec_
  std::size_t n_;
  int dims_;
  Precision prec_;
};

}  // namespace boids
