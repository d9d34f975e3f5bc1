#!/bin/sh
# Side-by-side CPU cost per step of issue 14's scenarios (docs/bench.md, "Every rule on the
# fast path"): for each binary and scenario, CPU seconds (user + sys, /usr/bin/time) of
# `boids run --threads 1` with 1 and 1+S steps; the difference / S is the step's CPU cost
# without start-up. CPU time, not wall time: the machine is shared.
#
# usage: fastpath_compare.sh DIR STEPS BINARY...   (DIR from make_fastpath_scenarios.py)
# FP_SCENARIOS="plain3d allbeh" limits the scenarios.
set -eu
dir=$1; steps=$2; shift 2
cpu() {  # binary scenario steps -> CPU seconds
  /usr/bin/time -f "%U %S" "$1" run --scenario "$2" --steps "$3" --threads 1 --quiet 2>&1 >/dev/null |
    tail -1 | awk '{print $1 + $2}'
}
printf "%-14s" scenario
for b in "$@"; do printf " %22s" "$(basename "$b") ms/step"; done
echo
for s in ${FP_SCENARIOS:-plain3d allbeh pred0 pred10k obst0 obst10k std2d abm2d_float std2d_double abm2d_double abm_mason}; do
  [ -f "$dir/$s.toml" ] || continue
  printf "%-14s" "$s"
  for b in "$@"; do
    a=$(cpu "$b" "$dir/$s.toml" 1)
    z=$(cpu "$b" "$dir/$s.toml" $((steps + 1)))
    printf " %22s" "$(echo "$a $z $steps" | awk '{printf "%.2f", ($2 - $1) * 1000 / $3}')"
  done
  echo
done
