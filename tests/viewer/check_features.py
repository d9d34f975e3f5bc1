#!/usr/bin/env python3
"""Viewer features under Xvfb, one case per run (ctest viewer_debug_wrap, viewer_replay,
viewer_replay_h5md, viewer_bad_input):

  debug_wrap  2D, periodic box: a boid at the left edge whose neighbours sit at the right
              edge. Its neighbour lines must go to the nearest image (across the boundary),
              so no line pixel is farther from it than half the box; they must exist.
  replay      `boids run --record` a flock, then the viewer draws the live run after K steps
              and the recording's frame at step K: the two PNGs must be identical, and the
              frame of another step must differ (so the comparison can fail). The live run
              with --no-persistent (streamed instance buffer) must match the mapped one.
  replay_h5md the same with an H5MD recording (three kinds), replayed with the scenario it
              holds (no --set given to the replay).
  bad_input   --camera nan, --glyph-size 1e30, a directory as scenario or recording, a file
              that is not a recording, a damaged .h5, an unknown colour: each one line
              "boids-view: error: ...", exit status 2, before any window opens.

Exit status: 0 pass, 1 fail, 77 skip when no X server can be started.
"""
import argparse
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_viewer import fail, read_png, start_xvfb  # noqa: E402


def run_viewer(cmd, env, timeout=240):
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        fail("%s exited with %d: %s %s" % (" ".join(cmd), res.returncode, res.stdout, res.stderr))
    return res


# --- debug_wrap ---------------------------------------------------------------------------

W2, H2 = 320, 240
SIZE2 = 100.0
CAM2 = (50.0, 50.0, 55.0)
# (x, y, vx, vy): the selected boid 0 at the left edge, two neighbours across the boundary.
STATE2 = [(3.0, 50.0, 1.0, 0.0), (96.0, 52.0, 1.0, 0.0), (97.0, 47.0, 1.0, 0.0),
          (50.0, 15.0, 1.0, 0.0), (50.0, 85.0, -1.0, 0.0), (30.0, 30.0, 0.0, 1.0),
          (70.0, 70.0, 0.0, -1.0)]


def project2(p):
    cx, cy, hh = CAM2
    a = W2 / H2
    return ((p[0] - cx) / (hh * a) + 1) * 0.5 * W2, (1 - (p[1] - cy) / hh) * 0.5 * H2


def debug_wrap(args, env):
    state = os.path.join(args.workdir, "wrap.csv")
    png = os.path.join(args.workdir, "wrap.png")
    with open(state, "w") as f:
        f.write("id,x,y,vx,vy,kind\n")
        for i, r in enumerate(STATE2):
            f.write("%d,%g,%g,%g,%g,0\n" % ((i,) + r))
    run_viewer([args.viewer, "--engine", "naive", "--threads", "1", "--set", "world.dims=2",
                "--set", "world.size=%g" % SIZE2, "--set", 'world.boundary="wrap"',
                "--set", "boids.count=%d" % len(STATE2), "--set", "rules.radius=9",
                "--init", state, "--paused", "--hide-ui", "--size", "%dx%d" % (W2, H2),
                "--camera", ",".join("%g" % c for c in CAM2), "--glyph-size", "3",
                "--min-pixels", "0", "--select", "0", "--frames", "2", "--screenshot", png], env)
    w, h, px = read_png(png)
    sel = project2(STATE2[0][:2])
    scale = H2 / (2 * CAM2[2])  # pixels per unit
    half_box = 0.5 * SIZE2 * scale
    glyphs = [project2(r[:2]) for r in STATE2]
    near_lines, far = 0, []
    for y in range(h):
        for x in range(w):
            c = px[y][x]
            # The neighbour lines: dim yellow (line colour at alpha 0.35 over the background).
            if not (c[0] > 45 and c[1] > 38 and c[0] > 1.6 * c[2] and c[1] > 1.4 * c[2] and
                    c[0] < 200):
                continue
            if any(math.hypot(x - g[0], y - g[1]) < 8 for g in glyphs[1:]):
                continue  # a highlighted neighbour's own glyph
            d = math.hypot(x + 0.5 - sel[0], y + 0.5 - sel[1])
            if d > half_box:
                far.append((x, y, d))
            else:
                near_lines += 1
    print("debug lines: %d pixels within half the box (%.0f px) of the selected boid, %d beyond" %
          (near_lines, half_box, len(far)))
    if far:
        fail("a neighbour line spans more than half the box (pixel %s is %.0f px away): lines "
             "must go to the nearest periodic image" % (far[0][:2], far[0][2]))
    if near_lines < 8:
        fail("no neighbour lines drawn (%d pixels)" % near_lines)
    print("ok: neighbour lines respect the periodic wrap")


