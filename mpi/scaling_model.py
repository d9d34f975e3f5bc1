#!/usr/bin/env python3
"""The scaling model of docs/distributed.md: step time of the distributed grid engine on P
nodes from the measured time per boid-step and the halo bytes per boid, projected to 1,000
nodes and 10^10 boids. Prints the tables of the page and, with an argument, draws the plot
(needs Debian's python3-matplotlib: /usr/bin/python3 mpi/scaling_model.py docs/images/x.svg).
"""
import math
import sys

# Measured on this machine (docs/distributed.md, "Measured here"): seconds per boid-step on one
# core, distributed path, 1M boids, 3D, default density, AVX2.
C_CORE = float(sys.argv[2]) if len(sys.argv) > 2 else 250e-9
# Assumed: a typical cluster node and interconnect.
CORES = 64          # cores per node
EFF_NODE = 0.85     # threading efficiency inside a node
ALPHA = 2e-6        # message latency, s (InfiniBand HDR / Slingshot class)
BETA = 12.5e9       # injection bandwidth per node, bytes/s (100 Gb/s)
# The model's world: the default scenario's density and radius, float, 3D.
RHO = 0.01          # boids per u^3
R = 9.0 * (1 + 1e-4)  # halo width: one cell of the stencil (cell = r)
REC = 4 + 6 * 4     # bytes per routed boid: id + position + velocity (float)
STEP = 4.0 * 0.1 / 2  # mean displacement across a face per step: max_speed * dt / 2


def step_time(n_total, p, shape):
    n = n_total / p
    compute = n * C_CORE / (CORES * EFF_NODE)
    if p == 1:
        return compute, 0.0, 0.0
    if shape == "cube":  # recursive bisection into near-cubes: 26 neighbours
        a = (n / RHO) ** (1 / 3)
        ghosts = RHO * ((a + 2 * R) ** 3 - a ** 3)
        migrants = RHO * 6 * a * a * STEP
        messages = 26
    else:  # slabs of the whole box (what mpi/ does today): 2 neighbours per slab face
        side = (n_total / RHO) ** (1 / 3)
        h = side / p
        ghosts = RHO * side * side * 2 * R
        migrants = RHO * side * side * 2 * STEP
        # a slab thinner than the halo needs ghosts from several slabs each way
        messages = 2 * math.ceil(R / h)
    comm = messages * ALPHA + (ghosts + migrants) * REC / BETA
    return compute, comm, (ghosts + migrants) * REC


def table(title, n_of_p, ps, shape):
    print(f"\n{title} ({shape})")
    print("| nodes | boids per node | compute ms | halo MB per node | comm ms | efficiency |")
    print("|---|---|---|---|---|---|")
    rows = []
    for p in ps:
        n_total = n_of_p(p)
        c, m, b = step_time(n_total, p, shape)
        c1, _, _ = step_time(n_total / p, 1, shape)  # one node's share alone
        eff = c1 / (c + m) / 1.0
        rows.append((p, eff))
        print(f"| {p} | {n_total / p:.3g} | {c * 1e3:.3g} | {b / 1e6:.3g} | {m * 1e3:.3g} | {eff:.0%} |")
    return rows


def main():
    ps = [1, 2, 8, 64, 125, 512, 1000]
    weak = {s: table("weak scaling, 10^7 boids per node", lambda p: 1e7 * p, ps, s)
            for s in ("cube", "slab")}
    strong10 = table("strong scaling, 10^10 boids", lambda p: 1e10, [100, 125, 512, 1000], "cube")
    strong8 = table("strong scaling, 10^8 boids", lambda p: 1e8, ps, "cube")
    if len(sys.argv) > 1 and sys.argv[1].endswith(".svg"):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6.4, 4))
        for label, rows in (("weak, 1e7/node, cubes", weak["cube"]),
                            ("weak, 1e7/node, slabs", weak["slab"]),
                            ("strong, 1e10, cubes", strong10),
                            ("strong, 1e8, cubes", strong8)):
            ax.plot([p for p, _ in rows], [e for _, e in rows], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("nodes (64 cores, 100 Gb/s)")
        ax.set_ylabel("parallel efficiency (model)")
        ax.set_title("boids distributed grid engine: scaling model")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(sys.argv[1], metadata={"Date": None})


if __name__ == "__main__":
    main()
