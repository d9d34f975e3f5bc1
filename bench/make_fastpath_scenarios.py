#!/usr/bin/env python3
"""Writes the scenarios of issue 14's targets (docs/bench.md, "Every rule on the fast path").

usage: make_fastpath_scenarios.py OUTDIR [N]

N boids (default 1,000,000) at the default density 0.01 (3D) and the ABM profile's density in
2D; pred10k and obst10k have N/100 predators resp. sphere obstacles (10,000 at 1M). Files: plain3d, allbeh, pred0, pred10k, obst0, obst10k, std2d, std2d_double, abm2d_float,
abm2d_double, abm_mason (102,400 birds, L = 2400). Obstacles and predators are placed by a fixed-seed
generator so every run sees the same world.
"""
import math
import random
import sys

out = sys.argv[1]
n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 1_000_000
L3 = (n / 0.01) ** (1 / 3)


def write(name, text):
    with open(f"{out}/{name}.toml", "w") as f:
        f.write(text)


base3 = f"""[world]
dims = 3
size = {L3:.3f}
boundary = "wrap"

[boids]
count = {{count}}
seed = 1

[rules]
radius = 9.0
"""

write("plain3d", base3.format(count=n))

# Every seed behaviour at once: goal/arrive, flee/pursue/evade the target, wander, 10 leaders,
# 100 predators (chase + flee), a few dozen obstacles, formation, simplified and threshold rules.
rng = random.Random(14)


def spheres(k, rmin, rmax):
    s = []
    for _ in range(k):
        c = [rng.uniform(0, L3) for _ in range(3)]
        s.append("{center = [%.3f, %.3f, %.3f], radius = %.3f}" % (*c, rng.uniform(rmin, rmax)))
    return s


def boxes(k, emin, emax):
    s = []
    for _ in range(k):
        lo = [rng.uniform(0, L3 - emax) for _ in range(3)]
        hi = [x + rng.uniform(emin, emax) for x in lo]
        s.append("{lo = [%.3f, %.3f, %.3f], hi = [%.3f, %.3f, %.3f]}" % (*lo, *hi))
    return s


allbeh = base3.format(count=n) + f"""separation = 1.5
alignment = 1.0
cohesion = 1.0

[behaviour]
seek = 0.05
arrive = 0.05
flee = 0.05
flee_radius = 20.0
pursue = 0.02
evade = 0.02
wander = 0.1
follow_leader = 0.05
flee_predators = 1.0
avoid = 1.0
formation = 0.02
global_cohesion = 0.001
destination_alignment = 0.02
cohesion_max_distance = 3.0
closest_separation = 0.5

[leaders]
count = 10

[predators]
count = 100

[predators.behaviour]
chase = 1.0

[obstacles]
spheres = [{", ".join(spheres(16, 2, 8))}]
boxes = [{", ".join(boxes(8, 2, 10))}]
"""
write("allbeh", allbeh)

pred = base3.format(count=n) + """
[behaviour]
flee_predators = {fp}

[predators]
count = {m}

[predators.behaviour]
chase = {ch}
"""
write("pred0", pred.format(fp=1.0, m=0, ch=1.0))
write("pred10k", pred.format(fp=1.0, m=n // 100, ch=1.0))  # 10,000 at 1M

obst = base3.format(count=n) + """
[behaviour]
avoid = 1.0
"""
write("obst0", obst)
write("obst10k", obst + "\n[obstacles]\nspheres = [" + ",\n  ".join(spheres(n // 100, 0.5, 2.0)) + "]\n")  # 10,000 at 1M

# 2D: the ABM profile at the large model's density (400 birds in 150 x 150, radius 15) and the
# standard 2D step at the same density and radius.
L2 = 150 * math.sqrt(n / 400)
base2 = f"""[world]
dims = 2
size = {{L:.3f}}
boundary = "wrap"
{{profile}}
[boids]
count = {{count}}
seed = 1

[rules]
radius = 15.0
view_angle = 360.0
{{extra}}"""
abm_rules = """separation_radius = 1.0
separation = 0.015
alignment = 0.05
cohesion = 0.03

[motion]
dt = 1.0
max_speed = 1.0
min_speed = 1.0
max_force = 2.0
"""
write("std2d", base2.format(L=L2, profile="", count=n, extra=""))
# The reference of abm2d_double: the standard 2D step in double.
write("std2d_double", base2.format(L=L2, profile='\n[engine]\nprecision = "double"\n', count=n,
                                   extra=""))
for prec in ("float", "double"):
    write(f"abm2d_{prec}", base2.format(L=L2, profile='profile = "abm"\n\n[engine]\nprecision = "%s"\n' % prec,
                                         count=n, extra=abm_rules))
write("abm_mason", base2.format(L=2400.0, profile='profile = "abm"\n\n[engine]\nprecision = "double"\n',
                                count=102400, extra=abm_rules))