# --- replay -------------------------------------------------------------------------------


def replay(args, env, h5md=False):
    rec = os.path.join(args.workdir, "flock.h5" if h5md else "flock.rec")
    sets = ["--set", "world.size=60", "--set", "boids.count=25000", "--set", "predators.count=3",
            "--threads", "2"]
    if h5md:  # three kind groups, merged back into id order by the reader
        sets += ["--set", "leaders.count=2"]
    res = subprocess.run([args.boids, "run", "--steps", "12", "--record", rec, "--every", "4",
                          "--quiet"] + sets, capture_output=True, text=True, timeout=240)
    if res.returncode != 0:
        fail("boids run --record failed: %s" % res.stderr)
    view = [args.viewer, "--paused", "--hide-ui", "--size", "320x240", "--color", "heading",
            "--camera", "30,30,30,35,25,130", "--frames", "2"]
    # An H5MD recording holds its scenario: its replay is given none (BOIDSREC needs one).
    play = [] if h5md else sets
    shots = {}
    for name, extra in (("live8", sets + ["--warmup", "8"]),
                        ("replay8", play + ["--replay", rec, "--replay-step", "8"]),
                        ("replay12", play + ["--replay", rec, "--replay-step", "12"]),
                        ("streamed8", sets + ["--warmup", "8", "--no-persistent"])):
        png = os.path.join(args.workdir, name + ".png")
        run_viewer(view + extra + ["--screenshot", png], env)
        shots[name] = read_png(png)[2]
    def diff(a, b):
        return sum(1 for ra, rb in zip(a, b) for ca, cb in zip(ra, rb) if ca != cb)
    same, other = diff(shots["live8"], shots["replay8"]), diff(shots["live8"], shots["replay12"])
    lit = sum(1 for r in shots["live8"] for c in r if max(c) > 40)
    print("replay: live step 8 vs recorded step 8: %d pixels differ; vs recorded step 12: %d; "
          "%d lit pixels" % (same, other, lit))
    if lit < 500:
        fail("the live frame shows almost nothing (%d lit pixels)" % lit)
    if same != 0:
        fail("the replayed frame of step 8 differs from the live run at step 8 in %d pixels" % same)
    streamed = diff(shots["live8"], shots["streamed8"])
    print("mapped vs streamed instance buffers (live step 8): %d pixels differ" % streamed)
    if streamed != 0:
        fail("the streamed instance buffer draws another picture than the mapped one")
    if other < 100:
        fail("the frame of step 12 looks like step 8 (%d pixels differ): replay not seeking?" %
             other)
    print("ok: the replay of %s shows the live frame of the same step" %
          ("an H5MD recording" if h5md else "a BOIDSREC recording"))


# --- bad_input ----------------------------------------------------------------------------


def bad_input(args, env):
    not_rec = os.path.join(args.workdir, "not-a-recording.bin")
    with open(not_rec, "wb") as f:
        f.write(b"hello, this is not a recording at all........")
    cut_h5 = os.path.join(args.workdir, "cut.h5")  # HDF5's signature, then nothing usable
    with open(cut_h5, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + bytes(40))
    cases = [["--camera", "nan"], ["--camera", "1,2,nan,3,4,5"], ["--glyph-size", "1e30"],
             ["--scenario", args.workdir], ["--replay", args.workdir], ["--replay", not_rec],
             ["--replay", cut_h5], ["--color", "purple"], ["--exposure", "nan"],
             ["--orbit", "nan"], ["--orbit", "400"]]
    env = {k: v for k, v in env.items() if k != "DISPLAY"}  # must fail before any window
    for extra in cases:
        res = subprocess.run([args.viewer] + extra, env=env, capture_output=True, text=True,
                             timeout=60)
        lines = res.stderr.strip().splitlines()
        if res.returncode != 2 or len(lines) != 1 or \
                not lines[0].startswith("boids-view: error: "):
            fail("%s: expected exit 2 and one line 'boids-view: error: ...', got %d: %r" %
                 (" ".join(extra), res.returncode, res.stderr))
        print("%-28s -> %s" % (" ".join(extra), lines[0]))
    print("ok: %d bad inputs refused with one line and exit status 2" % len(cases))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True)
    ap.add_argument("--boids", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--case", required=True, choices=("debug_wrap", "replay", "replay_h5md",
                                                         "bad_input"))
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    if args.case == "bad_input":
        bad_input(args, dict(os.environ))
        return
    xvfb, display = start_xvfb()
    try:
        env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE="1")
        if args.case == "debug_wrap":
            debug_wrap(args, env)
        else:
            replay(args, env, h5md=args.case == "replay_h5md")
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)


if __name__ == "__main__":
    main()
