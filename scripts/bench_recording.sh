#!/bin/bash
# The recording cost at 1M boids side by side (docs/bench.md, "Recording cost"): no
# recording, H5MD, H5MD with --record-compress 4 and BOIDSREC, interleaved, ROUNDS rounds.
# Prints one line per run: variant round wall_s steps ms_per_step file_bytes load_average.
# Usage: scripts/bench_recording.sh [BOIDS_PROGRAM] [WORKDIR] [ROUNDS]
set -euo pipefail
B=${1:-build/rel/boids}
D=${2:-$(mktemp -d)}
ROUNDS=${3:-3}
S=30
COMMON="--set boids.count=1000000 --set world.size=464 --threads 2 --steps $S"
for round in $(seq 1 "$ROUNDS"); do
  for v in none h5 h5c4 rec; do
    rm -f "$D/r.h5" "$D/r.xdmf" "$D/r.rec"
    case $v in
      none) extra=""; f="" ;;
      h5) extra="--every 10 --record $D/r.h5"; f=$D/r.h5 ;;
      h5c4) extra="--every 10 --record $D/r.h5 --record-compress 4"; f=$D/r.h5 ;;
      rec) extra="--every 10 --record $D/r.rec"; f=$D/r.rec ;;
    esac
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    out=$("$B" run $COMMON $extra)
    t1=$(date +%s.%N)
    ms=$(echo "$out" | sed -n 's/.*: \([0-9.]*\) ms\/step.*/\1/p')
    size=0
    if [ -n "$f" ]; then size=$(stat -c %s "$f"); fi
    echo "$v $round $(echo "$t1 - $t0" | bc) $S $ms $size $(cut -d' ' -f1 /proc/loadavg)"
  done
done
rm -f "$D/r.h5" "$D/r.xdmf" "$D/r.rec"
