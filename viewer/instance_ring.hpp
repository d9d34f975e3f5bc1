// The flock's instance buffers, filled by the simulation thread.
//
// With OpenGL 4.4 (or ARB_buffer_storage) there are kSlots buffers, each persistently and
// coherently mapped. The simulation thread takes a free slot, writes a state's instance data
// straight into it (SimRunner::fill_instances) and publishes the frame; the render thread
// draws from the slot of the frame it holds without copying anything. When it moves on to a
// newer frame it puts a fence after its last draw from the old slot, and the slot becomes
// free again once the fence has signalled, so the simulation never writes memory the GPU may
// still read and neither thread ever waits for the other. With four slots there is one being
// filled, one published, one drawn and one waiting for its fence.
//
// Without buffer storage (GL < 4.4) take() never gives a slot: the state stays in
// Frame::inst and the render thread streams it into one orphaned buffer (stream()).
#pragma once

#include <epoxy/gl.h>

#include <cstddef>
#include <mutex>

#include "viewer/renderer.hpp"
#include "viewer/sim_runner.hpp"

namespace boids::view {

class InstanceRing final : public InstanceSink {
 public:
  static constexpr int kSlots = 4;

  /// Render thread: creates the stream set, and decides whether to map (`allow_persistent`
  /// and the context supports buffer storage).
  void init(GLuint mesh_vbo, bool allow_persistent);
  void destroy();
  bool persistent() const { return persistent_; }

  // InstanceSink, any thread.
  int take(std::size_t n, float*& data) override;
  void give_back(int slot) override;

  // Render thread.
  /// The frame using `slot` is drawn no more: fence it, free it once the fence signals.
  void retire(int slot);
  /// Frees fenced slots whose fence has signalled.
  void poll();
  /// Grows the free slots to hold `n` boids (slots in use grow when they come back).
  void reserve(std::size_t n);
  InstanceSet& set(int slot) { return slots_[slot].set; }
  /// The fallback: uploaded from Frame::inst by orphaning.
  InstanceSet& stream() { return stream_; }

 private:
  enum class State { free, busy, fenced };
  struct Slot {
    GLuint buffer = 0;
    float* data = nullptr;
    std::size_t capacity = 0;  // boids
    GLsync fence = nullptr;
    State state = State::free;
    InstanceSet set;
  };
  std::mutex mu_;
  Slot slots_[kSlots];
  InstanceSet stream_;
  GLuint mesh_vbo_ = 0;
  bool persistent_ = false;
  std::size_t wanted_ = 0;
};

}  // namespace boids::view
