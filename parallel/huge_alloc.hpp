// Storage for the flock metrics' per-boid scratch (parallel/metrics_cells.hpp, Scratch) and the
// grid engine's taken row (parallel/grid_taken_row.hpp): arrays of megabytes that a run touches
// for the first time at its first metrics row. On Linux an allocation of at least 2 MiB is
// mapped on its own, 2 MiB-aligned, with MADV_HUGEPAGE (transparent huge pages in "madvise"
// mode): the first touch then faults once per 2 MiB instead of once per 4 KiB, which on a
// virtual machine with costly page faults is most of that first touch (docs/metrics.md, "Cost").
// Only the memory's mapping changes, never a value. Elsewhere, and below 2 MiB: aligned_alloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace boids {

inline constexpr std::size_t kHugePage = std::size_t(2) << 20;

/// Raw storage of `bytes` (see above); free with huge_free(p, bytes).
inline void* huge_alloc(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kHugePage) {
    const std::size_t len = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    // Map one huge page more than needed and unmap the unaligned head and the tail.
    void* m = ::mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(m);
    const std::uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > base) ::munmap(m, aligned - base);
    const std::uintptr_t end = base + len + kHugePage;
    if (end > aligned + len) ::munmap(reinterpret_cast<void*>(aligned + len), end - aligned - len);
    void* p = reinterpret_cast<void*>(aligned);
    ::madvise(p, len, MADV_HUGEPAGE);  // advice only: refused, the pages stay 4 KiB
    return p;
  }
#endif
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}

inline void huge_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
#if defined(__linux__)
  if (bytes >= kHugePage) {
    ::munmap(p, (bytes + kHugePage - 1) / kHugePage * kHugePage);
    return;
  }
#else
  (void)bytes;
#endif
  std::free(p);
}

template <class T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() = default;
  template <class U>
  HugeAllocator(const HugeAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(huge_alloc(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { huge_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugeAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using HugeVector = std::vector<T, HugeAllocator<T>>;

/// An owned array of n default-constructed T (trivially destructible) in huge_alloc storage.
template <class T>
struct HugeDelete {
  std::size_t n = 0;
  void operator()(T* p) const noexcept { huge_free(p, n * sizeof(T)); }
};
template <class T>
using HugeArray = std::unique_ptr<T[], HugeDelete<T>>;
template <class T>
HugeArray<T> make_huge_array(std::size_t n) {
  T* p = static_cast<T*>(huge_alloc(n * sizeof(T)));
  std::uninitialized_default_construct_n(p, n);
  return HugeArray<T>(p, HugeDelete<T>{n});
}

}  // namespace boids
