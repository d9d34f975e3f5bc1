#include "viewer/sim_runner.hpp"

#include <algorithm>
#include <chrono>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "boids/debug.hpp"

namespace boids::view {

namespace {

using Clock = std::chrono::steady_clock;

template <class T>
void copy_view(const ComponentsView<T>& view, int dims, std::vector<float>& x,
               std::vector<float>& y, std::vector<float>& z, std::size_t n) {
  x.resize(n);
  y.resize(n);
  z.resize(n);
  std::copy(view.x.begin(), view.x.end(), x.begin());
  std::copy(view.y.begin(), view.y.end(), y.begin());
  if (dims == 3)
    std::copy(view.z.begin(), view.z.end(), z.begin());
  else
    std::fill(z.begin(), z.end(), 0.0f);
}

// The refusal the panel shows when the naive stepper is asked for a large flock.
std::optional<std::string> refuse(const WorldDef& def) {
  if (def.engine == EngineKind::naive && def.count > kNaiveLimit) {
    return "naive engine refused for " + std::to_string(def.count) +
           " boids: it checks every pair, so one step would take seconds. Use the grid engine "
           "or at most " +
           std::to_string(kNaiveLimit) + " boids.";
  }
  return std::nullopt;
}

}  // namespace

SimRunner::SimRunner(const WorldDef& def, std::optional<State> init, int warmup, bool paused,
                     InstanceSink* sink)
    : world_([&] {
        if (auto why = refuse(def)) throw Error(*why);
        return World::create(def);
      }()),
      init_(std::move(init)),
      back_(std::make_unique<Frame>()),
      ready_(std::make_unique<Frame>()),
      def_(def),
      sink_(sink) {
  if (init_) world_.set_state(*init_);
  if (warmup > 0) world_.step(warmup);
  stats_.count = world_.count();
  stats_.steps = world_.step_count();
  stats_.kernel = world_.kernel_name();
  paused_.store(paused);
  publish();
  thread_ = std::thread([this] { run(); });
}

SimRunner::SimRunner(World world, int warmup, bool paused, InstanceSink* sink)
    : world_(std::move(world)),
      back_(std::make_unique<Frame>()),
      ready_(std::make_unique<Frame>()),
      def_(world_.def()),
      sink_(sink) {
  if (auto why = refuse(def_)) throw Error(*why);
  if (world_.count() == def_.count) init_ = world_.state();
  if (warmup > 0) world_.step(warmup);
  stats_.count = world_.count();
  stats_.steps = world_.step_count();
  stats_.kernel = world_.kernel_name();
  paused_.store(paused);
  publish();
  thread_ = std::thread([this] { run(); });
}

void SimRunner::set_paused(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    paused_.store(paused);
  }
  cv_.notify_all();
}

void SimRunner::request_step() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_step_ = true;
  }
  cv_.notify_all();
}

void SimRunner::request_reset() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_reset_ = true;
  }
  cv_.notify_all();
}

void SimRunner::request_reseed(std::uint64_t seed) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_seed_ = seed;
  }
  cv_.notify_all();
}

void SimRunner::request_def(const WorldDef& def) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_def_ = def;  // only the newest def matters
  }
  cv_.notify_all();
}

void SimRunner::set_debug_index(std::int64_t index) {
  if (debug_index_.exchange(index) == index) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_republish_ = true;
  }
  cv_.notify_all();
}

void SimRunner::request_seek(std::size_t i) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    want_seek_ = i;
  }
  cv_.notify_all();
}

bool SimRunner::acquire(std::unique_ptr<Frame>& front, int& retired) {
  retired = -1;
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready_fresh_) return false;
  if (!front) front = std::make_unique<Frame>();
  std::swap(front, ready_);
  // The frame handed back was drawn: its slot is the caller's to fence and recycle.
  retired = ready_->slot;
  ready_->slot = -1;
  ready_fresh_ = false;
  return true;
}

bool SimRunner::wait_first_frame(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                      [this] { return serial_ > 0; });
}

SimStats SimRunner::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

WorldDef SimRunner::def() const {
  std::lock_guard<std::mutex> lock(mu_);
  return def_;
}

void SimRunner::set_message(std::string msg, bool error) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.message = std::move(msg);
  stats_.message_is_error = error;
}

