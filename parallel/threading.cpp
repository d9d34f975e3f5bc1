#include "parallel/threading.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

// ThreadSanitizer cannot see the synchronisation inside the (uninstrumented) libtbb, so under
// TSan every hand-off to a TBB worker would be reported as a race. The TSan build therefore
// runs the very same loop bodies on plain std::threads (instrumented: pthread create/join),
// which lets TSan check what we own: that every task writes only its own outputs.
#if defined(__SANITIZE_THREAD__)
#define BOIDS_TSAN_THREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BOIDS_TSAN_THREADS 1
#endif
#endif

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
  const int avail = cores > 0 ? cores : 1;
  concurrency_ = threads <= 0 ? avail : threads;
  // More TBB threads than cores only oversubscribes (and TBB would cap its workers and warn),
  // so the arena is capped; concurrency_ keeps the request, which sizes the cell sort's blocks
  // (results never depend on either).
  if (concurrency_ > 1) arena_ = std::make_unique<Arena>(std::min(concurrency_, avail));
}

Executor::~Executor() = default;

void Executor::run(ParallelForTask task, void* ctx, std::size_t count, std::size_t grain) {
  if (host_) {
    host_(task, ctx, count, grain, host_context_);
    return;
  }
#if defined(BOIDS_TSAN_THREADS)
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const std::size_t b = next.fetch_add(grain);
      if (b >= count) return;
      task(b, std::min(count, b + grain), ctx);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < concurrency_; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return;
#endif
  arena_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, count, grain),
        [&](const tbb::blocked_range<std::size_t>& r) { task(r.begin(), r.end(), ctx); });
  });
}

}  // namespace boids
