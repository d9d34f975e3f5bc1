// Helpers shared by the tests: small worlds from explicit states, and the checks that a test
// runs the engine and instruction set it names.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/kernels.hpp"

namespace boids::test {

/// A scratch file name of this test process: "/tmp/boids_<tag>_<pid>_<name>" (ctest runs test
/// processes in parallel, so the pid keeps their files apart).
inline std::string tmp_path(const std::string& tag, const std::string& name) {
  return "/tmp/boids_" + tag + "_" + std::to_string(::getpid()) + "_" + name;
}

/// A whole file's bytes; "" when it cannot be read.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A def for a tiny hand-checked world: given dims, size, boundary; everything else default.
inline WorldDef tiny_def(int dims, double size, Boundary b, std::uint32_t count) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.size = size;
  d.boundary = b;
  d.count = count;
  d.threads = 1;
  return d;
}

/// A state with the given positions and velocities (row-major, dims per boid), ids 0..n-1.
inline State make_state(int dims, const std::vector<double>& pos, const std::vector<double>& vel) {
  State s;
  const std::size_t n = pos.size() / std::size_t(dims);
  std::vector<double>* p[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* v[3] = {&s.vx, &s.vy, &s.vz};
  for (std::size_t i = 0; i < n; ++i) {
    s.id.push_back(std::uint32_t(i));
    s.kind.push_back(0);
    for (int c = 0; c < dims; ++c) {
      p[c]->push_back(pos[i * std::size_t(dims) + std::size_t(c)]);
      v[c]->push_back(vel[i * std::size_t(dims) + std::size_t(c)]);
    }
  }
  return s;
}

// ---- Engines and instruction sets: a test that names one must run it, never a fallback ----

/// Every engine the tests run. Creating a world of each must succeed: an engine that cannot be
/// built fails the tests that name it instead of being dropped from the list. (A new engine,
/// e.g. the cluster-pair one, is added here and in expected_kernel().)
inline const std::vector<EngineKind>& all_engines() {
  static const std::vector<EngineKind> kinds{EngineKind::naive, EngineKind::grid};
  return kinds;
}

inline const char* engine_name(EngineKind e) {
  return e == EngineKind::naive     ? "naive"
         : e == EngineKind::grid    ? "grid"
         : e == EngineKind::cluster ? "cluster"
                                    : "unknown";
}

/// Whether this CPU runs `isa`, asked of the CPU directly (not of the library's dispatch).
inline bool cpu_runs(Isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::scalar:
      return true;
    case Isa::sse42:
      return __builtin_cpu_supports("sse4.2");
    case Isa::avx2:
      return __builtin_cpu_supports("avx2");
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f");
  }
  return false;
#else
  return isa == Isa::scalar;
#endif
}

/// Whether this build compiled kernels for `isa` (tests/CMakeLists.txt passes what the build
/// configured: BOIDS_TEST_SCALAR_ONLY, BOIDS_TEST_NO_SSE42/AVX2/AVX512 from BOIDS_SIMD_ISAS).
inline bool build_has(Isa isa) {
#if defined(BOIDS_TEST_SCALAR_ONLY) || !(defined(__x86_64__) || defined(_M_X64))
  return isa == Isa::scalar;
#else
#if defined(BOIDS_TEST_NO_SSE42)
  if (isa == Isa::sse42) return false;
#endif
#if defined(BOIDS_TEST_NO_AVX2)
  if (isa == Isa::avx2) return false;
#endif
#if defined(BOIDS_TEST_NO_AVX512)
  if (isa == Isa::avx512) return false;
#endif
  (void)isa;
  return true;
#endif
}

/// Whether this is the ThreadSanitizer build, which runs only the [parallel] tests and looks
/// for data races, not for results that differ by instruction set; and whether it is any
/// sanitizer build (tests/CMakeLists.txt defines both).
#if defined(BOIDS_TEST_TSAN)
inline constexpr bool under_tsan = true;
#else
inline constexpr bool under_tsan = false;
#endif
#if defined(BOIDS_TEST_SANITIZED)
inline constexpr bool under_sanitizer = true;
#else
inline constexpr bool under_sanitizer = false;
#endif

/// `steps` in the Release build, `fewer` in the sanitizer builds: a race or a bad access shows
/// in any step, the sanitizers run the engine 10-20x slower, and the Release stage keeps the
/// full trajectory (and with it the comparisons that need many steps).
inline int steps_or_sanitized(int steps, int fewer) { return under_sanitizer ? fewer : steps; }

/// The instruction sets a test can really exercise here, scalar first. Each one left out is
/// reported by name as a Catch warning ("skipped: avx512 not supported by this CPU"), so a
/// run on a smaller CPU says what it did not cover. Under TSan only scalar and the best one
/// are kept (the threads do the same work on every instruction set; the Release and ASan
/// stages cover each one).
inline std::vector<Isa> testable_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::scalar, Isa::sse42, Isa::avx2, Isa::avx512}) {
    if (!build_has(isa))
      WARN("skipped: " << isa_name(isa) << " has no kernels in this build");
    else if (!cpu_runs(isa))
      WARN("skipped: " << isa_name(isa) << " not supported by this CPU");
    else
      out.push_back(isa);
  }
  if (under_tsan && out.size() > 2) {
    for (std::size_t i = 1; i + 1 < out.size(); ++i)
      WARN("skipped under TSan: " << isa_name(out[i]) << " (covered by the other stages)");
    out.erase(out.begin() + 1, out.end() - 1);
  }
  return out;
}

