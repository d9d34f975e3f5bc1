"""Stepping overhead of the Python package against the engine's own loop.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--count 100000] [--reps 7]

Times, in one process and interleaved, `w.step(1)` called from a Python loop S times
(one pybind11 call, argument conversion and GIL release per step) against `w.step(S)` (the
C++ loop alone), each on its own world built from the same scenario, and prints the median
per-step times and the overhead in per cent, in wall time and in process CPU time (the CPU
figure is the one to trust on a loaded machine: a step descheduled by other work costs wall
time, not CPU time). It asserts nothing: the figure goes in
docs/python.md and the closing notes (machines here are shared and noisy).
"""
import argparse
import statistics
import time

import boids


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--steps", type=int, default=20, help="steps per timed repetition")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()

    looped = boids.World(count=a.count, threads=a.threads)
    native = boids.World(count=a.count, threads=a.threads)
    looped.step(2)
    native.step(2)
    py_t, cpp_t, py_c, cpp_c = [], [], [], []
    for _ in range(a.reps):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(a.steps):
            looped.step(1)
        py_t.append((time.perf_counter() - t0) / a.steps)
        py_c.append((time.process_time() - c0) / a.steps)
        t0, c0 = time.perf_counter(), time.process_time()
        native.step(a.steps)
        cpp_t.append((time.perf_counter() - t0) / a.steps)
        cpp_c.append((time.process_time() - c0) / a.steps)
    assert looped.state_hash == native.state_hash  # the same steps, the same bits
    py_ms, cpp_ms = statistics.median(py_t) * 1e3, statistics.median(cpp_t) * 1e3
    print(f"count={a.count} threads={a.threads} kernel={native.kernel} reps={a.reps} "
          f"steps/rep={a.steps}")
    print(f"python loop step(1): {py_ms:.3f} ms/step   engine loop step({a.steps}): "
          f"{cpp_ms:.3f} ms/step   overhead: {100 * (py_ms - cpp_ms) / cpp_ms:+.2f} % (wall)")
    py_cms, cpp_cms = statistics.median(py_c) * 1e3, statistics.median(cpp_c) * 1e3
    print(f"python loop step(1): {py_cms:.3f} ms CPU/step   engine loop step({a.steps}): "
          f"{cpp_cms:.3f} ms CPU/step   overhead: {100 * (py_cms - cpp_cms) / cpp_cms:+.2f} % "
          f"(CPU)")


if __name__ == "__main__":
    main()
