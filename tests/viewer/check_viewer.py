#!/usr/bin/env python3
"""Runs boids-view under Xvfb with --screenshot and checks the PNG it writes.

The viewer is started paused on a tiny hand-written state with a fixed camera, so this
script knows exactly where every boid must appear. It recomputes the projection itself
(orthographic in 2D; look-at + 45 degree perspective in 3D, as docs/viewer.md describes) and
checks:
  * the PNG has the requested size;
  * at every boid's projected position the pixel has that boid's colour (blue for boids,
    red for the predator);
  * in 2D, each triangle points along its velocity: beside its wide tail there is boid
    colour, beside its narrow tip there is background;
  * everywhere away from the boids and the world box's edges the image is background, so
    nothing is drawn where the state has nothing.

Exit status: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE) when no X server can be
started. Uses only the Python standard library.
"""
import argparse
import math
import os
import select
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77
W, H = 320, 240
BACKGROUND = (14, 16, 22)  # Renderer::clear: (0.055, 0.063, 0.086) * 255
BOID_RGB = (89, 191, 255)  # kind 0: (0.35, 0.75, 1.0)
PREDATOR_RGB = (255, 77, 64)  # kind 1: (1.0, 0.30, 0.25)

# Tiny states: (x, y[, z], vx, vy[, vz], kind). The last row is the predator.
STATE_2D = [
    (20.0, 25.0, 1.0, 0.0, 0),
    (75.0, 28.0, 0.0, 2.0, 0),
    (28.0, 76.0, -1.5, -1.5, 0),
    (68.0, 72.0, 0.0, -1.0, 0),
    (48.0, 50.0, 1.0, 0.5, 0),
    (88.0, 52.0, -1.0, 0.0, 1),
]
STATE_3D = [
    (30.0, 30.0, 30.0, 1.0, 0.0, 0.0, 0),
    (70.0, 30.0, 60.0, 0.0, 1.0, 0.0, 0),
    (50.0, 50.0, 50.0, 0.0, 0.0, 1.0, 0),
    (30.0, 70.0, 70.0, -1.0, -1.0, 0.0, 0),
    (70.0, 70.0, 25.0, 0.5, 0.5, 0.5, 0),
    (55.0, 20.0, 75.0, -1.0, 0.0, 0.0, 1),
]
SIZE = 100.0
CAMERA_2D = (50.0, 50.0, 50.0)  # cx, cy, half_height
CAMERA_3D = (50.0, 50.0, 50.0, 30.0, 20.0, 190.0)  # target, yaw, pitch (deg), distance
GLYPH_2D = 12.0
GLYPH_3D = 14.0
SPECIAL_SCALE = 2.2  # predators and leaders are drawn this much larger (ViewSettings)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(SKIP)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# --- PNG reading (8-bit RGB/RGBA, non-interlaced: what stb_image_write produces) -----------


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG file")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("unexpected PNG format depth=%d colour type=%d" % (depth, ctype))
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, off = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    pixels = [[tuple(r[x * channels:x * channels + 3]) for x in range(width)] for r in rows]
    return width, height, pixels


# --- The camera, recomputed independently of the viewer ------------------------------------


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def dot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def normalize(a):
    n = math.sqrt(dot(a, a))
    return [c / n for c in a]


def projector(dims):
    """Returns f(point) -> (px, py) in image pixels (x right, y down)."""
    aspect = W / H
    if dims == 2:
        cx, cy, hh = CAMERA_2D

        def project2(p):
            nx = (p[0] - cx) / (hh * aspect)
            ny = (p[1] - cy) / hh
            return ((nx + 1) * 0.5 * W, (1 - ny) * 0.5 * H)

        return project2
    tx, ty, tz, yaw, pitch, dist = CAMERA_3D
    yaw, pitch = math.radians(yaw), math.radians(pitch)
    target = [tx, ty, tz]
    eye = [tx + dist * math.cos(pitch) * math.cos(yaw),
           ty + dist * math.cos(pitch) * math.sin(yaw),
           tz + dist * math.sin(pitch)]
    fwd = normalize(sub(target, eye))
    right = normalize(cross(fwd, [0.0, 0.0, 1.0]))
    up = cross(right, fwd)
    f = 1.0 / math.tan(math.radians(45.0) / 2)

    def project3(p):
        d = sub(p, eye)
        x, y, z = dot(d, right), dot(d, up), dot(d, fwd)  # z = depth in front of the eye
        nx, ny = f / aspect * x / z, f * y / z
        return ((nx + 1) * 0.5 * W, (1 - ny) * 0.5 * H)

    return project3


