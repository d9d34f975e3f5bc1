// The simulation thread of the viewer and its hand-over of completed states.
//
// The World lives on its own thread and is touched by nothing else. After every step that
// thread copies the id-ordered positions, velocities and kinds into a Frame and publishes
// it; the render loop picks up the newest published Frame whenever it likes. Three Frames
// circulate (a "mailbox"): the one the simulation is filling, the newest complete one, and
// the one the renderer is drawing. Publishing and picking up swap two pointers under a mutex,
// so neither side ever waits for the other's work: the window stays responsive while a step
// of a million boids takes longer than a frame, and the simulation never waits for vsync.
//
// Every control (pause, step, reset, parameter changes) is a request queued under the same
// mutex and applied by the simulation thread between two steps.
//
// The simulation thread also writes each state's GPU instance data itself (8 floats a boid,
// interleaved) into a slot it takes from an InstanceSink: the renderer's persistently mapped
// buffers (viewer/instance_ring.hpp). The render thread then draws a state without copying
// it; when no mapped slot is free (or GL < 4.4) the data stays in Frame::inst and the render
// thread streams it into an orphaned buffer.
//
// In replay mode the thread plays a recording (viewer/replay.hpp) instead of stepping a World:
// the timeline requests (seek, step, play at a rate) pick the recorded frame to publish.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "boids/metrics.hpp"
#include "boids/world.hpp"
#include "viewer/debug_info.hpp"
#include "viewer/metrics_plot.hpp"
#include "viewer/replay.hpp"

namespace boids::view {

/// The naive O(n^2) stepper is refused above this many boids: beyond it one step takes long
/// enough to make the viewer useless.
inline constexpr std::uint32_t kNaiveLimit = 20000;

/// Floats per boid in the instance data: x y z vx vy vz kind local-count.
inline constexpr std::size_t kInstanceFloats = 8;

/// Where the simulation thread writes instance data (implemented by the renderer's mapped
/// buffers; the simulation never calls OpenGL). Thread-safe.
class InstanceSink {
 public:
  virtual ~InstanceSink() = default;
  /// A free slot for `n` boids: its index, and its memory in `data`; -1 when none is free.
  virtual int take(std::size_t n, float*& data) = 0;
  /// Returns a slot that was filled but will never be drawn.
  virtual void give_back(int slot) = 0;
};

/// One completed state, in id order, as floats whatever the world's precision.
struct Frame {
  int dims = 3;
  std::size_t count = 0;
  std::vector<float> x, y, z, vx, vy, vz;  // z, vz hold zeros in 2D
  std::vector<std::uint8_t> kind;
  std::vector<std::uint32_t> id;
  std::uint64_t step = 0;              // steps done when this state was taken
  std::uint64_t serial = 0;            // increases with every published frame
  WorldDef def;                        // the def that produced the state
  DebugInfo debug;                     // forces on the selected boid (valid when debug.id is set)
  int slot = -1;                       // InstanceSink slot holding the instance data, or -1:
  std::vector<float> inst;             // ... then it is here (kInstanceFloats per boid)
  std::vector<std::uint32_t> special;  // id-order indices of predators and leaders
  bool has_metrics = false;            // metrics holds this state's flock metrics
  MetricsSample metrics;
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};  // bounding box of the positions
  float max_local = 1;           // largest local count (boids in the same perception cell)
  std::size_t replay_frame = 0;  // replay: index of this recorded frame
};

/// Statistics of the simulation thread, for the panel.
struct SimStats {
  double step_ms = 0;           // smoothed wall time of one World::step(1)
  double steps_per_s = 0;       // steps actually done per second of wall time
  double boid_steps_per_s = 0;  // count / step time
  std::uint64_t steps = 0;
  std::size_t count = 0;
  std::string kernel;
  std::string message;  // last error or notice from applying a request ("" when none)
  bool message_is_error = false;
  bool stepped = false;  // at least one step was timed (the readouts are measured)
  // Replay.
  std::size_t replay_frames = 0, replay_pos = 0;
};

