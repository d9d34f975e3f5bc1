// A host-supplied parallel-for is C code: an exception thrown by a task must never unwind
// through it. The executor catches it inside the task, lets the host's loop return, and
// rethrows on the caller's thread.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "parallel/threading.hpp"

namespace {

struct HostState {
  int calls = 0;
  bool returned = false;  // the host's loop ran to its end
};

// A serial "C" host: calls the task per chunk, then marks that it returned normally.
void host_for(boids::ParallelForTask task, void* ctx, std::size_t count, std::size_t grain,
              void* host) {
  auto* h = static_cast<HostState*>(host);
  h->returned = false;
  for (std::size_t b = 0; b < count; b += grain) {
    ++h->calls;
    task(b, b + grain < count ? b + grain : count, ctx);
  }
  h->returned = true;
}

}  // namespace

TEST_CASE("exceptions never unwind through the host's parallel-for", "[parallel][threading]") {
  HostState h;
  boids::Executor ex(0, &host_for, &h);
  int ran = 0;
  auto body = [&](std::size_t b, std::size_t) {
    ++ran;
    if (b == 20) throw std::runtime_error("task failed at 20");
  };
  REQUIRE_THROWS_WITH(ex.parallel_for(100, 10, body), "task failed at 20");
  CHECK(h.returned);     // the host's loop finished: nothing unwound through it
  CHECK(h.calls == 10);  // every chunk was handed out
  CHECK(ran == 3);       // chunks after the failure are skipped
  // The executor stays usable.
  int sum = 0;
  ex.parallel_for(100, 10, [&](std::size_t b, std::size_t e) { sum += int(e - b); });
  CHECK(sum == 100);
  CHECK(h.returned);
}

TEST_CASE("exceptions from tasks reach the caller on the executor's own threads",
          "[parallel][threading]") {
  boids::Executor ex(2);
  REQUIRE_THROWS_WITH(ex.parallel_for(1000, 10,
                                      [&](std::size_t b, std::size_t) {
                                        if (b == 500) throw std::runtime_error("boom");
                                      }),
                      "boom");
}