// The debug view's data for the boid at id-order index i, from the library's explain_forces().
DebugInfo SimRunner::explain(std::size_t i) const {
  const std::uint32_t id = world_.ids()[i];
  const ForceExplanation ex = explain_forces(world_, id);
  const RuleDef& r = world_.def().kinds[world_.kinds()[i]].rules;
  DebugInfo info;
  info.index = std::int64_t(i);
  info.id = id;
  info.radius = float(r.radius);
  info.separation_radius = float(r.separation_radius);
  info.view_angle = float(r.view_angle);
  for (std::uint32_t nid : ex.neighbours) {
    const std::size_t k = world_.index_of(nid);
    if (k != kNoIndex) info.neighbours.push_back(std::uint32_t(k));
  }
  for (const ForceTerm& t : ex.terms) {
    const float v[3] = {float(t.x), float(t.y), float(t.z)};
    if (t.name == "total") {
      std::copy(v, v + 3, info.total);
    } else if (t.name == "applied") {
      std::copy(v, v + 3, info.applied);
    } else {
      DebugTerm term;
      term.name = t.name;
      std::copy(v, v + 3, term.v);
      term_colour(t.name, term.rgb);
      info.terms.push_back(std::move(term));
    }
  }
  return info;
}

// Flocks up to this size get the live plot's metrics with every published state; larger ones
// at most a tenth of the simulation thread's time (SimRunner::publish).
constexpr std::size_t kMetricsEveryState = 200'000;

// Copies the world's state into the back frame, then swaps it with the ready one. Called
// only on the simulation thread (and once by the constructor before the thread starts).
void SimRunner::publish() {
  Frame& f = *back_;
  const std::size_t n = world_.count();
  f.dims = world_.dims();
  f.count = n;
  if (world_.precision() == Precision::f32) {
    copy_view(world_.positions<float>(), f.dims, f.x, f.y, f.z, n);
    copy_view(world_.velocities<float>(), f.dims, f.vx, f.vy, f.vz, n);
  } else {
    copy_view(world_.positions<double>(), f.dims, f.x, f.y, f.z, n);
    copy_view(world_.velocities<double>(), f.dims, f.vx, f.vy, f.vz, n);
  }
  const auto kinds = world_.kinds();
  f.kind.assign(kinds.begin(), kinds.end());
  const auto ids = world_.ids();
  f.id.assign(ids.begin(), ids.end());
  f.step = world_.step_count();
  f.def = world_.def();

  const std::int64_t sel = debug_index_.load();
  f.debug = sel >= 0 && std::size_t(sel) < n ? explain(std::size_t(sel)) : DebugInfo{};
  fill_instances(f);
  // The live plot's metrics (boids of kind 0): O(n) on this thread. A large flock's row costs
  // about a step (0.27 s of CPU at 1M), so above kMetricsEveryState a state gets them only
  // once nine times the last row's cost has passed since: at most a tenth of this thread.
  const Clock::time_point now = Clock::now();
  f.has_metrics = n <= kMetricsEveryState || now >= next_metrics_;
  if (f.has_metrics) {
    const FlockMetrics m = metrics_calc_.compute(world_, 0);
    f.metrics = {f.step, m.polarization, m.milling, double(m.clusters)};
    const Clock::time_point done = Clock::now();
    next_metrics_ = done + 9 * (done - now);
  }

  std::lock_guard<std::mutex> lock(mu_);
  f.serial = ++serial_;
  std::swap(back_, ready_);
  ready_fresh_ = true;
  cv_.notify_all();
}

