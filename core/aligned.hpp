// 64-byte aligned storage for the SoA arrays, so every component array starts on a cache line
// and SIMD loads from index 0 are aligned.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace boids {

inline constexpr std::size_t kAlign = 64;
/// Widest SIMD width in elements (AVX-512 floats); arrays are padded to a multiple of it.
inline constexpr std::size_t kPadElems = 16;

inline constexpr std::size_t padded(std::size_t n) {
  return (n + kPadElems - 1) / kPadElems * kPadElems;
}

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    std::size_t bytes = (n * sizeof(T) + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, bytes == 0 ? kAlign : bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace boids