class SimRunner {
 public:
  /// Creates the world on the calling thread (so a bad def fails before any window opens),
  /// runs `warmup` steps, then starts the simulation thread. Throws Error.
  SimRunner(const WorldDef& def, std::optional<State> init, int warmup, bool paused,
            InstanceSink* sink = nullptr);
  /// Continues `world` (a loaded snapshot); reset goes back to its state.
  SimRunner(World world, int warmup, bool paused, InstanceSink* sink = nullptr);
  /// Plays `replay` (frame `start` first) for a world shaped like `def` (box size, dims and
  /// kinds' rules for the drawing). Throws Error when the recording does not fit `def`.
  SimRunner(const WorldDef& def, std::unique_ptr<ReplaySource> replay, std::size_t start,
            bool paused, InstanceSink* sink = nullptr);
  ~SimRunner();
  SimRunner(const SimRunner&) = delete;
  SimRunner& operator=(const SimRunner&) = delete;

  void set_paused(bool paused);
  bool paused() const { return paused_.load(); }
  /// One step while paused.
  void request_step();
  /// Back to the start state (the seeded state, or the --init state) with the current def.
  void request_reset();
  /// New seed, seeded state.
  void request_reseed(std::uint64_t seed);
  /// Applies a changed def while keeping the flock: parameter changes keep every boid; a new
  /// count keeps the first boids and adds seeded ones (or drops the last). Refusals (naive
  /// engine past kNaiveLimit, invalid values) leave the world as it is and set stats().message.
  void request_def(const WorldDef& def);
  /// Steps per second of wall time the thread aims at; 0 = as fast as it can.
  void set_target_rate(double steps_per_second) { target_rate_.store(steps_per_second); }
  /// Boid whose forces are explained in every frame (-1: none).
  void set_debug_index(std::int64_t index);

  bool replaying() const { return replay_ != nullptr; }
  /// Replay: show recorded frame `i` next (clamped to the recording).
  void request_seek(std::size_t i);
  /// Replay: the step count of recorded frame i.
  std::uint64_t replay_step_of(std::size_t i) const { return replay_->step_of(i); }

  /// Replaces `front` with the newest published frame when there is one newer than it;
  /// returns whether it did, and in `retired` the instance slot of the frame it replaced
  /// (-1 when none): the caller draws from it no more. Never waits for a step.
  bool acquire(std::unique_ptr<Frame>& front, int& retired);
  /// Waits (up to `timeout_s`) until the first frame was published.
  bool wait_first_frame(double timeout_s);

  SimStats stats() const;
  /// The def of the world as of the last applied request.
  WorldDef def() const;

 private:
  void run();
  void run_replay();
  void apply_requests(std::unique_lock<std::mutex>& lock);
  void publish();
  void publish_replay();
  void fill_instances(Frame& f);
  DebugInfo explain(std::size_t index) const;
  void set_message(std::string msg, bool error);

  World world_;
  std::optional<State> init_;
  MetricsCalculator metrics_calc_;  // the live plot's metrics, on the simulation thread
  std::chrono::steady_clock::time_point next_metrics_{};  // a large flock's next metrics row

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<Frame> back_, ready_;
  bool ready_fresh_ = false;
  std::uint64_t serial_ = 0;

  // Requests, guarded by mu_.
  bool want_step_ = false, want_reset_ = false, want_republish_ = false;
  std::optional<std::uint64_t> want_seed_;
  std::optional<WorldDef> want_def_;
  SimStats stats_;
  WorldDef def_;  // copy of world_.def() readable from any thread

  std::atomic<bool> paused_{false};
  std::atomic<bool> stop_{false};
  std::atomic<double> target_rate_{60.0};
  std::atomic<std::int64_t> debug_index_{-1};
  std::thread thread_;
  InstanceSink* sink_ = nullptr;

  // Replay (replay_ set): the recording, the frame to show next, the state read last.
  std::unique_ptr<ReplaySource> replay_;
  std::size_t replay_pos_ = 0;
  std::optional<std::size_t> want_seek_;
  RecordedState rec_;
  std::vector<std::uint32_t> cell_counts_;  // scratch of the local-count pass
};

}  // namespace boids::view
