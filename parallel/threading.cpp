#include "parallel/threading.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
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

namespace {

// Wraps a task so that no exception leaves it: a host's parallel-for is C (or C-compatible)
// code that cannot be unwound through, and a std::thread would terminate. The first exception
// is kept, the remaining ranges are skipped, and run() rethrows it on the calling thread once
// the host's loop has returned.
struct Trampoline {
  Trampoline(ParallelForTask t, void* c) : task(t), ctx(c) {}
  ParallelForTask task;
  void* ctx;
  std::atomic<bool> failed{false};
  std::mutex m;
  std::exception_ptr error;

  static void call(std::size_t b, std::size_t e, void* self) noexcept {
    auto* t = static_cast<Trampoline*>(self);
    if (t->failed.load(std::memory_order_relaxed)) return;
    try {
      t->task(b, e, t->ctx);
    } catch (...) {
      std::lock_guard<std::mutex> lock(t->m);
      if (!t->error) t->error = std::current_exception();
      t->failed.store(true, std::memory_order_relaxed);
    }
  }
  void rethrow() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace

void Executor::run(ParallelForTask task, void* ctx, std::size_t count, std::size_t grain) {
  if (host_) {
    Trampoline t{task, ctx};
    host_(&Trampoline::call, &t, count, grain, host_context_);
    t.rethrow();
    return;
  }
#if defined(BOIDS_TSAN_THREADS)
  Trampoline tramp{task, ctx};
  task = &Trampoline::call;
  ctx = &tramp;
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
  tramp.rethrow();
  return;
#endif
  arena_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, count, grain),
        [&](const tbb::blocked_range<std::size_t>& r) { task(r.begin(), r.end(), ctx); });
  });
}

}  // namespace boids
