// The C API of state files and recordings (include/boids/boids.h, "state files and
// recordings"): thin wrappers of boids/io.hpp, each body inside guard().
#include <memory>
#include <string>

#include "api/c_api_internal.hpp"
#include "boids/boids.h"
#include "boids/io.hpp"

struct boids_recorder {
  boids::Recorder recorder;
  int dims;  // the shape of the worlds it takes
  boids::Precision precision;
};

using boids::capi::fail;
using boids::capi::guard;

extern "C" boids_status boids_world_write_state_csv(const boids_world* world, const char* path) {
  if (!world)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_write_state_csv: world is NULL");
  if (!path) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_write_state_csv: path is NULL");
  return guard("boids_world_write_state_csv", BOIDS_ERROR_IO,
               [&] { boids::write_state_csv(path, world->world); });
}

extern "C" boids_status boids_world_read_state_csv(boids_world* world, const char* path) {
  if (!world)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_read_state_csv: world is NULL");
  if (!path) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_world_read_state_csv: path is NULL");
  boids::State s;
  const boids_status read = guard("boids_world_read_state_csv", BOIDS_ERROR_IO, [&] {
    s = boids::read_state_csv(path, world->world.dims(), world->world.count());
  });
  if (read != BOIDS_OK) return read;
  // A file that reads cleanly but holds values the world refuses is a bad argument.
  return guard("boids_world_read_state_csv", BOIDS_ERROR_INVALID_ARGUMENT,
               [&] { world->world.set_state(s); });
}

extern "C" boids_status boids_recorder_open(const boids_world* world, const char* path,
                                            uint64_t every, boids_recorder** out_recorder) {
  if (!world) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_open: world is NULL");
  if (!path) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_open: path is NULL");
  if (!out_recorder)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_open: out_recorder is NULL");
  if (every == 0) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_open: every is 0");
  *out_recorder = nullptr;
  return guard("boids_recorder_open", BOIDS_ERROR_IO, [&] {
    *out_recorder = new boids_recorder{boids::Recorder(path, world->world, every),
                                       world->world.dims(), world->world.precision()};
  });
}

extern "C" boids_status boids_recorder_frame(boids_recorder* recorder, const boids_world* world) {
  if (!recorder)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_frame: recorder is NULL");
  if (!world) return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_frame: world is NULL");
  if (recorder->recorder.finished())
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_frame: the recording is finished");
  if (world->world.dims() != recorder->dims || world->world.precision() != recorder->precision)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT,
                "boids_recorder_frame: the world has another dims or precision than the recording");
  return guard("boids_recorder_frame", BOIDS_ERROR_IO,
               [&] { recorder->recorder.frame(world->world); });
}

extern "C" boids_status boids_recorder_finish(boids_recorder* recorder, uint64_t* out_frames) {
  if (!recorder)
    return fail(BOIDS_ERROR_INVALID_ARGUMENT, "boids_recorder_finish: recorder is NULL");
  const boids_status st =
      guard("boids_recorder_finish", BOIDS_ERROR_IO, [&] { recorder->recorder.finish(); });
  if (st == BOIDS_OK && out_frames) *out_frames = recorder->recorder.frames();
  return st;
}

extern "C" void boids_recorder_destroy(boids_recorder* recorder) { delete recorder; }
