#!/bin/sh
# MASON's published flocking code against `boids run` on one core, at the ABM comparison's
# large model scaled to N birds (issue 14; docs/bench.md, "MASON, measured"). A documented
# manual check, not part of CI: it needs a JDK and two public source trees that are not
# Debian packages, so nothing here is downloaded or built by the project's build.
#
# usage: bench_mason.sh MASON_SRC COMPARISON BOIDS [ROUNDS] [STEPS] [N]
#   MASON_SRC   a checkout of github.com/eclab/mason (its mason/src/main/java is compiled)
#   COMPARISON  a checkout of github.com/JuliaDynamics/ABMFrameworksComparison
#               (Flocking/Mason/Flocking_large.java and Flocker_large.java are used as
#               published; only the bird count and the world side are scaled)
#   BOIDS       the `boids` binary
#   ROUNDS      interleaved rounds (default 3), STEPS steps timed (default 100), N birds
#               (default 102400; the side is L = 150 * sqrt(N / 400), the large model's density)
#
# Both programs run pinned to one core (taskset -c 0, the JVM's compiler and collector
# threads included) for 1 and 1 + STEPS steps; the difference / STEPS is the cost of a step
# without start-up (the JVM's warm-up inside the timed steps is part of MASON's cost, as in
# the comparison's own benchmark, which times 100 steps from the start). CPU time is
# user + sys of the whole process; wall time is printed too. Medians over the rounds.
set -eu
mason=$1; comp=$2; boids=$3; rounds=${4:-3}; steps=${5:-100}; n=${6:-102400}
side=$(awk -v n="$n" 'BEGIN { printf "%.1f", 150 * sqrt(n / 400) }')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/classes"
cp "$comp/Flocking/Mason/Flocking_large.java" "$comp/Flocking/Mason/Flocker_large.java" "$work/src/"
sed -i "s/this.width = 150.0;/this.width = $side;/; s/this.height = 150.0;/this.height = $side;/; \
s/this.numFlockers = 400;/this.numFlockers = $n;/" "$work/src/Flocking_large.java"
grep -q "numFlockers = $n;" "$work/src/Flocking_large.java" ||
  { echo "bench_mason.sh: could not scale Flocking_large.java" >&2; exit 2; }
javac -nowarn -sourcepath "$mason/mason/src/main/java" -d "$work/classes" "$work"/src/*.java 2>/dev/null
cat > "$work/abm.toml" <<EOF
# The ABM comparison's large model at $n birds (scenarios/abm_comparison.toml's rules).
[world]
dims = 2
size = $side
boundary = "wrap"
profile = "abm"

[engine]
precision = "double"

[boids]
count = $n
seed = 1

[rules]
radius = 15.0
separation_radius = 1.0
view_angle = 360.0
separation = 0.015
alignment = 0.05
cohesion = 0.03

[motion]
dt = 1.0
max_speed = 1.0
min_speed = 1.0
EOF

cpu() {  # command... -> "cpu_s wall_s"
  /usr/bin/time -f "%U %S %e" taskset -c 0 "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2, $3}'
}
mason_run() { cpu java -cp "$work/classes" Flocking_large -seed 42 -for "$1" -quiet; }
boids_run() { cpu "$boids" run --scenario "$work/abm.toml" --steps "$1" --threads 1 --quiet; }

echo "birds $n, side $side, $steps steps, $rounds rounds, one core (taskset -c 0)"
printf "%-6s %-6s %12s %12s\n" round prog "cpu ms/step" "wall ms/step"
for r in $(seq 1 "$rounds"); do
  for prog in mason boids; do
    a=$(${prog}_run 1); z=$(${prog}_run $((steps + 1)))
    echo "$a $z" | awk -v r="$r" -v p="$prog" -v s="$steps" \
      '{printf "%-6s %-6s %12.2f %12.2f\n", r, p, ($3 - $1) * 1000 / s, ($4 - $2) * 1000 / s}'
  done
done | tee "$work/rows"
median() {
  awk -v p="$1" '$2 == p {print $3}' "$work/rows" | sort -n |
    awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo "$(median mason) $(median boids)" |
  awk '{printf "median cpu ms/step: mason %.2f, boids %.2f, ratio %.1fx\n", $1, $2, $1 / $2}'