# --- Checks ---------------------------------------------------------------------------------


def close(a, b, tol):
    return all(abs(a[i] - b[i]) <= tol for i in range(3))


def pixel(pixels, x, y):
    xi, yi = int(math.floor(x)), int(math.floor(y))
    if not (0 <= xi < W and 0 <= yi < H):
        fail("point (%.1f, %.1f) is outside the image" % (x, y))
    return pixels[yi][xi]


def is_colour(rgb, kind, lit):
    """Whether a pixel shows a glyph of `kind`. Lit (3D) glyphs are the base colour times a
    factor in [0.35, 1], so compare channel ratios; flat (2D) glyphs are exact."""
    base = PREDATOR_RGB if kind == 1 else BOID_RGB
    if not lit:
        return close(rgb, base, 6)
    if close(rgb, BACKGROUND, 12) or max(rgb) < 0.3 * max(base):
        return False
    k = max(rgb) / max(base)
    return all(abs(rgb[i] - base[i] * k) <= 14 for i in range(3))


def seg_dist(p, a, b):
    ax, ay = b[0] - a[0], b[1] - a[1]
    den = ax * ax + ay * ay
    t = 0.0 if den == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / den))
    qx, qy = a[0] + t * ax, a[1] + t * ay
    return math.hypot(p[0] - qx, p[1] - qy)


def box_edges(dims, project):
    L = SIZE
    if dims == 2:
        c = [(0, 0), (L, 0), (L, L), (0, L)]
        pts = [project((x, y)) for x, y in c]
        return [(pts[i], pts[(i + 1) % 4]) for i in range(4)]
    edges = []
    for i in range(4):
        a, b = (i & 1) * L, ((i >> 1) & 1) * L
        edges.append(((0, a, b), (L, a, b)))
        edges.append(((a, 0, b), (a, L, b)))
        edges.append(((a, b, 0), (a, b, L)))
    return [(project(p), project(q)) for p, q in edges]


