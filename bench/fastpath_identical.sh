#!/bin/sh
# Byte-identical `--out` of two `boids` binaries (docs/bench.md, "Every rule on the fast path"):
# predators (n/100, chase and flee; flee and evade), sphere obstacles (n/100) and every
# behaviour at once, in 2D and 3D, float and double, on 1 and 2 threads, under
# BOIDS_MAX_ISA=scalar, sse4.2, avx2 and avx512 (a cap above the CPU runs its best). Exits 1 at
# the first difference.
#
# usage: fastpath_identical.sh OLD_BINARY NEW_BINARY [N [STEPS]]   (defaults 20000 boids, 4 steps)
set -eu
old=$1; new=$2; n=${3:-20000}; steps=${4:-4}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir" "$n" <<'EOF'
import random, sys
out, n = sys.argv[1], int(sys.argv[2])
for dims in (2, 3):
    # The fast-path scenarios' densities: 0.01 in 3D; 2D at 0.05 (more neighbours per boid).
    L = (n / 0.01) ** (1 / 3) if dims == 3 else (n / 0.05) ** 0.5
    rng = random.Random(14 + dims)
    def pt():
        return ", ".join("%.3f" % rng.uniform(0, L) for _ in range(dims))
    def spheres(k, a, b):
        return ",\n  ".join("{center = [%s], radius = %.3f}" % (pt(), rng.uniform(a, b))
                            for _ in range(k))
    def boxes(k, a, b):
        s = []
        for _ in range(k):
            lo = [rng.uniform(0, L - b) for _ in range(dims)]
            hi = [x + rng.uniform(a, b) for x in lo]
            s.append("{lo = [%s], hi = [%s]}" % (", ".join("%.3f" % x for x in lo),
                                                 ", ".join("%.3f" % x for x in hi)))
        return ", ".join(s)
    base = f"""[world]
dims = {dims}
size = {L:.3f}
boundary = "wrap"

[boids]
count = {n}
seed = 3

[rules]
radius = 9.0
"""
    def write(name, text):
        with open(f"{out}/{name}_{dims}d.toml", "w") as f:
            f.write(text)
    pred = base + """
[behaviour]
flee_predators = {fp}
evade_predators = {ev}
{more}
[predators]
count = {m}

[predators.behaviour]
chase = 1.0
"""
    write("pred", pred.format(fp=1.0, ev=0.0, more="", m=n // 100))
    write("predev", pred.format(fp=1.0, ev=0.5, more="", m=n // 100))
    write("predcone", pred.format(fp=0.7, ev=0.3, more="", m=n // 100).replace(
        "radius = 9.0", "radius = 9.0\nview_angle = 240.0"))
    write("predboost", pred.format(fp=1.0, ev=0.0, more="flee_boost = 1.0\n", m=n // 100))
    write("obst", base + "\n[behaviour]\navoid = 1.0\n\n[obstacles]\nspheres = [" +
          spheres(n // 100, 0.5, 2.0) + "]\n")
    write("obstbox", base + "\n[behaviour]\navoid = 1.0\n\n[obstacles]\nspheres = [" +
          spheres(n // 200, 0.5, 4.0) + "]\nboxes = [" + boxes(n // 400, 1.0, 6.0) + "]\n")
    write("allbeh", base + f"""separation = 1.5

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
spheres = [{spheres(16, 2, 8)}]
boxes = [{boxes(8, 2, 10)}]
""")
EOF
fail=0
for s in "$dir"/*.toml; do
  name=$(basename "$s" .toml)
  for prec in float double; do
    for isa in scalar sse4.2 avx2 avx512; do
      for th in 1 2; do
        for b in old new; do
          eval bin=\$$b
          BOIDS_MAX_ISA=$isa "$bin" run --scenario "$s" --steps "$steps" --threads $th --quiet \
            --set engine.precision=$prec --out "$dir/$b.csv"
        done
        if cmp -s "$dir/old.csv" "$dir/new.csv"; then
          echo "same    $name $prec $isa threads=$th"
        else
          echo "DIFFERS $name $prec $isa threads=$th"
          fail=1
        fi
      done
    done
  done
done
exit $fail
