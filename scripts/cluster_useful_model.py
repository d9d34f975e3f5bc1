#!/usr/bin/env python3
"""Models the cluster engine's pruning: the fraction of computed pairs that are neighbours.

Usage: /usr/bin/python3 scripts/cluster_useful_model.py [cells per axis, default 10]

Uniform boids at the default 3D density (~31 neighbours within r = 9), wrapped, cells of
edge r, every cell's boids in a sub-cell order, cut into groups of 4 with their boxes (as
parallel/cell_list.cpp and core/cluster_row_copy.hpp). For every prune rule below it prints
the useful fraction (true neighbours / computed pairs, self and padding excluded, as
count_pairs() counts) and the 16-lane tile lanes per boid (the kernel's work, padding
included), so a rule's gain can be weighed before it is built (docs/engine.md, "Pruning
options, modelled"):

  pair     the engine's rule: a pair of an i-group's boids keeps a j-group whose box is
           within r of either boid; tiles of 2 boids x 2 entries x 4 slots
  halfbox  as pair, but against the two half boxes of the j-group (slots 0-1 and 2-3)
  p3       one list per boid, a tile holds 2 boids x 2 entries of each boid's own list
  boid     one list per boid, a tile holds 1 boid x 4 entries of its list
  group    one list for the whole i-group (nbnxm's 4x4 rule)

and the sub-cell orders m2 / m4 / m8 (Morton over 2, 4, 8 sub-cells per axis; m4 is the
engine's) and none (id order). Needs numpy and scipy.
"""
import sys

import numpy as np
from scipy.spatial import cKDTree

R = 9.0
DENSITY = 31 / (4 / 3 * np.pi * R**3)


def morton_key(f, levels):
    """The Morton key of the sub-cell of fractional cell coordinates f (coarse bits high)."""
    s = np.minimum((f * (1 << levels)).astype(int), (1 << levels) - 1)
    k = np.zeros(len(f), dtype=np.int64)
    for lev in range(levels - 1, -1, -1):
        for c in (2, 1, 0):
            k = (k << 1) | ((s[:, c] >> lev) & 1)
    return k


def groups_of(p, nc, key):
    """Per cell, the groups of 4 consecutive boids in (cell, key, id) order."""
    ci = np.minimum((p / R).astype(int), nc - 1)
    cell = ci[:, 0] + nc * (ci[:, 1] + nc * ci[:, 2])
    order = np.lexsort((np.arange(len(p)), key, cell))
    starts = np.searchsorted(cell[order], np.arange(nc**3 + 1))
    return [[order[j:min(e, j + 4)] for j in range(b, e, 4)]
            for b, e in zip(starts[:-1], starts[1:])]


def box_gap2(q, lo, hi):
    a = np.maximum(np.maximum(lo - q, q - hi), 0)
    return (a * a).sum(-1)


def model(p, nc, gl, rule):
    size = nc * R
    computed = lanes = 0
    for cz in range(nc):
        for cy in range(nc):
            for cx in range(nc):
                own = gl[cx + nc * (cy + nc * cz)]
                if not own:
                    continue
                cand = []
                for dz in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            cc = np.array([cx + dx, cy + dy, cz + dz])
                            shift = np.where(cc < 0, -size, np.where(cc >= nc, size, 0.0))
                            cc %= nc
                            for g in gl[cc[0] + nc * (cc[1] + nc * cc[2])]:
                                cand.append(p[g] + shift)
                sizes = np.array([len(q) for q in cand])
                lo = np.array([q.min(0) for q in cand])
                hi = np.array([q.max(0) for q in cand])
                inf = np.full(3, np.inf)
                lo0 = np.array([q[:2].min(0) for q in cand])
                hi0 = np.array([q[:2].max(0) for q in cand])
                lo1 = np.array([q[2:].min(0) if len(q) > 2 else inf for q in cand])
                hi1 = np.array([q[2:].max(0) if len(q) > 2 else -inf for q in cand])
                for g in own:
                    q = p[g][:, None, :]
                    if rule == "halfbox":
                        near = (box_gap2(q, lo0, hi0) < R * R) | (box_gap2(q, lo1, hi1) < R * R)
                    else:
                        near = box_gap2(q, lo, hi) < R * R  # [boid of the group, candidate]
                    m = len(g)
                    if rule == "group":
                        k = near.any(0)
                        computed += m * (sizes[k].sum() - 1)
                        lanes += 16 * k.sum()
                        continue
                    for h in range(0, m, 2):
                        e = min(2, m - h)
                        if rule in ("pair", "halfbox"):
                            k = near[h:h + e].any(0)
                            computed += e * (sizes[k].sum() - 1)
                            lanes += 16 * ((k.sum() + 1) // 2)
                        else:
                            n = [near[h + i].sum() for i in range(e)]
                            computed += sum(sizes[near[h + i]].sum() - 1 for i in range(e))
                            if rule == "p3":
                                lanes += 16 * ((max(n) + 1) // 2)
                            else:  # boid
                                lanes += sum(16 * ((x + 3) // 4) for x in n)
    return computed, lanes


def main():
    nc = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rng = np.random.default_rng(1)
    size = nc * R
    n = int(DENSITY * size**3)
    p = rng.random((n, 3)) * size
    true = 2 * len(cKDTree(p, boxsize=size).query_pairs(R, output_type="ndarray"))
    f = p / R - np.minimum((p / R).astype(int), nc - 1)
    keys = {"none": np.zeros(n, dtype=np.int64), "m2": morton_key(f, 1),
            "m4": morton_key(f, 2), "m8": morton_key(f, 3)}
    print(f"{n} boids, {nc}^3 cells, {true / n:.1f} neighbours per boid")
    print("rule     order  useful  computed/boid  lanes/boid")
    runs = [("pair", k) for k in ("none", "m2", "m4", "m8")]
    runs += [(r, "m4") for r in ("halfbox", "p3", "boid", "group")]
    for rule, key in runs:
        computed, lanes = model(p, nc, groups_of(p, nc, keys[key]), rule)
        print(f"{rule:8s} {key:5s}  {true / computed:5.1%}  {computed / n:13.1f}  {lanes / n:10.1f}")


if __name__ == "__main__":
    main()
