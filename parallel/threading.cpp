#include "parallel/threading.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

namespace boids {

struct Executor::Arena {
  explicit Arena(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

Executor::Executor(int threads, HostParallelFor host, void* host_context)
    : host_(host), host_context_(host_context) {
  if (host_) {
    concurrency_ = 8;  // only sizes per-block scratch; results never depend on it
    return;
  }
  const int cores = tbb::info::default_concurrency();
  // More threads than cores only oversubscribes (and TBB would cap the workers and warn);
  // results never depend on the count, so cap it.
  const int avail = cores > 0 ? cores : 1;
  concurrency_ = threads <= 0 ? avail : std::min(threads, avail);
  if (concurrency_ > 1) arena_ = std::make_unique<Arena>(concurrency_);
}

Executor::~Executor() = default;

void Executor::run(ParallelForTask task, void* ctx, std::size_t count, std::size_t grain) {
  if (host_) {
    host_(task, ctx, count, grain, host_context_);
    return;
  }
  arena_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, count, grain),
        [&](const tbb::blocked_range<std::size_t>& r) { task(r.begin(), r.end(), ctx); });
  });
}

}  // namespace boids
