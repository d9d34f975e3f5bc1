#!/usr/bin/python3
"""Independent float64 check of the standard model through the `boids` program.

For every case (2D/3D x wrap/reflect/open x full view/blind angle) this script writes a
random initial state and a scenario, runs `boids run --steps 1 --init ... --out ...`, and
compares the result with its own numpy float64 implementation of docs/model.md. It shares
no code with the engine. Exit status 0 when every case agrees to within the tolerance.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np


def reference_step(p, v, P):
    """One synchronous step of the standard model in float64 (docs/model.md, steps 1-6)."""
    n, D = p.shape
    L = P["size"]
    d = p[None, :, :] - p[:, None, :]  # d[i, j] = p_j - p_i
    if P["boundary"] == "wrap":
        d = d - L * np.round(d / L)
    dist = np.sqrt((d * d).sum(axis=2))
    nb = dist < P["radius"]
    np.fill_diagonal(nb, False)
    if P["view_angle"] < 360:
        vlen = np.sqrt((v * v).sum(axis=1))
        dot = (d * v[:, None, :]).sum(axis=2)
        cone = dot >= dist * vlen[:, None] * np.cos(np.radians(P["view_angle"] / 2))
        nb &= cone | (vlen[:, None] == 0)
    k = nb.sum(axis=1)
    kk = np.maximum(k, 1)[:, None]
    coh = (d * nb[:, :, None]).sum(axis=1) / kk
    ali = (v[None, :, :] * nb[:, :, None]).sum(axis=1) / kk - v
    close = nb & (dist > 0) & (dist < P["separation_radius"])
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(close, 1.0 / np.where(dist > 0, dist * dist, 1.0), 0.0)
    sep = -(d * w[:, :, None]).sum(axis=1)
    has = (k > 0)[:, None]
    F = has * (P["separation"] * sep + P["alignment"] * ali + P["cohesion"] * coh)
    fl = np.sqrt((F * F).sum(axis=1, keepdims=True))
    F = np.where(fl > P["max_force"], F * P["max_force"] / np.where(fl > 0, fl, 1), F)
    nv = v + F * P["dt"]
    s = np.sqrt((nv * nv).sum(axis=1, keepdims=True))
    nv = np.where(s > P["max_speed"], nv * P["max_speed"] / np.where(s > 0, s, 1), nv)
    nv = np.where((s > 0) & (s < P["min_speed"]), nv * P["min_speed"] / np.where(s > 0, s, 1), nv)
    np_ = p + nv * P["dt"]
    if P["boundary"] == "wrap":
        np_ = np.mod(np_, L)
    elif P["boundary"] == "reflect":
        lo = np_ < 0
        np_ = np.where(lo, -np_, np_)
        nv = np.where(lo, -nv, nv)
        hi = np_ >= L
        np_ = np.where(hi, 2 * L - np_, np_)
        nv = np.where(hi, -nv, nv)
    return np_, nv


def write_state(path, p, v):
    D = p.shape[1]
    names = ["x", "y", "z"][:D]
    with open(path, "w") as f:
        f.write(",".join(["id"] + names + ["v" + c for c in names]) + "\n")
        for i in range(p.shape[0]):
            f.write(",".join([str(i)] + [repr(float(x)) for x in p[i]] + [repr(float(x)) for x in v[i]]) + "\n")


def read_state(path, D):
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, 1 : 1 + D], data[:, 1 + D : 1 + 2 * D]


def run_case(boids, tmp, engine, D, boundary, view, n, rng, threads):
    P = dict(size=20.0, boundary=boundary, radius=3.0, separation_radius=1.2, view_angle=view,
             separation=1.5, alignment=0.7, cohesion=0.4, dt=1.0, max_speed=4.0, min_speed=0.5,
             max_force=5.0)
    L = P["size"]
    p = rng.uniform(0, L, size=(n, D))
    # Put some boids on the seam and at the walls, and a coincident pair.
    p[0, 0] = 0.0
    p[1, 0] = L - 1e-3
    p[2] = p[3]
    v = rng.normal(size=(n, D))
    v *= (rng.uniform(0.2, 3.5, size=(n, 1)) / np.linalg.norm(v, axis=1, keepdims=True))
    v[4] = 0.0
    # The engine runs in float: give the reference the very same float-rounded input.
    p = p.astype(np.float32).astype(np.float64)
    v = v.astype(np.float32).astype(np.float64)
    if boundary != "open":
        p = np.where(p >= L, 0.0, p)
    scen = os.path.join(tmp, "s.toml")
    with open(scen, "w") as f:
        f.write(f'[world]\ndims = {D}\nsize = {L}\nboundary = "{boundary}"\n')
        f.write(f"[boids]\ncount = {n}\nseed = 7\n")
        f.write("[rules]\n" + "".join(f"{k} = {float(P[k])}\n" for k in
                ["radius", "separation_radius", "view_angle", "separation", "alignment", "cohesion"]))
        f.write("[motion]\n" + "".join(f"{k} = {float(P[k])}\n" for k in
                ["dt", "max_speed", "min_speed", "max_force"]))
    init = os.path.join(tmp, "init.csv")
    out = os.path.join(tmp, "out.csv")
    write_state(init, p, v)
    cmd = [boids, "run", "--scenario", scen, "--steps", "1", "--engine", engine, "--init", init,
           "--out", out, "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return f"boids failed: {r.stderr.strip()}"
    gp, gv = read_state(out, D)
    rp, rv = reference_step(p, v, P)
    dp = np.abs(gp - rp)
    if boundary == "wrap":
        dp = np.minimum(dp, L - dp)  # 19.99999 and 0 are the same place on the torus
    err = max(dp.max(), np.abs(gv - rv).max())
    return err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boids", required=True, help="path of the boids program")
    ap.add_argument("--engine", default="naive")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--tolerance", type=float, default=2e-3)
    ap.add_argument("--count", type=int, default=300)
    args = ap.parse_args()
    rng = np.random.default_rng(12345)
    failures = 0
    cases = 0
    with tempfile.TemporaryDirectory() as tmp:
        for D in (2, 3):
            for boundary in ("wrap", "reflect", "open"):
                for view in (360.0, 240.0):
                    err = run_case(args.boids, tmp, args.engine, D, boundary, view, args.count, rng,
                                   args.threads)
                    cases += 1
                    ok = not isinstance(err, str) and err <= args.tolerance
                    failures += not ok
                    print(f"{args.engine} {D}D {boundary:7s} view {view:5.1f}: "
                          f"{err if isinstance(err, str) else f'max error {err:.3g}'} "
                          f"{'ok' if ok else 'FAILED'}")
    print(f"{cases - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