// Applies queued requests; called with `lock` held, releases it while rebuilding worlds.
void SimRunner::apply_requests(std::unique_lock<std::mutex>& lock) {
  std::optional<WorldDef> def = std::move(want_def_);
  std::optional<std::uint64_t> seed = want_seed_;
  const bool reset = want_reset_;
  want_def_.reset();
  want_seed_.reset();
  want_reset_ = false;
  lock.unlock();

  try {
    if (def) {
      if (auto why = refuse(*def)) throw Error(*why);
      validate(*def);
      const WorldDef& old = world_.def();
      const bool same_box =
          def->dims == old.dims && def->size == old.size && def->boundary == old.boundary;
      const bool same_agents = def->count == old.count && def->predators == old.predators &&
                               def->leaders == old.leaders && def->seed == old.seed;
      const bool same_engine = def->engine == old.engine && def->precision == old.precision &&
                               def->threads == old.threads && def->simd == old.simd &&
                               def->cells_per_radius == old.cells_per_radius;
      if (same_box && same_agents && same_engine) {
        // Rules, motion, dt and behaviours change between steps, in place.
        world_.set_def(*def);
      } else if (same_box && same_agents) {
        // Another engine or thread count: a fresh world carrying the state on.
        World w = World::create(*def);
        w.set_state(world_.state());
        world_ = std::move(w);
      } else {
        // Another count: keep the state of the first boids that still fit (kinds follow the
        // new def: predators and leaders take the highest ids), seed the others.
        const State s = world_.state();
        World w = World::create(*def);
        if (same_box) {
          State fresh = w.state();
          const std::size_t keep = std::min(s.id.size(), fresh.id.size());
          for (std::size_t r = 0; r < keep; ++r) {
            fresh.x[r] = s.x[r];
            fresh.y[r] = s.y[r];
            fresh.vx[r] = s.vx[r];
            fresh.vy[r] = s.vy[r];
            if (def->dims == 3) {
              fresh.z[r] = s.z[r];
              fresh.vz[r] = s.vz[r];
            }
          }
          w.set_state(fresh);
        }
        world_ = std::move(w);
      }
      set_message("", false);
    }
    if (seed || reset) {
      WorldDef d = world_.def();
      if (seed) d.seed = *seed;
      World w = World::create(d);
      if (init_ && !seed && init_->id.size() == w.count()) w.set_state(*init_);
      world_ = std::move(w);
    }
  } catch (const Error& e) {
    set_message(e.what(), true);
  } catch (const std::bad_alloc&) {
    set_message("out of memory", true);
  }

  lock.lock();
  def_ = world_.def();
  stats_.count = world_.count();
  stats_.steps = world_.step_count();
  stats_.kernel = world_.kernel_name();
}

void SimRunner::run() {
#if defined(__linux__)
  // The window comes first: on a machine whose cores the simulation fills (and a software
  // rasteriser needs them too) the render loop keeps its frame rate and the flock steps a
  // little slower. Threads the engine starts from here inherit the lower priority.
  if (setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 5) != 0) {
    // Not allowed: run at the normal priority.
  }
#endif
  if (replay_) {
    run_replay();
    return;
  }
  auto next_step = Clock::now();
  auto rate_t0 = Clock::now();
  std::uint64_t rate_steps = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_.load()) {
    const bool requests = want_def_ || want_seed_ || want_reset_;
    if (requests) apply_requests(lock);
    const bool step = want_step_ || !paused_.load();
    const bool republish = requests || want_republish_;
    want_step_ = false;
    want_republish_ = false;

    if (step) {
      const double rate = target_rate_.load();
      if (rate > 0 && !paused_.load()) {
        // Wait for the next step time, but wake for requests and stop.
        if (cv_.wait_until(lock, next_step, [this] {
              return stop_.load() || want_def_ || want_seed_ || want_reset_ || want_republish_;
            })) {
          if (!stop_.load()) continue;
          break;
        }
        next_step = std::max(next_step + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(1.0 / rate)),
                             Clock::now() - std::chrono::milliseconds(100));
      }
      lock.unlock();
      const auto t0 = Clock::now();
      try {
        world_.step(1);
      } catch (const Error& e) {
        set_message(e.what(), true);
        paused_.store(true);
      }
      const auto t1 = Clock::now();
      publish();
      lock.lock();
      const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      stats_.step_ms =
          stats_.steps == 0 || stats_.step_ms == 0 ? ms : 0.9 * stats_.step_ms + 0.1 * ms;
      stats_.steps = world_.step_count();
      stats_.boid_steps_per_s =
          stats_.step_ms > 0 ? double(world_.count()) / (stats_.step_ms * 1e-3) : 0.0;
      ++rate_steps;
      stats_.stepped = true;
      const double span = std::chrono::duration<double>(t1 - rate_t0).count();
      if (span >= 0.5) {
        stats_.steps_per_s = double(rate_steps) / span;
        rate_steps = 0;
        rate_t0 = t1;
      }
      continue;
    }
    if (republish) {
      lock.unlock();
      publish();
      lock.lock();
      continue;
    }
    stats_.steps_per_s = 0;
    rate_steps = 0;
    rate_t0 = Clock::now();
    next_step = Clock::now();
    cv_.wait(lock, [this] {
      return stop_.load() || !paused_.load() || want_step_ || want_def_ || want_seed_ ||
             want_reset_ || want_republish_;
    });
  }
}

}  // namespace boids::view
