#!/usr/bin/env python3
"""Couzin et al. (2002) collective states and hysteresis, for docs/validation.md.

Part 1 (states): from random starts (scenarios/couzin.toml, N = 100, 3D, open space), for each
Delta r_o = r_o - r_r with Delta r_a = r_a - r_o = 14, R seeds; p (polarization) and m_r
(milling) averaged over the second half of each run, then mean and std over the seeds.
Part 2 (hysteresis): one group, Delta r_o swept up then down, each value continuing from the
previous value's final state (boids run --init/--out).

Usage: scripts/validation_couzin.py BOIDS_BINARY OUT_DIR [--repeats R] [--steps S]
Writes OUT_DIR/couzin-states.csv, couzin-hysteresis.csv and the SVG plots
docs/images/couzin-states.svg and couzin-hysteresis.svg (next to this script's repository).
Only the standard library: runs 2 processes at a time.
"""
import argparse
import csv
import concurrent.futures as cf
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "couzin.toml")
DELTAS = [0, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 14]


def run(binary, out_dir, tag, delta, seed, steps, init=None, final=None):
    metrics = os.path.join(out_dir, f"m_{tag}.csv")
    cmd = [binary, "run", "--scenario", SCENARIO, "--steps", str(steps), "--threads", "1",
           "--quiet", "--metrics", metrics, "--metrics-every", "10",
           "--set", f"rules.orientation_radius={1 + delta}",
           "--set", f"rules.radius={1 + delta + 14}", "--set", f"boids.seed={seed}"]
    if init:
        cmd += ["--init", init]
    if final:
        cmd += ["--out", final]
    subprocess.run(cmd, check=True)
    with open(metrics) as f:
        rows = list(csv.DictReader(f))
    half = [r for r in rows if int(r["step"]) >= steps // 2]
    p = sum(float(r["polarization"]) for r in half) / len(half)
    m = sum(float(r["milling"]) for r in half) / len(half)
    os.remove(metrics)
    return p, m


def mean_std(xs):
    mu = sum(xs) / len(xs)
    return mu, math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs))


def svg(path, title, series, xlabel):
    """series: list of (label, colour, [(x, y, err)])."""
    w, h, l, b = 640, 400, 60, 50
    xmax = max(x for _, _, pts in series for x, _, _ in pts) or 1
    px = lambda x: l + (w - l - 20) * x / xmax
    py = lambda y: h - b - (h - b - 30) * y
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="18" text-anchor="middle">{title}</text>',
           f'<line x1="{l}" y1="{py(0)}" x2="{w - 20}" y2="{py(0)}" stroke="black"/>',
           f'<line x1="{l}" y1="{py(0)}" x2="{l}" y2="{py(1)}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">{xlabel}</text>']
    for t in range(0, 11, 2):
        y = t / 10
        out.append(f'<text x="{l - 6}" y="{py(y) + 4}" text-anchor="end">{y:.1f}</text>')
    for x in sorted({x for _, _, pts in series for x, _, _ in pts}):
        out.append(f'<text x="{px(x)}" y="{py(0) + 16}" text-anchor="middle">{x:g}</text>')
    for k, (label, colour, pts) in enumerate(series):
        d = " ".join(f"{'M' if i == 0 else 'L'}{px(x):.1f},{py(y):.1f}"
                     for i, (x, y, _) in enumerate(pts))
        out.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y, e in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
            if e:
                out.append(f'<line x1="{px(x):.1f}" y1="{py(y - e):.1f}" x2="{px(x):.1f}" '
                           f'y2="{py(y + e):.1f}" stroke="{colour}"/>')
        out.append(f'<text x="{w - 150}" y="{40 + 16 * k}" fill="{colour}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out_dir")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--hysteresis-steps", type=int, default=3000)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    images = os.path.join(ROOT, "docs", "images")

    jobs = {}
    with cf.ThreadPoolExecutor(2) as pool:
        for d in DELTAS:
            for s in range(1, a.repeats + 1):
                jobs[(d, s)] = pool.submit(run, a.binary, a.out_dir, f"{d}_{s}", d, s, a.steps)
    rows = []
    with open(os.path.join(a.out_dir, "couzin-states.csv"), "w") as f:
        f.write("delta_ro,p_mean,p_std,m_mean,m_std,torus_runs\n")
        for d in DELTAS:
            res = [jobs[(d, s)].result() for s in range(1, a.repeats + 1)]
            pm, ps = mean_std([r[0] for r in res])
            mm, ms = mean_std([r[1] for r in res])
            tori = sum(1 for r in res if r[1] > 0.5)
            rows.append((d, pm, ps, mm, ms))
            f.write(f"{d},{pm:.4f},{ps:.4f},{mm:.4f},{ms:.4f},{tori}\n")
            print(f"delta_ro {d:5}: p {pm:.3f} +- {ps:.3f}  m_r {mm:.3f} +- {ms:.3f}  "
                  f"tori {tori}/{a.repeats}", flush=True)
    svg(os.path.join(images, "couzin-states.svg"),
        f"Couzin 2002, N = 100, 3D: p and m_r against Delta r_o ({a.repeats} seeds)",
        [("polarization p", "#1f77b4", [(d, pm, ps) for d, pm, ps, _, _ in rows]),
         ("milling m_r", "#d62728", [(d, mm, ms) for d, _, _, mm, ms in rows])],
        "Delta r_o (Delta r_a = 14)")

    # Hysteresis: up then down, each from the previous final state.
    path = DELTAS + DELTAS[-2::-1]
    state = None
    hyst = []
    for k, d in enumerate(path):
        final = os.path.join(a.out_dir, f"h_{k}.csv")
        p, m = run(a.binary, a.out_dir, f"h{k}", d, 1, a.hysteresis_steps, init=state, final=final)
        state = final
        hyst.append((k, d, p, m))
        print(f"hysteresis {k:2} delta_ro {d:5}: p {p:.3f} m_r {m:.3f}", flush=True)
    with open(os.path.join(a.out_dir, "couzin-hysteresis.csv"), "w") as f:
        f.write("order,delta_ro,direction,p,m\n")
        for k, d, p, m in hyst:
            f.write(f"{k},{d},{'up' if k < len(DELTAS) else 'down'},{p:.4f},{m:.4f}\n")
    up = hyst[:len(DELTAS)]
    down = hyst[len(DELTAS) - 1:]
    svg(os.path.join(images, "couzin-hysteresis.svg"),
        "Couzin 2002 hysteresis: Delta r_o swept up, then down",
        [("p, increasing", "#1f77b4", [(d, p, 0) for _, d, p, _ in up]),
         ("p, decreasing", "#aec7e8", [(d, p, 0) for _, d, p, _ in down]),
         ("m_r, increasing", "#d62728", [(d, m, 0) for _, d, _, m in up]),
         ("m_r, decreasing", "#ff9896", [(d, m, 0) for _, d, _, m in down])],
        "Delta r_o (Delta r_a = 14)")


if __name__ == "__main__":
    main()
