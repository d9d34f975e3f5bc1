// The structure-of-arrays boid store.
//
// One contiguous, 64-byte-aligned array per component, padded to a multiple of the widest
// SIMD width (kPadElems). 2D and 3D share the layout: in 2D the z arrays exist but stay zero
// and no kernel reads them. Slot order is the engine's business (id order for the naive
// stepper, cell order for the grid engine); `id` says which boid lives in each slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/aligned.hpp"

namespace boids {

template <class Real>
struct BoidStore {
  int dims = 3;
  std::size_t n = 0;         ///< live boids; slots [n, padded(n)) are zero padding
  AlignedVector<Real> p[3];  ///< positions x, y, z
  AlignedVector<Real> v[3];  ///< velocities vx, vy, vz
  AlignedVector<std::uint8_t> kind;
  AlignedVector<std::uint32_t> id;

  void resize(std::size_t count) {
    n = count;
    const std::size_t cap = padded(count);
    for (int c = 0; c < 3; ++c) {
      p[c].assign(cap, Real(0));
      v[c].assign(cap, Real(0));
    }
    kind.assign(cap, 0);
    id.assign(cap, 0);
  }

  /// Copies slot `from` of `src` into slot `to` of this store.
  void copy_slot(std::size_t to, const BoidStore& src, std::size_t from) {
    for (int c = 0; c < 3; ++c) {
      p[c][to] = src.p[c][from];
      v[c][to] = src.v[c][from];
    }
    kind[to] = src.kind[from];
    id[to] = src.id[from];
  }

  /// Bytes of one boid across all arrays (not counting padding).
  static constexpr std::size_t bytes_per_boid() {
    return 6 * sizeof(Real) + sizeof(std::uint8_t) + sizeof(std::uint32_t);
  }

  void swap(BoidStore& o) noexcept {
    std::swap(dims, o.dims);
    std::swap(n, o.n);
    for (int c = 0; c < 3; ++c) {
      p[c].swap(o.p[c]);
      v[c].swap(o.v[c]);
    }
    kind.swap(o.kind);
    id.swap(o.id);
  }
};

}  // namespace boids
