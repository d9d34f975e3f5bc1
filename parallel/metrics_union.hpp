// The lock-free union-find of the metrics pair pass's cluster links (parallel/metrics_pairs.hpp),
// and its root look-up for the components (parallel/metrics.cpp). In an anonymous namespace,
// so every unit keeps its own copy: the instruction-set units' copies never stand in for the
// generic unit's.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace boids::metrics_detail {
namespace {

inline std::uint32_t pair_root(std::atomic<std::uint32_t>* parent, std::uint32_t x) {
  for (;;) {
    const std::uint32_t p = parent[x].load(std::memory_order_acquire);
    if (p == x) return x;
    const std::uint32_t g = parent[p].load(std::memory_order_acquire);
    if (g != p) parent[x].store(g, std::memory_order_release);  // path halving: g is an ancestor
    x = g;
  }
}

// Links the larger root under the smaller with a compare-and-swap (parent[x] <= x always):
// whatever order links arrive in, the sets end as the connected components of the links.
inline void pair_unite(std::atomic<std::uint32_t>* parent, std::uint32_t a, std::uint32_t b) {
  for (;;) {
    a = pair_root(parent, a);
    b = pair_root(parent, b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    std::uint32_t expected = a;
    if (parent[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
  }
}

}  // namespace
}  // namespace boids::metrics_detail
