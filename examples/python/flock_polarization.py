"""Runs a flock from Python, plots its polarization over time and saves one frame.

    PYTHONPATH=build/python python3 examples/python/flock_polarization.py [--steps 600]

Writes polarization.png (polarization against time) and frame.png (the flock at the end,
seen from above, coloured by heading). Needs numpy and matplotlib (Debian packages).
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import boids  # noqa: E402


def polarization(v):
    """|sum of unit headings| / n over the moving boids (docs/metrics.md)."""
    speed = np.linalg.norm(v, axis=1)
    moving = speed > 0
    if not moving.any():
        return 0.0
    u = v[moving] / speed[moving, None]
    return float(np.linalg.norm(u.sum(axis=0)) / moving.sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--prefix", default="")
    a = ap.parse_args()

    w = boids.World(count=a.count, dims=2, size=150.0, rules_alignment=1.5, threads=0)
    t, pol = [], []
    for _ in range(0, a.steps + 1, a.every):
        t.append(w.time)
        pol.append(polarization(w.velocities))  # a view: no copy of the state
        w.step(a.every)
    print(f"{w!r}: polarization {pol[0]:.3f} -> {pol[-1]:.3f}")

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(t, pol)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("polarization")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(a.prefix + "polarization.png", dpi=120)

    p, v = w.positions, w.velocities
    heading = np.arctan2(v[:, 1], v[:, 0])
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.quiver(p[:, 0], p[:, 1], v[:, 0], v[:, 1], heading, cmap="hsv", scale=300, width=0.002)
    ax.set_aspect("equal")
    ax.set_xlim(0, 150)
    ax.set_ylim(0, 150)
    ax.set_title(f"{w.count} boids at t = {w.time:g} s")
    fig.tight_layout()
    fig.savefig(a.prefix + "frame.png", dpi=120)


if __name__ == "__main__":
    main()