def check(dims, pixels):
    project = projector(dims)
    state = STATE_2D if dims == 2 else STATE_3D
    lit = dims == 3
    centres = []  # (px, py, exclusion radius)
    for n, row in enumerate(state):
        p, v, kind = row[:dims], row[dims:2 * dims], row[-1]
        px, py = project(p)
        centres.append((px, py, 26 * (SPECIAL_SCALE if kind else 1.0)))
        hits = [pixel(pixels, px + dx, py + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        good = sum(1 for c in hits if is_colour(c, kind, lit))
        if good < 7:
            fail("boid %d (%s) should be drawn at pixel (%.1f, %.1f) in %s, found %s" %
                 (n, p, px, py, "red" if kind else "blue", hits))
        if dims == 2:
            # Orientation: the triangle runs from tail (-0.5 L) to tip (+0.5 L) along v and is
            # 0.32 L wide each side at the tail. 0.2 L to the side is inside the triangle at
            # 0.35 L behind the centre, outside it at 0.35 L ahead.
            speed = math.hypot(v[0], v[1])
            f = (v[0] / speed, v[1] / speed)
            s = (-f[1], f[0])
            L = GLYPH_2D * (SPECIAL_SCALE if kind else 1.0)
            for side in (1, -1):
                tail = (p[0] - 0.35 * L * f[0] + side * 0.2 * L * s[0],
                        p[1] - 0.35 * L * f[1] + side * 0.2 * L * s[1])
                tip = (p[0] + 0.35 * L * f[0] + side * 0.2 * L * s[0],
                       p[1] + 0.35 * L * f[1] + side * 0.2 * L * s[1])
                ct, cp = pixel(pixels, *project(tail)), pixel(pixels, *project(tip))
                if not is_colour(ct, kind, False):
                    fail("boid %d: beside its tail %s should be glyph colour, found %s" %
                         (n, tail, ct))
                if not close(cp, BACKGROUND, 3):
                    fail("boid %d: beside its tip %s should be background, found %s "
                         "(glyph not pointing along its velocity?)" % (n, tip, cp))
    # Everything away from boids and box edges is background.
    edges = box_edges(dims, project)
    checked = 0
    for y in range(4, H - 4, 6):
        for x in range(4, W - 4, 6):
            q = (x + 0.5, y + 0.5)
            if any(math.hypot(q[0] - c[0], q[1] - c[1]) < c[2] for c in centres):
                continue
            if any(seg_dist(q, a, b) < 4 for a, b in edges):
                continue
            checked += 1
            if not close(pixels[y][x], BACKGROUND, 3):
                fail("pixel (%d, %d) should be background (no boid near), found %s" %
                     (x, y, pixels[y][x]))
    if checked < 500:
        fail("only %d background probes: test layout broken" % checked)
    print("ok: %d boids where the state puts them, %d background probes clean" %
          (len(state), checked))


def write_state(path, dims):
    with open(path, "w") as f:
        f.write("id,x,y,vx,vy,kind\n" if dims == 2 else "id,x,y,z,vx,vy,vz,kind\n")
        for i, row in enumerate(STATE_2D if dims == 2 else STATE_3D):
            f.write(",".join([str(i)] + [repr(float(c)) for c in row[:-1]] + [str(row[-1])]) +
                    "\n")


def start_xvfb(screen="640x480x24"):
    xvfb = shutil.which("Xvfb")
    if not xvfb:
        skip("Xvfb is not installed (scripts/setup.sh installs xvfb)")
    r, w = os.pipe()
    try:
        proc = subprocess.Popen([xvfb, "-displayfd", str(w), "-screen", "0", screen,
                                 "-nolisten", "tcp"], pass_fds=(w,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as e:
        skip("cannot run Xvfb: %s" % e)
    os.close(w)
    got = b""
    while not got.endswith(b"\n"):
        ready, _, _ = select.select([r], [], [], 20)
        chunk = os.read(r, 16) if ready else b""
        if not chunk:
            break
        got += chunk
    os.close(r)
    if not got.strip():
        proc.kill()
        err = proc.communicate()[1].decode(errors="replace").strip().splitlines()
        skip("Xvfb could not start: %s" % (err[-1] if err else "no display number"))
    return proc, ":" + got.decode().strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True)
    ap.add_argument("--dims", type=int, choices=(2, 3), required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    state = os.path.join(args.workdir, "state%dd.csv" % args.dims)
    png = os.path.join(args.workdir, "shot%dd.png" % args.dims)
    write_state(state, args.dims)
    if os.path.exists(png):
        os.remove(png)

    camera = CAMERA_2D if args.dims == 2 else CAMERA_3D
    cmd = [args.viewer, "--engine", "naive", "--threads", "1",
           "--set", "world.dims=%d" % args.dims, "--set", "world.size=%g" % SIZE,
           "--set", "boids.count=%d" % len(STATE_2D if args.dims == 2 else STATE_3D),
           "--set", "predators.count=1",
           "--init", state, "--paused", "--hide-ui", "--size", "%dx%d" % (W, H),
           "--camera", ",".join("%g" % c for c in camera), "--color", "kind",
           "--glyph-size", "%g" % (GLYPH_2D if args.dims == 2 else GLYPH_3D),
           "--min-pixels", "0", "--frames", "3", "--screenshot", png]
    xvfb, display = start_xvfb()
    try:
        env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE="1")
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    if res.returncode != 0:
        fail("boids-view exited with %d: %s %s" % (res.returncode, res.stdout, res.stderr))
    if not os.path.exists(png):
        fail("boids-view wrote no screenshot")
    width, height, pixels = read_png(png)
    if (width, height) != (W, H):
        fail("screenshot is %dx%d, expected %dx%d" % (width, height, W, H))
    check(args.dims, pixels)


if __name__ == "__main__":
    main()
