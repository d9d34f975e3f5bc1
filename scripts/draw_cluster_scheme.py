#!/usr/bin/env python3
"""Draws docs/images/cluster-scheme.svg: the cluster engine's layout and pruning in 2D.

Usage: /usr/bin/python3 scripts/draw_cluster_scheme.py docs/images/cluster-scheme.svg

Left: boids in cells of edge r, each cell's boids in the Morton order of 4x4 sub-cells (then
id), cut into groups of 4 with their bounding boxes. Right: one i-group (red) and the
candidate groups of its 3x3 cells: for the i-pair of its first two boids (i, i') the
point-to-box test keeps the groups whose box is within r of either boid (filled, blue); the
pair's tiles then run over the kept groups' boids only.
The same arithmetic as parallel/cluster_grid.cpp and core/cluster_kernels*.hpp, in numpy.
"""
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, Rectangle  # noqa: E402

R = 1.0  # the radius: cell edge
CELLS = 5
rng = np.random.default_rng(7)


def morton(ix, iy):
    code = 0
    for b in range(2):
        code |= ((ix >> b) & 1) << (2 * b) | ((iy >> b) & 1) << (2 * b + 1)
    return code


def groups_of(points):
    """Cells, then Morton sub-cell order, then id; groups of 4 with their boxes."""
    cell = np.floor(points / R).astype(int)
    sub = np.floor((points / R - cell) * 4).astype(int).clip(0, 3)
    keys = [(c[1], c[0], morton(s[0], s[1]), i) for i, (c, s) in enumerate(zip(cell, sub))]
    order = [k[3] for k in sorted(keys)]
    out = []
    for cy in range(CELLS):
        for cx in range(CELLS):
            ids = [i for i in order if tuple(cell[i]) == (cx, cy)]
            for g in range(0, len(ids), 4):
                members = ids[g:g + 4]
                pts = points[members]
                out.append({"cell": (cx, cy), "ids": members, "lo": pts.min(0), "hi": pts.max(0)})
    return out


def box_gap(lo_a, hi_a, lo_b, hi_b):
    d = np.maximum(0, np.maximum(lo_b - hi_a, lo_a - hi_b))
    return np.sqrt((d * d).sum())


def point_gap(p, lo, hi):
    d = np.maximum(0, np.maximum(lo - p, p - hi))
    return np.sqrt((d * d).sum())


def main(dst):
    pts = rng.uniform(0, CELLS * R, size=(200, 2))
    groups = groups_of(pts)
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.8))
    for ax in axes:
        for k in range(CELLS + 1):
            ax.axhline(k * R, color="#bbbbbb", lw=0.8)
            ax.axvline(k * R, color="#bbbbbb", lw=0.8)
        ax.set_xlim(0, CELLS * R)
        ax.set_ylim(0, CELLS * R)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
    # Left: the layout.
    ax = axes[0]
    colors = plt.cm.tab20(np.linspace(0, 1, 20))
    for n, g in enumerate(groups):
        col = colors[n % 20]
        lo, hi = g["lo"], g["hi"]
        ax.add_patch(Rectangle(lo, *(hi - lo), fill=False, ec=col, lw=1.2))
        p = pts[g["ids"]]
        ax.plot(p[:, 0], p[:, 1], "-", color=col, lw=0.6, alpha=0.7)
        ax.plot(p[:, 0], p[:, 1], "o", color=col, ms=3.5)
    ax.set_title("cells of edge r; in each cell the Morton order of 4×4 sub-cells,\n"
                 "then groups of 4 boids (lines) with their bounding boxes", fontsize=9)
    # Right: pruning for one i-group in the middle cell.
    ax = axes[1]
    mid = [g for g in groups if g["cell"] == (2, 2)]
    gi = mid[0]
    near = [g for g in groups if abs(g["cell"][0] - 2) <= 1 and abs(g["cell"][1] - 2) <= 1]
    i, i2 = gi["ids"][0], gi["ids"][1]
    kept_groups = [g for g in near
                   if min(point_gap(pts[b], g["lo"], g["hi"]) for b in (i, i2)) < R]
    ax.add_patch(Rectangle((1 * R, 1 * R), 3 * R, 3 * R, fill=True, fc="#f3f3f3", ec="none"))
    for g in near:
        lo, hi = g["lo"], g["hi"]
        kept = any(g is h for h in kept_groups)
        ax.add_patch(Rectangle(lo, *(hi - lo), fill=kept, fc="#9ecae1" if kept else "none",
                               ec="#3182bd" if kept else "#999999", lw=1.6 if kept else 0.8,
                               ls="-" if kept else ":", alpha=0.9))
        p = pts[g["ids"]]
        ax.plot(p[:, 0], p[:, 1], "o", color="#3182bd" if kept else "#999999", ms=3)
    lo, hi = gi["lo"], gi["hi"]
    ax.add_patch(Rectangle(lo, *(hi - lo), fill=False, ec="#d62728", lw=2.2))
    p = pts[gi["ids"]]
    ax.plot(p[:, 0], p[:, 1], "o", color="#d62728", ms=4)
    for b, name, dy in ((i, "i", -14), (i2, "i'", 10)):
        ax.add_patch(Circle(pts[b], R, fill=False, ec="#d62728", ls="--", lw=1.2))
        ax.annotate(name, pts[b], xytext=(8, dy), textcoords="offset points", color="#d62728")
    cand = sum(len(g["ids"]) for g in near)
    kept = sum(len(g["ids"]) for g in kept_groups)
    true = sum(1 for g in near for j in g["ids"] if j != i and np.hypot(*(pts[j] - pts[i])) < R)
    print(f"groups {len(near)} kept {len(kept_groups)} pairs {kept} true {true} candidates {cand}")
    ax.set_title(f"i-group (red) among the {len(near)} groups of its 3×3 cells: the i-pair (i, i') keeps\n"
                 f"the {len(kept_groups)} whose box is within r of i or i' (filled): {kept} pairs"
                 f" computed for boid i, {true} of them within r (of {cand})", fontsize=9)
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main(sys.argv[1])
