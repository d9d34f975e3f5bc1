#include "viewer/sim_runner.hpp"

#include <algorithm>
#include <chrono>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "boids/debug.hpp"
#include "core/engine.hpp"

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
  stats_.kernel = world_.engine().kernel_name();
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
  stats_.kernel = world_.engine().kernel_name();
  paused_.store(paused);
  publish();
  thread_ = std::thread([this] { run(); });
}

SimRunner::SimRunner(const WorldDef& def, std::unique_ptr<ReplaySource> replay, std::size_t start,
                     bool paused, InstanceSink* sink)
    : world_([&] {
        // A one-boid world of the same shape: nothing is stepped, it only carries the def.
        WorldDef d = def;
        d.count = 1;
        d.predators = d.leaders = 0;
        d.engine = EngineKind::naive;
        d.threads = 1;
        return World::create(d);
      }()),
      back_(std::make_unique<Frame>()),
      ready_(std::make_unique<Frame>()),
      def_(def),
      sink_(sink),
      replay_(std::move(replay)) {
  if (replay_->dims() != def.dims)
    throw Error("the recording is " + std::to_string(replay_->dims()) + "D but the scenario is " +
                std::to_string(def.dims) + "D (give the scenario it was recorded with)");
  replay_pos_ = std::min(start, replay_->frames() - 1);
  stats_.replay_frames = replay_->frames();
  stats_.kernel = "replay";
  paused_.store(paused);
  publish_replay();
  thread_ = std::thread([this] { run(); });
}

SimRunner::~SimRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
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

  std::lock_guard<std::mutex> lock(mu_);
  f.serial = ++serial_;
  std::swap(back_, ready_);
  ready_fresh_ = true;
  cv_.notify_all();
}

// Publishes recorded frame replay_pos_ (simulation thread, or the constructor).
void SimRunner::publish_replay() {
  try {
    replay_->read(replay_pos_, rec_);
  } catch (const Error& e) {
    set_message(e.what(), true);
    paused_.store(true);
    return;
  }
  Frame& f = *back_;
  const std::size_t n = rec_.id.size();
  f.dims = replay_->dims();
  f.count = n;
  f.x = rec_.x;
  f.y = rec_.y;
  f.z = rec_.z;
  f.vx = rec_.vx;
  f.vy = rec_.vy;
  f.vz = rec_.vz;
  f.kind = rec_.kind;
  f.id = rec_.id;
  f.step = rec_.step;
  f.def = def_;
  f.debug = DebugInfo{};  // forces need the live world
  f.replay_frame = replay_pos_;
  fill_instances(f);
  std::lock_guard<std::mutex> lock(mu_);
  f.serial = ++serial_;
  std::swap(back_, ready_);
  ready_fresh_ = true;
  stats_.count = n;
  stats_.steps = f.step;
  stats_.replay_pos = replay_pos_;
  cv_.notify_all();
}

// Interleaved instance data for the renderer, the bounding box, the predators and leaders,
// and each boid's local count: the boids in its cell of a grid whose cells are one
// perception radius wide (a cheap stand-in for the neighbour count, O(n)).
void SimRunner::fill_instances(Frame& f) {
  const std::size_t n = f.count;
  if (f.slot >= 0 && sink_) sink_->give_back(f.slot);
  f.slot = -1;
  float* out = nullptr;
  if (sink_) f.slot = sink_->take(n, out);
  if (f.slot < 0) {
    f.inst.resize(n * kInstanceFloats);
    out = f.inst.data();
  } else {
    f.inst.clear();
  }
  f.special.clear();
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  const float* comp[3] = {f.x.data(), f.y.data(), f.z.data()};
  if (n > 0)
    for (int c = 0; c < 3; ++c) lo[c] = hi[c] = comp[c][0];
  for (std::size_t i = 0; i < n; ++i) {
    float* o = out + i * kInstanceFloats;
    o[0] = f.x[i];
    o[1] = f.y[i];
    o[2] = f.z[i];
    o[3] = f.vx[i];
    o[4] = f.vy[i];
    o[5] = f.vz[i];
    o[6] = float(f.kind[i]);
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], o[c]);
      hi[c] = std::max(hi[c], o[c]);
    }
    if (f.kind[i] != 0 && f.special.size() < 65536) f.special.push_back(std::uint32_t(i));
  }
  std::copy(lo, lo + 3, f.lo);
  std::copy(hi, hi + 3, f.hi);

  // Local counts on a grid over the bounding box, at most 2^22 cells.
  const double r = std::max(f.def.kinds[0].rules.radius, 1e-6);
  double cell = r;
  const int dims = f.dims;
  auto cells_along = [&](int c) {
    return std::max<std::size_t>(1, std::size_t((double(hi[c]) - lo[c]) / cell) + 1);
  };
  for (;;) {
    std::size_t total = 1;
    for (int c = 0; c < dims; ++c) total *= cells_along(c);
    if (total <= (std::size_t(1) << 22)) break;
    cell *= 1.5;
  }
  const std::size_t nx = cells_along(0), ny = cells_along(1), nz = dims == 3 ? cells_along(2) : 1;
  cell_counts_.assign(nx * ny * nz, 0);
  auto key = [&](const float* o) {
    const std::size_t ix = std::min(nx - 1, std::size_t((o[0] - lo[0]) / cell));
    const std::size_t iy = std::min(ny - 1, std::size_t((o[1] - lo[1]) / cell));
    const std::size_t iz = dims == 3 ? std::min(nz - 1, std::size_t((o[2] - lo[2]) / cell)) : 0;
    return ix + nx * (iy + ny * iz);
  };
  for (std::size_t i = 0; i < n; ++i) ++cell_counts_[key(out + i * kInstanceFloats)];
  std::uint32_t mx = 1;
  for (std::size_t i = 0; i < n; ++i) {
    float* o = out + i * kInstanceFloats;
    const std::uint32_t c = cell_counts_[key(o)] - 1;
    o[7] = float(c);
    mx = std::max(mx, c);
  }
  f.max_local = float(mx);
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
  stats_.kernel = world_.engine().kernel_name();
}

// The replay loop: shows recorded frames at target_rate_ frames per second while playing;
// seek, step and reset move the position; parameter requests are dropped (a recording is
// what it is).
void SimRunner::run_replay() {
  const std::size_t frames = replay_->frames();
  auto next = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  auto woken = [this] {
    return stop_.load() || want_seek_ || want_step_ || want_reset_ || want_republish_;
  };
  while (!stop_.load()) {
    bool show = want_republish_;
    want_republish_ = false;
    want_def_.reset();
    want_seed_.reset();
    if (want_seek_) {
      replay_pos_ = std::min(*want_seek_, frames - 1);
      want_seek_.reset();
      show = true;
    }
    if (want_reset_) {
      replay_pos_ = 0;
      want_reset_ = false;
      show = true;
    }
    if (want_step_) {
      want_step_ = false;
      if (replay_pos_ + 1 < frames) ++replay_pos_;
      show = true;
    }
    if (!show && !paused_.load()) {
      const double rate = target_rate_.load();
      if (rate > 0 && cv_.wait_until(lock, next, woken)) continue;
      if (rate > 0)
        next = std::max(next + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(1.0 / rate)),
                        Clock::now() - std::chrono::milliseconds(100));
      if (replay_pos_ + 1 < frames) {
        ++replay_pos_;
        show = true;
      } else {
        paused_.store(true);  // the end of the recording
      }
    }
    if (show) {
      lock.unlock();
      publish_replay();
      lock.lock();
      continue;
    }
    next = Clock::now();
    cv_.wait(lock, [&] { return woken() || !paused_.load(); });
  }
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
