#!/usr/bin/env python3
"""A large flock under Xvfb (Mesa llvmpipe): density, kinds, the goal marker, frame time.

Writes a state of N boids (default 1,000,000) whose layout this script knows: a dense ball
(60 %) inside a sparse slab (the rest), one predator and one lone boid side by side in the
empty space above the slab, and the goal at the ball's centre. The viewer draws it paused,
with a fixed camera and no panel, as density splats; this script recomputes the projection
and checks on the PNG:
  * density structure: the ball's pixels are clearly brighter than the slab's (mean
    luminance of covered pixels, dense / sparse > 1.5), and the slab is visible (not black);
  * the predator is larger than a boid in pixels (its red pixels outnumber the lone boid's
    lit pixels at least 2.5 times and reach farther from its centre);
  * the goal marker is visible through the flock (green pixels along its arms over the ball).
Then it runs the same state unpaused (the flock stepping as fast as it can) in a 1280x800
window with the panel, once with the camera still and once turning (--orbit), --ui-frames
frames each with --stats, and prints the UI frame times the viewer measured (median and 90th
percentile, still and moving; reported, never asserted: timings are not tests), and for
reference the frame time of 1,000 boids, paused: the floor of any frame on the machine now.

Exit status: 0 pass, 1 fail, 77 skip when no X server can be started.
"""
import argparse
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_viewer import fail, read_png, start_xvfb  # noqa: E402

W, H = 640, 480
L = 400.0
BALL = (200.0, 200.0, 150.0)
BALL_R = 50.0
PREDATOR = (200.0, 110.0, 330.0)
LONE = (200.0, 290.0, 330.0)
CAMERA = (200.0, 200.0, 200.0, 0.0, 0.0, 700.0)  # target, yaw, pitch (deg), distance
GLYPH = 1.5
BACKGROUND = (14, 16, 22)


def projector():
    tx, ty, tz, yaw, pitch, dist = CAMERA
    yaw, pitch = math.radians(yaw), math.radians(pitch)
    eye = (tx + dist * math.cos(pitch) * math.cos(yaw), ty + dist * math.cos(pitch) * math.sin(yaw),
           tz + dist * math.sin(pitch))
    fwd = [tx - eye[0], ty - eye[1], tz - eye[2]]
    n = math.sqrt(sum(c * c for c in fwd))
    fwd = [c / n for c in fwd]
    right = [fwd[1], -fwd[0], 0.0]  # fwd x (0, 0, 1)
    n = math.sqrt(sum(c * c for c in right))
    right = [c / n for c in right]
    up = [right[1] * fwd[2] - right[2] * fwd[1], right[2] * fwd[0] - right[0] * fwd[2],
          right[0] * fwd[1] - right[1] * fwd[0]]
    f = 1.0 / math.tan(math.radians(22.5))

    def project(p):
        d = [p[i] - eye[i] for i in range(3)]
        x, y, z = (sum(d[i] * right[i] for i in range(3)), sum(d[i] * up[i] for i in range(3)),
                   sum(d[i] * fwd[i] for i in range(3)))
        return ((f / (W / H) * x / z + 1) * 0.5 * W, (1 - f * y / z) * 0.5 * H)

    return project


def write_state(path, n):
    rnd = random.Random(7)
    dense = int(n * 0.6)
    with open(path, "w") as f:
        f.write("id,x,y,z,vx,vy,vz,kind\n")
        rows = []
        for i in range(n - 2):
            if i < dense:
                while True:
                    d = (rnd.uniform(-1, 1), rnd.uniform(-1, 1), rnd.uniform(-1, 1))
                    if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= 1:
                        break
                p = (BALL[0] + BALL_R * d[0], BALL[1] + BALL_R * d[1], BALL[2] + BALL_R * d[2])
            else:
                p = (rnd.uniform(0, L - 0.01), rnd.uniform(0, L - 0.01), rnd.uniform(0, 260))
            a = rnd.uniform(0, 6.283)
            rows.append("%d,%.3f,%.3f,%.3f,%.3f,%.3f,0.5,0\n" %
                        (i, p[0], p[1], p[2], 2 * math.cos(a), 2 * math.sin(a)))
            if len(rows) == 100000:
                f.write("".join(rows))
                rows = []
        rows.append("%d,%.1f,%.1f,%.1f,0,3,0,0\n" % ((n - 2,) + LONE))
        rows.append("%d,%.1f,%.1f,%.1f,0,3,0,1\n" % ((n - 1,) + PREDATOR))
        f.write("".join(rows))


def lum(c):
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def near(pixels, centre, radius, pred):
    """Pixels within `radius` of `centre` for which pred(rgb) holds: (count, max distance)."""
    cx, cy = centre
    count, reach = 0, 0.0
    for y in range(max(0, int(cy - radius)), min(H, int(cy + radius) + 1)):
        for x in range(max(0, int(cx - radius)), min(W, int(cx + radius) + 1)):
            d = math.hypot(x + 0.5 - cx, y + 0.5 - cy)
            if d <= radius and pred(pixels[y][x]):
                count += 1
                reach = max(reach, d)
    return count, reach


