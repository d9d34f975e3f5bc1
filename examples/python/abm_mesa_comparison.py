"""The ABM-comparison flocking model, Mesa-style in plain Python/numpy and in boids.

    PYTHONPATH=build/python python3 examples/python/abm_mesa_comparison.py [--birds 400]

Mesa's boid_flockers (and the Agents.jl/MASON/NetLogo comparison it belongs to) steps each
bird in place, one at a time, in a random order. `mesa_style_step` below does exactly that
with numpy for the neighbour sums (the per-bird Python loop is what a Mesa model costs);
boids runs the same equations synchronously with world.profile = "abm" (docs/behaviours.md
lists how the two schedulers differ). The script prints the time per step of both and the
polarization each reaches, so the statistics and the speed can be compared side by side.
"""
import argparse
import time

import numpy as np

import boids


def polarization(v):
    u = v / np.linalg.norm(v, axis=1)[:, None]
    return float(np.linalg.norm(u.sum(axis=0)) / len(v))


def mesa_style_step(pos, vel, rng, size, vision, separation, cohere, separate, match, speed):
    """One in-place, random-order step of the comparison model (as Mesa's RandomActivation)."""
    for i in rng.permutation(len(pos)):
        d = pos - pos[i]
        d -= size * np.round(d / size)  # toroidal minimum image
        dist = np.hypot(d[:, 0], d[:, 1])
        nb = (dist < vision) & (np.arange(len(pos)) != i)
        n = max(int(nb.sum()), 1)
        coh = d[nb].sum(axis=0) / n * cohere
        close = nb & (dist < separation)
        sep = -d[close].sum(axis=0) / n * separate
        mat = vel[nb].sum(axis=0) / n * match
        v = (vel[i] + coh + sep + mat) / 2
        vel[i] = v / np.linalg.norm(v)
        pos[i] = (pos[i] + vel[i] * speed) % size


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--birds", type=int, default=400)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    size = 150.0 * np.sqrt(a.birds / 400.0)  # the large model's density
    params = dict(vision=15.0, separation=1.0, cohere=0.03, separate=0.015, match=0.05, speed=1.0)

    w = boids.World("scenarios/abm_comparison.toml", count=a.birds, size=size, rules_radius=15.0,
                    seed=a.seed, precision="double", threads=1)
    pos, vel = w.positions.astype(np.float64), w.velocities.astype(np.float64)
    vel /= np.linalg.norm(vel, axis=1)[:, None]
    rng = np.random.default_rng(a.seed)

    t0 = time.perf_counter()
    for _ in range(a.steps):
        mesa_style_step(pos, vel, rng, size, **params)
    t_mesa = (time.perf_counter() - t0) / a.steps

    t0 = time.perf_counter()
    w.step(a.steps)
    t_boids = (time.perf_counter() - t0) / a.steps

    print(f"{a.birds} birds, L = {size:.1f}, {a.steps} steps from the same start")
    print(f"  mesa-style (python, in place, random order): {t_mesa * 1e3:9.3f} ms/step, "
          f"polarization {polarization(vel):.3f}")
    print(f"  boids profile abm (synchronous, 1 thread):   {t_boids * 1e3:9.3f} ms/step, "
          f"polarization {polarization(w.velocities):.3f}")
    print(f"  ratio: {t_mesa / t_boids:.0f}x")


if __name__ == "__main__":
    main()
