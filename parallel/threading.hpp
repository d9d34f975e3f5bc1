// The one threading seam of the engine. Every parallel loop goes through Executor::parallel_for,
// which runs on, in order of preference: the host's own parallel-for (WorldDef::host_parallel_for),
// a tbb::task_arena owned by this executor (never a process-wide global_control), or inline on
// the calling thread when threads == 1. Only threading.cpp includes TBB.
//
// Under ThreadSanitizer (which cannot see libtbb's internal synchronisation) the same loops
// run on plain std::threads instead of the arena; see threading.cpp.
//
// Results never depend on how a loop is split: every task writes disjoint outputs, and the few
// reductions (bounding box) use fixed blocks combined in a fixed order by the caller.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "boids/world_def.hpp"

namespace boids {

class Executor {
 public:
  /// threads: 0 = all cores, 1 = inline (no workers). host: optional host parallel-for.
  explicit Executor(int threads, HostParallelFor host = nullptr, void* host_context = nullptr);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Threads requested (1 = inline; the host's loops count as 8). Sizes per-block scratch.
  int concurrency() const noexcept { return concurrency_; }

  /// Runs f(begin, end) over disjoint ranges covering [0, count), ranges of about `grain`.
  template <class F>
  void parallel_for(std::size_t count, std::size_t grain, F&& f) {
    if (count == 0) return;
    if (grain == 0) grain = 1;
    if (concurrency_ == 1 && !host_) {
      f(std::size_t(0), count);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    run([](std::size_t b, std::size_t e, void* ctx) { (*static_cast<Fn*>(ctx))(b, e); },
        const_cast<void*>(static_cast<const void*>(&f)), count, grain);
  }

 private:
  void run(ParallelForTask task, void* ctx, std::size_t count, std::size_t grain);

  struct Arena;
  std::unique_ptr<Arena> arena_;
  HostParallelFor host_ = nullptr;
  void* host_context_ = nullptr;
  int concurrency_ = 1;
};

}  // namespace boids
