#include "fuzz_targets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "boids/boids.h"
#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/scenario.hpp"
#include "core/snapshot.hpp"
#include "core/state_csv.hpp"

namespace boids::fuzz {

namespace {

// Worlds the harness steps stay small so that one input takes microseconds, not seconds.
constexpr std::uint32_t kMaxFuzzBoids = 64;

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The oracle beyond "no crash": a valid world never holds a non-finite value. Off unless
// BOIDS_FUZZ_CHECK_FINITE is set, because the model still has one known way to make NaN from
// valid input (docs/testing.md: two boids closer than ~1e-19 u in a float world), which
// would make the CI smoke runs fail at random until it is fixed.
bool check_finite() {
  static const bool on = std::getenv("BOIDS_FUZZ_CHECK_FINITE") != nullptr;
  return on;
}

void require_finite(const World& w) {
  if (!check_finite()) return;
  const State s = w.state();
  for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz}) {
    for (double x : *v) {
      if (!std::isfinite(x)) {
        std::fprintf(stderr, "fuzz: a valid world became non-finite\n");
        std::abort();
      }
    }
  }
}

void step_small(WorldDef def) {
  if (def.count > kMaxFuzzBoids) return;
  def.threads = 1;
  World w = World::create(def);
  w.step(2);
  require_finite(w);
}

// Makes the header of snapshot bytes match the payload (size and checksum), so mutations
// reach the payload decoder instead of stopping at the checksum.
std::string fix_snapshot_header(std::string_view bytes) {
  std::string b(bytes);
  if (b.size() < kSnapshotHeaderBytes) return b;
  const std::uint64_t payload = b.size() - kSnapshotHeaderBytes;
  const std::uint64_t sum = fnv1a(b.data() + kSnapshotHeaderBytes, payload);
  std::memcpy(b.data() + 16, &payload, 8);
  std::memcpy(b.data() + 24, &sum, 8);
  return b;
}

std::string temp_path(const char* what) {
  return "/tmp/boids_fuzz_" + std::to_string(::getpid()) + "_" + what;
}

}  // namespace

void scenario(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  try {
    step_small(parse_scenario(text, "fuzz.toml"));
  } catch (const Error&) {
  }
  const std::string first(text.substr(0, text.find('\n')));
  try {
    step_small(parse_scenario("[boids]\ncount = 20\n[world]\ndims = 2\n", "base", {first}));
  } catch (const Error&) {
  }
}

void state_csv(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return;
  const int dims = 2 + (data[0] & 1);
  const std::size_t count = data[1] & 63;
  try {
    const State s = parse_state_csv(as_text(data + 2, size - 2), "fuzz.csv", dims, count);
    WorldDef def = default_world_def();
    def.dims = dims;
    def.count = std::uint32_t(count);
    def.size = 1000;
    def.threads = 1;
    def.boundary = (data[0] & 2) ? Boundary::reflect : Boundary::wrap;
    World w = World::create(def);
    State with_ids = s;
    with_ids.id.assign(w.ids().begin(), w.ids().end());
    w.set_state(with_ids);
    w.step(1);
    require_finite(w);
  } catch (const Error&) {
  }
}

void snapshot(const std::uint8_t* data, std::size_t size) {
  try {
    SnapshotData d = decode_snapshot(fix_snapshot_header(as_text(data, size)), "fuzz.snap");
    if (d.def.count > kMaxFuzzBoids || d.state.id.size() > kMaxFuzzBoids) return;
    d.def.threads = 1;
    World w = World::create(d.def);
    engine_of(w).restore(d.state, d.step_count, d.next_id);
    w.step(1);
    require_finite(w);
    (void)encode_snapshot(w);
  } catch (const Error&) {
  }
}

