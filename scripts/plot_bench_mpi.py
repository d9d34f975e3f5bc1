#!/usr/bin/env python3
"""Draws docs/images/distributed-scaling.svg from scripts/bench_mpi.sh's output.

Usage: /usr/bin/python3 scripts/plot_bench_mpi.py docs/data/bench_mpi.txt docs/images/distributed-scaling.svg
Left: wall ms per step (median over rounds) of each variant at 1M and 4M boids. Right: the
speed-up over the plain single-threaded process, with the ideal 2x for two cores.
"""
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VARIANTS = ["single-t1", "single-t2", "mpi-np1", "mpi-np2"]
LABELS = ["1 process,\n1 thread", "1 process,\n2 threads", "mpirun -np 1", "mpirun -np 2"]


def main(src, dst):
    runs = {}
    for line in open(src):
        f = line.split()
        if len(f) < 4:
            continue
        runs.setdefault((int(f[0]), f[1]), []).append(float(f[3]))
    counts = sorted({c for c, _ in runs})
    med = {k: statistics.median(v) for k, v in runs.items()}
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    width = 0.8 / len(counts)
    for i, c in enumerate(counts):
        xs = [j + (i - (len(counts) - 1) / 2) * width for j in range(len(VARIANTS))]
        ys = [med[(c, v)] for v in VARIANTS]
        a.bar(xs, ys, width, label=f"{c / 1e6:g}M boids")
        b.bar(xs, [med[(c, "single-t1")] / y for y in ys], width, label=f"{c / 1e6:g}M boids")
    for ax in (a, b):
        ax.set_xticks(range(len(VARIANTS)))
        ax.set_xticklabels(LABELS, fontsize=8)
        ax.legend(fontsize=8)
    a.set_yscale("log")
    a.set_ylabel("wall ms per step (median)")
    b.axhline(2.0, color="grey", linestyle="--", linewidth=1)
    b.set_ylabel("speed-up over 1 process, 1 thread")
    fig.suptitle("3D wrap, default density, float; 2-core AMD EPYC (AVX2), idle")
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
