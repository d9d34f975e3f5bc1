#include "viewer/instance_ring.hpp"

#include <algorithm>

namespace boids::view {

void InstanceRing::init(GLuint mesh_vbo, bool allow_persistent) {
  mesh_vbo_ = mesh_vbo;
  stream_.create(mesh_vbo);
  persistent_ = allow_persistent &&
                (epoxy_gl_version() >= 44 || epoxy_has_gl_extension("GL_ARB_buffer_storage"));
}

void InstanceRing::destroy() {
  for (Slot& s : slots_) {
    if (s.fence) glDeleteSync(s.fence);
    if (s.buffer) {
      glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
      glUnmapBuffer(GL_ARRAY_BUFFER);
      glDeleteBuffers(1, &s.buffer);
    }
    s.set.destroy();
    s = Slot{};
  }
  stream_.destroy();
}

int InstanceRing::take(std::size_t n, float*& data) {
  std::lock_guard<std::mutex> lock(mu_);
  wanted_ = std::max(wanted_, n);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = slots_[i];
    if (s.state == State::free && s.data && s.capacity >= n) {
      s.state = State::busy;
      data = s.data;
      return i;
    }
  }
  return -1;
}

void InstanceRing::give_back(int slot) {
  std::lock_guard<std::mutex> lock(mu_);
  slots_[slot].state = State::free;
}

void InstanceRing::retire(int slot) {
  Slot& s = slots_[slot];
  if (s.fence) glDeleteSync(s.fence);
  s.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  std::lock_guard<std::mutex> lock(mu_);
  s.state = State::fenced;
}

void InstanceRing::poll() {
  for (Slot& s : slots_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (s.state != State::fenced) continue;
    }
    const GLenum r = glClientWaitSync(s.fence, 0, 0);
    if (r != GL_ALREADY_SIGNALED && r != GL_CONDITION_SATISFIED) continue;
    glDeleteSync(s.fence);
    s.fence = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    s.state = State::free;
  }
  std::size_t wanted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wanted = wanted_;
  }
  if (wanted > 0) reserve(wanted);
}

void InstanceRing::reserve(std::size_t n) {
  if (!persistent_ || n == 0) return;
  const std::size_t cap = n + n / 4;
  for (Slot& s : slots_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (s.state != State::free || (s.data && s.capacity >= n)) continue;
      s.state = State::busy;  // nobody takes it while it is rebuilt
    }
    if (s.buffer) {
      glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
      glUnmapBuffer(GL_ARRAY_BUFFER);
      glDeleteBuffers(1, &s.buffer);
      s.set.destroy();
    }
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    const GLsizeiptr bytes = GLsizeiptr(cap * kInstanceFloats * sizeof(float));
    glGenBuffers(1, &s.buffer);
    glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
    glBufferStorage(GL_ARRAY_BUFFER, bytes, nullptr, flags);
    s.data = static_cast<float*>(glMapBufferRange(GL_ARRAY_BUFFER, 0, bytes, flags));
    s.capacity = s.data ? cap : 0;
    s.set.attach(mesh_vbo_, s.buffer);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    std::lock_guard<std::mutex> lock(mu_);
    s.state = State::free;
    if (!s.data) persistent_ = false;  // mapping failed: stay on the streamed fallback
  }
}

}  // namespace boids::view