def check(pixels):
    project = projector()
    covered = lambda c: lum(c) > lum(BACKGROUND) + 6  # noqa: E731
    # Density: the ball's inner disc against a patch of slab well away from it.
    bc = project(BALL)
    br = abs(project((BALL[0], BALL[1], BALL[2] + BALL_R))[1] - bc[1])
    goal_lines = lambda x, y: abs(x - bc[0]) < 6 or abs(y - bc[1]) < 6  # noqa: E731
    dense = [lum(pixels[y][x]) for y in range(int(bc[1] - br / 2), int(bc[1] + br / 2))
             for x in range(int(bc[0] - br / 2), int(bc[0] + br / 2))
             if not goal_lines(x, y) and covered(pixels[y][x])]
    sc = project((200.0, 40.0, 60.0))
    sparse = [lum(pixels[y][x]) for y in range(int(sc[1] - 15), int(sc[1] + 15))
              for x in range(int(sc[0] - 15), int(sc[0] + 15)) if covered(pixels[y][x])]
    if len(dense) < 100 or len(sparse) < 100:
        fail("too few covered pixels: dense %d, sparse %d (flock not drawn where the state "
             "puts it?)" % (len(dense), len(sparse)))
    md, ms = sum(dense) / len(dense), sum(sparse) / len(sparse)
    print("density: dense core mean luminance %.1f over %d px, sparse slab %.1f over %d px "
          "(ratio %.2f)" % (md, len(dense), ms, len(sparse), md / ms))
    if not md > 1.5 * ms:
        fail("dense core (%.1f) is not clearly brighter than the sparse slab (%.1f)" % (md, ms))
    # Kinds: the predator's red pixels against the lone boid's lit pixels, same depth.
    red = lambda c: c[0] > 60 and c[0] > 1.6 * c[1] and c[0] > 1.6 * c[2]  # noqa: E731
    blue = lambda c: covered(c) and c[2] > 1.8 * c[0]  # noqa: E731 (box lines are grey)
    pc, pr = near(pixels, project(PREDATOR), 14, red)
    lc, lr = near(pixels, project(LONE), 14, blue)
    print("kinds: predator %d red px (reach %.1f px), lone boid %d lit px (reach %.1f px)" %
          (pc, pr, lc, lr))
    if lc == 0:
        fail("the lone boid is invisible (one boid must stay visible among a million)")
    if not (pc >= 2.5 * lc and pr > lr):
        fail("the predator (%d px) is not drawn larger than a boid (%d px)" % (pc, lc))
    # The goal marker over the ball: its arms along y (screen x) and z (screen y).
    arm = 0.03 * L
    green = lambda c: c[1] > 150 and c[1] > c[0] + 50 and c[1] > c[2] + 50  # noqa: E731
    hits = 0
    for t in (-0.8, -0.5, 0.5, 0.8):
        for off in ((0, t * arm, 0), (0, 0, t * arm)):
            x, y = project((BALL[0] + off[0], BALL[1] + off[1], BALL[2] + off[2]))
            hits += any(green(pixels[int(y) + dy][int(x) + dx]) for dx in (-1, 0, 1)
                        for dy in (-1, 0, 1))
    print("goal: %d of 8 probes on its arms are green" % hits)
    if hits < 6:
        fail("the goal marker is hidden by the flock (%d of 8 probes green)" % hits)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--count", type=int, default=1000000)
    ap.add_argument("--ui-frames", type=int, default=60)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    layout = "%d-%g-%g-%g" % (args.count, BALL_R, PREDATOR[2], LONE[1])  # cache key
    state = os.path.join(args.workdir, "large%s.csv" % layout)
    png = os.path.join(args.workdir, "large.png")
    if not os.path.exists(state):
        write_state(state + ".tmp", args.count)
        os.replace(state + ".tmp", state)
    if os.path.exists(png):
        os.remove(png)
    common = [args.viewer, "--threads", "2", "--set", "world.dims=3", "--set", "world.size=%g" % L,
              "--set", "boids.count=%d" % args.count, "--set", "predators.count=1",
              "--set", "goal.position=[%g,%g,%g]" % BALL, "--set", "behaviour.seek=0.1",
              "--init", state, "--glyph-size", "%g" % GLYPH,
              "--camera", ",".join("%g" % c for c in CAMERA), "--color", "kind"]
    xvfb, display = start_xvfb("1280x800x24")
    try:
        env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE="1")
        res = subprocess.run(common + ["--size", "%dx%d" % (W, H), "--paused", "--hide-ui",
                                       "--frames", "2", "--screenshot", png],
                             env=env, capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            fail("boids-view exited with %d: %s %s" % (res.returncode, res.stdout, res.stderr))
        width, height, pixels = read_png(png)
        if (width, height) != (W, H):
            fail("screenshot is %dx%d, expected %dx%d" % (width, height, W, H))
        check(pixels)
        if args.ui_frames > 0:
            # The UI frame time while the flock steps, camera still and turning: measured and
            # printed, not asserted.
            for camera, extra in (("still", []), ("moving", ["--orbit", "0.5"])):
                res = subprocess.run(common + ["--size", "1280x800", "--rate", "0", "--no-vsync",
                                               "--stats", "--frames", str(args.ui_frames)] +
                                     extra, env=env, capture_output=True, text=True, timeout=300)
                if res.returncode != 0:
                    fail("boids-view --stats exited with %d: %s" % (res.returncode, res.stderr))
                for line in res.stdout.splitlines():
                    print("measured (%s camera, %d boids, 1280x800 with the panel): %s" %
                          (camera, args.count, line))
            # The floor of any frame on this machine now (it is shared: the load changes it
            # more than the flock does), for reading the figures above.
            res = subprocess.run([args.viewer, "--set", "boids.count=1000", "--size", "1280x800",
                                  "--paused", "--no-vsync", "--stats", "--frames",
                                  str(args.ui_frames)], env=env, capture_output=True, text=True,
                                 timeout=300)
            if res.returncode != 0:
                fail("boids-view --stats exited with %d: %s" % (res.returncode, res.stderr))
            for line in res.stdout.splitlines():
                print("measured (floor: 1000 boids paused, 1280x800 with the panel): " + line)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    print("ok: %d boids: density structure, predator larger than a boid, goal visible" %
          args.count)


if __name__ == "__main__":
    main()