/// The instruction set a grid world created now must use: the best testable one, capped by
/// BOIDS_MAX_ISA when that is set (parsed here, independently of the library).
inline Isa expected_isa(bool simd = true) {
  if (!simd) return Isa::scalar;
  Isa best = Isa::scalar;
  for (Isa isa : {Isa::sse42, Isa::avx2, Isa::avx512})
    if (build_has(isa) && cpu_runs(isa)) best = isa;
  if (const char* cap = std::getenv("BOIDS_MAX_ISA")) {
    for (Isa isa : {Isa::scalar, Isa::sse42, Isa::avx2, Isa::avx512})
      if (std::strcmp(cap, isa_name(isa)) == 0 && isa < best) best = isa;
  }
  return best;
}

/// Sets BOIDS_MAX_ISA for a scope and restores the previous value (or its absence).
class MaxIsaScope {
 public:
  explicit MaxIsaScope(Isa isa) {
    if (const char* old = std::getenv("BOIDS_MAX_ISA")) old_ = old, had_ = true;
    setenv("BOIDS_MAX_ISA", isa_name(isa), 1);
  }
  ~MaxIsaScope() {
    if (had_)
      setenv("BOIDS_MAX_ISA", old_.c_str(), 1);
    else
      unsetenv("BOIDS_MAX_ISA");
  }
  MaxIsaScope(const MaxIsaScope&) = delete;
  MaxIsaScope& operator=(const MaxIsaScope&) = delete;

 private:
  std::string old_;
  bool had_ = false;
};

/// Whether kind 0's pair rule of this world runs the cluster-pair SIMD kernels (the standard
/// rules; the abm profile's linear separation runs only on the row kernels).
inline bool cluster_pair_rule(const World& w) {
  if (const auto* f = dynamic_cast<const EngineT<float>*>(&engine_of(w)))
    return simd_pair_rule(f->params().kind[0]);
  if (const auto* d = dynamic_cast<const EngineT<double>*>(&engine_of(w)))
    return simd_pair_rule(d->params().kind[0]);
  FAIL("the world's engine is neither EngineT<float> nor EngineT<double>");
  return false;
}

/// Whether kind 0's pair rule of this world runs the grid engine's SIMD row kernels (else it
/// runs its scalar "generic" kernel: today only the nearest-neighbour tracking of
/// closest_separation).
inline bool standard_pair_rule(const World& w) {
  if (const auto* f = dynamic_cast<const EngineT<float>*>(&engine_of(w)))
    return row_simd_pair_rule(f->params().kind[0]);
  if (const auto* d = dynamic_cast<const EngineT<double>*>(&engine_of(w)))
    return row_simd_pair_rule(d->params().kind[0]);
  FAIL("the world's engine is neither EngineT<float> nor EngineT<double>");
  return false;
}

/// Whether kind 0 runs the neighbour-list path (topological neighbours, the couzin profile).
inline bool list_rule(const World& w) {
  if (const auto* f = dynamic_cast<const EngineT<float>*>(&engine_of(w)))
    return f->params().list.active;
  if (const auto* d = dynamic_cast<const EngineT<double>*>(&engine_of(w)))
    return d->params().list.active;
  return false;
}

/// The kernel name a world of engine `e` must report.
inline std::string expected_kernel(const World& w, EngineKind e) {
  // world.update = "sequential" runs on its own serial engine (parallel/sequential_engine.cpp).
  if (e != EngineKind::naive && w.def().update == UpdateOrder::sequential) return "sequential";
  switch (e) {
    case EngineKind::naive:
      return "naive";
    case EngineKind::grid:
      if (list_rule(w)) return "list";
      return standard_pair_rule(w) ? isa_name(expected_isa(w.def().simd)) : "generic";
    case EngineKind::cluster:
      if (list_rule(w)) return "list";
      return cluster_pair_rule(w) ? std::string("cluster-") + isa_name(expected_isa(w.def().simd))
                                  : "generic";
    default:
      return "unknown engine";
  }
}

/// Requires that `w` really runs engine `e` with the kernel it should: no silent fallback to
/// the naive stepper or to the scalar kernels.
inline void require_engine(const World& w, EngineKind e) {
  INFO("engine " << engine_name(e) << ", kernel " << engine_of(w).kernel_name());
  REQUIRE(w.def().engine == e);
  REQUIRE(engine_of(w).kernel_name() == expected_kernel(w, e));
}

/// World::create() followed by require_engine().
inline World create_checked(const WorldDef& def) {
  World w = World::create(def);
  require_engine(w, def.engine);
  return w;
}

/// Runs `steps` steps of `def` from `init` (on the engine it names, checked) and returns the
/// new state.
inline State step_once(const WorldDef& def, const State& init, int steps = 1) {
  World w = create_checked(def);
  w.set_state(init);
  w.step(steps);
  return w.state();
}

}  // namespace boids::test
