// The simulation thread's replay mode and the instance data it writes for every state
// (viewer/sim_runner.hpp).
#include <algorithm>
#include <chrono>

#include "viewer/sim_runner.hpp"

namespace boids::view {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

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

}  // namespace boids::view
