// The grid engine's per-task scratch for its row loop (the row's sums and the kernel's
// buffers), kept across steps. Allocated afresh in every task, it was freed at the end of
// each step and faulted in again the next (glibc returns the heap's top to the system): about
// 30 page faults per step at 102,400 boids in 2D, a few per cent of the step in this VM.
// Which slot a task gets never matters: the kernels overwrite what they read.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/kernels.hpp"

namespace boids {

template <class Real>
class RowScratchPool {
 public:
  struct Slot {
    std::vector<FlockSums<Real>> sums;
    KernelScratch<Real> kernel;
  };

  /// A slot for one task, handed back to the pool when the lease ends.
  class Lease {
   public:
    Lease(RowScratchPool& pool, std::unique_ptr<Slot> slot) : pool_(pool), slot_(std::move(slot)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.put(std::move(slot_)); }
    Slot* operator->() const noexcept { return slot_.get(); }

   private:
    RowScratchPool& pool_;
    std::unique_ptr<Slot> slot_;
  };

  RowScratchPool() = default;
  RowScratchPool(const RowScratchPool&) = delete;
  RowScratchPool& operator=(const RowScratchPool&) = delete;

  Lease take() {
    std::unique_ptr<Slot> s;
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!free_.empty()) {
        s = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!s) s = std::make_unique<Slot>();
    return Lease(*this, std::move(s));
  }

  /// Slots the pool holds between tasks (one per task that ran at once).
  std::size_t slots() const {
    std::lock_guard<std::mutex> lock(m_);
    return free_.size();
  }

  /// Bytes the pooled slots hold (their capacities), for the engine's memory report.
  std::size_t bytes() const {
    std::lock_guard<std::mutex> lock(m_);
    std::size_t b = 0;
    for (const auto& s : free_)
      b += sizeof(Slot) + s->sums.capacity() * sizeof(FlockSums<Real>) +
           s->kernel.buf.capacity() * sizeof(Real) +
           s->kernel.idx.capacity() * sizeof(std::uint32_t);
    return b;
  }

 private:
  void put(std::unique_ptr<Slot> s) {
    std::lock_guard<std::mutex> lock(m_);
    free_.push_back(std::move(s));
  }

  mutable std::mutex m_;
  std::vector<std::unique_ptr<Slot>> free_;
};

}  // namespace boids
