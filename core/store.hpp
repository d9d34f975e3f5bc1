// The structure-of-arrays boid store.
//
// One 64-byte-aligned block holds the six vector components one after another (x, y, z, vx,
// vy, vz), each a column of `capacity()` slots, a multiple of the widest SIMD width
// (kPadElems). Keeping the columns at one fixed stride is what lets a host see positions as
// one strided (n, dims) array without a copy (ComponentsView::stride, the Python views).
// 2D and 3D share the layout: in 2D the z columns exist but stay zero and no kernel reads
// them. Slot order is the engine's business (id order for the naive stepper, cell order for
// the grid engine); `id` says which boid lives in each slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/aligned.hpp"

namespace boids {

/// One component column of a BoidStore: a non-owning, fixed-size view of its slots.
template <class T>
class Column {
 public:
  Column() = default;
  Column(T* data, std::size_t size) : data_(data), size_(size) {}
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class Real>
struct BoidStore {
  int dims = 3;
  std::size_t n = 0;  ///< live boids; slots [n, capacity()) are zero padding
  Column<Real> p[3];  ///< positions x, y, z (columns of block_)
  Column<Real> v[3];  ///< velocities vx, vy, vz (columns of block_)
  AlignedVector<std::uint8_t> kind;
  AlignedVector<std::uint32_t> id;

  BoidStore() = default;
  BoidStore(const BoidStore& o) : dims(o.dims), n(o.n), kind(o.kind), id(o.id), block_(o.block_) {
    point();
  }
  BoidStore(BoidStore&& o) noexcept { swap(o); }
  BoidStore& operator=(BoidStore o) noexcept {
    swap(o);
    return *this;
  }

  void resize(std::size_t count) {
    n = count;
    const std::size_t cap = padded(count);
    block_.assign(6 * cap, Real(0));
    point();
    kind.assign(cap, 0);
    id.assign(cap, 0);
  }

  /// Slots per column; the distance in elements from x to y, y to z and vx to vy.
  std::size_t capacity() const noexcept { return block_.size() / 6; }

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

  /// Bytes the store holds: every column's slots, padding included (memory reports).
  std::size_t bytes() const noexcept {
    return capacity() * 6 * sizeof(Real) + kind.capacity() + id.capacity() * sizeof(std::uint32_t);
  }

  void swap(BoidStore& o) noexcept {
    std::swap(dims, o.dims);
    std::swap(n, o.n);
    block_.swap(o.block_);  // the buffers change hands, so the columns go with them
    for (int c = 0; c < 3; ++c) {
      std::swap(p[c], o.p[c]);
      std::swap(v[c], o.v[c]);
    }
    kind.swap(o.kind);
    id.swap(o.id);
  }

 private:
  // Re-derives the columns from block_ (after an allocation or a copy).
  void point() {
    const std::size_t cap = capacity();
    for (int c = 0; c < 3; ++c) {
      p[c] = Column<Real>(block_.data() + c * cap, cap);
      v[c] = Column<Real>(block_.data() + (3 + c) * cap, cap);
    }
  }

  AlignedVector<Real> block_;  // x, y, z, vx, vy, vz columns of capacity() slots each
};

}  // namespace boids
