// A world's boids in id order, read a chunk at a time straight from the engine's store
// through its rank -> slot map. The writers that stream a whole population to a file (state
// CSV, snapshots, recordings) use it, so that writing costs a few kilobytes of buffer instead
// of the id-order copy of the store (World::positions(): 29 B per boid in 3D float) or a
// State (56 B per boid) or the file's text in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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
  /// Streams the columns of the binary formats (snapshots, BOIDSREC frames) to
  /// `sink(const void*, bytes)`: every id, every kind, then x, y, (z), vx, vy, (vz), each
  /// column whole and in id order, a chunk at a time.
  template <class Sink>
  void write_columns(Sink&& sink) const {
    std::vector<char> buf(kChunk * 8);
    const int cols[8] = {id, kind, x, y, dims_ == 3 ? z : -1, vx, vy, dims_ == 3 ? vz : -1};
    for (int col : cols) {
      if (col < 0) continue;
      for (std::size_t first = 0; first < n_; first += kChunk) {
        const std::size_t rows = n_ - first < kChunk ? n_ - first : kChunk;
        gather(col, first, rows, buf.data());
        sink(static_cast<const void*>(buf.data()), rows * elem_bytes(col));
      }
    }
  }
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
