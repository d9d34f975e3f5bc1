#!/usr/bin/env python3
"""Topological versus metric neighbours under density changes (Ballerini et al. 2008), for
docs/validation.md.

N = 400 boids of the standard model in open 3D space start at random in a box of edge L;
the density falls 8x with each doubling of L. The metric rule sees neighbours within
r = 9; the topological rule the 7 nearest at any distance (radius 1000). After S steps the
final state is measured with the same link radius 9 for both (clusters, largest_cluster),
plus polarization and mean_nnd.

Usage: scripts/validation_topological.py BOIDS_BINARY OUT_DIR [--repeats R] [--steps S]
"""
import argparse
import concurrent.futures as cf
import csv
import os
import subprocess

SIZES = [25, 50, 100, 200]
COMMON = ["--set", "world.dims=3", "--set", "world.boundary=open", "--set", "boids.count=400",
          "--set", "predators.count=0", "--threads", "1", "--quiet"]
RULES = {"metric": ["--set", "rules.radius=9"],
         "topological": ["--set", "rules.radius=1000", "--set", "rules.neighbours=topological",
                         "--set", "rules.topological_k=7"]}


def one(binary, out_dir, rule, size, seed, steps):
    tag = f"{rule}_{size}_{seed}"
    state = os.path.join(out_dir, f"s_{tag}.csv")
    metrics = os.path.join(out_dir, f"m_{tag}.csv")
    base = [binary, "run", "--set", f"world.size={size}", "--set", f"boids.seed={seed}"] + COMMON
    subprocess.run(base + RULES[rule] + ["--steps", str(steps), "--out", state], check=True)
    # The final state measured with the metric link radius 9 for both rules.
    subprocess.run(base + ["--set", "rules.radius=9", "--init", state, "--steps", "0",
                           "--metrics", metrics], check=True)
    with open(metrics) as f:
        row = list(csv.DictReader(f))[-1]
    os.remove(state)
    os.remove(metrics)
    return {k: float(row[k]) for k in ("polarization", "mean_nnd", "clusters", "largest_cluster")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out_dir")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--steps", type=int, default=1000)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    with cf.ThreadPoolExecutor(2) as pool:
        jobs = {(r, L, s): pool.submit(one, a.binary, a.out_dir, r, L, s, a.steps)
                for r in RULES for L in SIZES for s in range(1, a.repeats + 1)}
    print("| L | density | rule | clusters | largest_cluster | polarization | mean_nnd |")
    print("|---|---|---|---|---|---|---|")
    for L in SIZES:
        for r in RULES:
            res = [jobs[(r, L, s)].result() for s in range(1, a.repeats + 1)]
            mean = {k: sum(x[k] for x in res) / len(res) for k in res[0]}
            print(f"| {L} | {400 / L ** 3:.2g} | {r} | {mean['clusters']:.1f} | "
                  f"{mean['largest_cluster']:.3f} | {mean['polarization']:.3f} | "
                  f"{mean['mean_nnd']:.2f} |")


if __name__ == "__main__":
    main()