void c_api(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return;
  const std::uint8_t op = data[0] % 5;
  const std::uint8_t* rest = data + 1;
  const std::size_t n = size - 1;
  const std::string text(as_text(rest, n));  // NUL-terminated copy
  boids_world* w = nullptr;
  // A small world most calls start from.
  boids_world_def base = boids_default_world_def();
  base.dims = 2;
  base.count = 16;
  base.size = 40;
  base.threads = 1;
  switch (op) {
    case 0:  // create from scenario text
      if (boids_world_create_from_scenario(text.c_str(), &w) == BOIDS_OK) {
        size_t count = 0;
        boids_world_count(w, &count);
        if (count <= kMaxFuzzBoids) boids_world_step(w, 1);
      }
      break;
    case 1: {  // create from a def whose fields come from the bytes, then set_def likewise
      boids_world_def d = base;
      const std::size_t fields = offsetof(boids_world_def, host_parallel_for);
      std::memcpy(&d, rest, std::min(n, fields));
      d.threads = 1;
      if (d.count > kMaxFuzzBoids) break;
      if (boids_world_create(&d, &w) != BOIDS_OK) break;
      boids_world_step(w, 1);
      if (n > fields) {
        boids_world_def e;
        boids_world_get_def(w, &e);
        std::memcpy(&e, rest + fields, std::min(n - fields, fields));
        if (boids_world_set_def(w, &e) == BOIDS_OK) boids_world_step(w, 1);
      }
      break;
    }
    case 2:  // set_scenario on a small world
      if (boids_world_create(&base, &w) != BOIDS_OK) std::abort();
      if (boids_world_set_scenario(w, text.c_str()) == BOIDS_OK) boids_world_step(w, 1);
      break;
    case 3: {  // set_state, add_with_state and remove with values from the bytes
      if (boids_world_create(&base, &w) != BOIDS_OK) std::abort();
      std::vector<double> v(2 * 16 * 2, 1.0);
      std::memcpy(v.data(), rest, std::min(n, v.size() * sizeof(double)));
      boids_world_set_state(w, v.data(), v.data() + 32, nullptr, 16);
      const std::size_t add = n > 0 ? rest[0] % 8 : 0;
      boids_world_add_with_state(w, v.data(), v.data() + 16, nullptr, add, nullptr);
      std::vector<std::uint32_t> ids(n / 4 % 8);
      if (!ids.empty()) std::memcpy(ids.data(), rest, ids.size() * 4);
      boids_world_remove(w, ids.data(), ids.size());
      boids_world_add(w, n > 1 ? rest[1] % 32 : 0, n > 2 ? rest[2] % 4 : 0, nullptr);
      boids_world_step(w, 1);
      break;
    }
    case 4: {  // load a snapshot file
      const std::string bytes = fix_snapshot_header(as_text(rest, n));
      try {
        const SnapshotData d = decode_snapshot(bytes, "fuzz.snap");
        if (d.def.count > kMaxFuzzBoids || d.state.id.size() > kMaxFuzzBoids) break;
      } catch (const Error&) {
      }
      const std::string path = temp_path("load.snap");
      if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
      }
      if (boids_world_load(path.c_str(), nullptr, nullptr, &w) == BOIDS_OK) {
        boids_world_step(w, 1);
        boids_world_save(w, path.c_str());
      }
      std::remove(path.c_str());
      break;
    }
    default:
      break;
  }
  if (w && check_finite()) {  // a world the API accepted never holds a non-finite value
    size_t count = 0;
    int32_t dims = 0;
    boids_world_count(w, &count);
    boids_world_dims(w, &dims);
    std::vector<double> p(count * std::size_t(dims)), v(p.size());
    if (boids_world_get_positions(w, p.data(), p.size()) != BOIDS_OK ||
        boids_world_get_velocities(w, v.data(), v.size()) != BOIDS_OK)
      std::abort();
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!std::isfinite(p[i]) || !std::isfinite(v[i])) {
        std::fprintf(stderr, "fuzz: a world the C API accepted became non-finite\n");
        std::abort();
      }
    }
  }
  boids_world_destroy(w);
}

}  // namespace boids::fuzz
