#!/usr/bin/env bash
# Builds and runs the whole test suite with ctest: a Release build with warnings as errors,
# then the same tests under AddressSanitizer+UndefinedBehaviorSanitizer, then the parallel
# engine's tests under ThreadSanitizer, then a short smoke run of each libFuzzer target
# (docs/testing.md). Build trees go to build/test, build/asan, build/tsan, build/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${BOIDS_JOBS:-2}
# Each stage's header says how long the run has taken so far (CI's budget is 25 minutes).
stage() { echo "== $* (at ${SECONDS} s)"; }
common=(-DBOIDS_WERROR=ON)
# Ninja (scripts/setup.sh installs ninja-build) compiles a target's files while the targets it
# links against are still compiling; make waits for the whole library before it starts the
# tests, the programs and the Python module, and on two cores its last long kernel unit
# leaves one core idle. A tree configured earlier with another generator is configured anew.
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi
configure() {
  local dir=$1
  shift
  if ((${#gen[@]})) && [[ -f $dir/CMakeCache.txt ]] &&
    ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -B "$dir" "${gen[@]}" "$@"
}
# Sanitizer builds: light optimisation and line tables only, and SIMD kernels for AVX2 alone
# beside the scalar ones (the Release stage tests every instruction set for equal bits), to
# keep CI's compile time down.
san=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
  -DBOIDS_SIMD_ISAS=avx2 -DBOIDS_BUILD_BENCH=OFF -DBOIDS_BUILD_VIEWER=OFF)

# While one stage's tests run, the next stage's tree compiles in the background at the lowest
# CPU priority (nice 19): the tests leave part of the two cores idle (Python and MPI start-up,
# files, single-threaded cases, the tail of ctest -j2), and the compiler takes only that. The
# next stage then finishes its build in the foreground (a no-op when the build ahead got
# through; its errors, if any, show there as usual). docs/testing.md.
sanitizers=1
[[ ${BOIDS_SKIP_SANITIZERS:-0} == 1 ]] && sanitizers=0
fuzz=0
[[ ${BOIDS_SKIP_FUZZ:-0} != 1 ]] && command -v clang++-14 >/dev/null && fuzz=1
fuzz_targets=(scenario state_csv snapshot c_api)
ahead_pid=""
# build_ahead LOG "DIR TARGET..." ...: builds each tree's targets in turn, in the background.
build_ahead() {
  local log=$1
  shift
  echo "(building in the background while the tests run:$(printf ' %s;' "$@") log: $log)"
  (
    for step in "$@"; do
      read -r -a a <<<"$step"
      nice -n 19 cmake --build "${a[0]}" -j"$jobs" --target "${a[@]:1}" || exit 1
    done
  ) >"$log" 2>&1 &
  ahead_pid=$!
}
finish_ahead() {
  if [[ -n $ahead_pid ]]; then
    wait "$ahead_pid" || echo "(the background build stopped; the build below shows why)"
    ahead_pid=""
  fi
}
kill_tree() {  # the process and its descendants (pgrep from procps, when present)
  local child
  if command -v pgrep >/dev/null; then
    for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  fi
  kill "$1" 2>/dev/null || true
}
stop_ahead() {
  if [[ -n $ahead_pid ]]; then kill_tree "$ahead_pid"; fi
}
trap stop_ahead EXIT
configure_asan() {
  configure build/asan -S . "${common[@]}" "${san[@]}" "-DBOIDS_SANITIZE=address;undefined"
}
# Scalar kernels only (-DBOIDS_SIMD_ISAS= after the AVX2 of "${san[@]}"): the threads split
# the same rows on every instruction set, and the AVX2 units were a third of this build.
configure_tsan() {
  configure build/tsan -S . "${common[@]}" "${san[@]}" -DBOIDS_SIMD_ISAS= -DBOIDS_SANITIZE=thread
}
# Only the library and the four targets, without the SIMD kernel units the readers never
# reach, and at -O0 (3-4x faster to compile than -O1 with coverage and the sanitizers; the
# harness steps at most 64 boids), to keep this stage short on two cores.
configure_fuzz() {
  configure build/fuzz -S . -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1" \
    -DBOIDS_FUZZ=ON -DBOIDS_DISABLE_SIMD=ON -DBOIDS_BUILD_TESTS=OFF -DBOIDS_BUILD_BENCH=OFF \
    -DBOIDS_BUILD_VIEWER=OFF -DBOIDS_BUILD_CLI=OFF
}

stage "Release build and tests"
configure build/test -S . -DCMAKE_BUILD_TYPE=Release "${common[@]}" -DBOIDS_PYTHON=ON -DBOIDS_MPI=ON
cmake --build build/test -j"$jobs"
if ((sanitizers)); then
  configure_asan
  build_ahead build/asan/ahead.log "build/asan boids_tests boids_cli"
elif ((fuzz)); then
  configure_fuzz
  build_ahead build/fuzz/ahead.log "build/fuzz ${fuzz_targets[*]/#/fuzz_}"
fi
ctest --test-dir build/test --output-on-failure -j"$jobs"

stage "Python package: pip install into a fresh venv (offline, Debian's setuptools and pybind11)"
rm -rf build/venv
/usr/bin/python3 -m venv --system-site-packages build/venv
# The package is built from the Release tree above (setup.py: BOIDS_CMAKE_BUILD_DIR), so this
# stage tests pip's install, not a second compile of the library.
BOIDS_JOBS=$jobs BOIDS_CMAKE_BUILD_DIR="$PWD/build/test" build/venv/bin/pip install --no-build-isolation --no-index --quiet .
(cd build && venv/bin/python -c "import boids; w = boids.World(count=1000, threads=2); w.step(3); print('installed:', w)")

if ((sanitizers)); then
  stage "AddressSanitizer + UndefinedBehaviorSanitizer"
  finish_ahead
  cmake --build build/asan -j"$jobs" --target boids_tests boids_cli
  # The TSan tree, then the fuzz tree, during the ASan tests; none during the TSan tests, whose
  # thread pools spin and yield: a compiler beside them, even at nice 19, made them 1.3-1.7x
  # slower (CI at 9ab28f1).
  configure_tsan
  ahead=("build/tsan boids_tests")
  if ((fuzz)); then
    configure_fuzz
    ahead+=("build/fuzz ${fuzz_targets[*]/#/fuzz_}")
  fi
  build_ahead build/tsan/ahead.log "${ahead[@]}"
  ctest --test-dir build/asan --output-on-failure -j"$jobs"

  stage "ThreadSanitizer (parallel engine)"
  finish_ahead
  cmake --build build/tsan -j"$jobs" --target boids_tests
  ctest --test-dir build/tsan --output-on-failure -j"$jobs"
fi

if [[ ${BOIDS_SKIP_FUZZ:-0} != 1 ]]; then
  stage "libFuzzer smoke runs (clang-14, ASan+UBSan)"
  if ((!fuzz)); then
    echo "fuzz: skipped, clang++-14 is not installed (scripts/setup.sh installs it)"
  else
    finish_ahead
    configure_fuzz
    targets=("${fuzz_targets[@]}")
    cmake --build build/fuzz -j"$jobs" --target "${targets[@]/#/fuzz_}"
    ctest --test-dir build/fuzz --output-on-failure  # every committed corpus file once
    for t in "${targets[@]}"; do
      # New inputs go to build/fuzz/corpus; the committed corpus is read-only seed input.
      mkdir -p "build/fuzz/corpus/$t"
      "build/fuzz/tests/fuzz/fuzz_$t" -max_total_time="${BOIDS_FUZZ_SECONDS:-8}" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build/fuzz/$t-" \
        "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t"
    done
  fi
fi
stage "all stages passed"
