#!/bin/bash
# Strong scaling of the distributed run on this machine (docs/distributed.md, "Measured here"):
# for 1M and 4M boids at the default density (3D wrap, float), side by side and interleaved
# over ROUNDS rounds: the plain single process on 1 and 2 threads, and mpirun -np 1 and -np 2
# with one thread per rank. Prints one line per run:
#   count variant round ms_per_step cpu_ms_per_rank largest_cpu_ms ghost_B migrant_B load
# (ms_per_step: the wall time per step that `boids run` prints, the first step included;
# the cpu and byte columns: the mpi summary line, first step left out; "-" for the plain runs).
# Usage: scripts/bench_mpi.sh [BOIDS_PROGRAM] [ROUNDS] [STEPS]
set -euo pipefail
B=${1:-build/rel/boids}
ROUNDS=${2:-3}
S=${3:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl
MPIRUN="mpirun --oversubscribe --bind-to none"
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }
for count in 1000000 4000000; do
  size=$(echo "e(l($count / 0.01) / 3)" | bc -l | xargs printf "%.2f")
  A="--set boids.count=$count --set world.size=$size --steps $S"
  for round in $(seq 1 "$ROUNDS"); do
    for v in single-t1 single-t2 mpi-np1 mpi-np2; do
      # shellcheck disable=SC2086
      case $v in
        single-t1) out=$("$B" run $A --threads 1) ;;
        single-t2) out=$("$B" run $A --threads 2) ;;
        mpi-np1) out=$($MPIRUN -np 1 "$B" run $A --threads 1) ;;
        mpi-np2) out=$($MPIRUN -np 2 "$B" run $A --threads 1) ;;
      esac
      ms=$(echo "$out" | sed -n 's/.*: \([0-9.]*\) ms\/step.*/\1/p' | head -1)
      cpu=- big=- ghost=- mig=-
      if [[ $v == mpi-* ]]; then
        line=$(echo "$out" | grep '^mpi:')
        cpu=$(echo "$line" | field "outside MPI")
        big=$(echo "$line" | sed -n 's/.*outside MPI [0-9.]* (largest \([0-9.]*\)).*/\1/p')
        ghost=$(echo "$line" | field "ghosts")
        mig=$(echo "$line" | field "migrants")
      fi
      echo "$count $v $round $ms $cpu $big $ghost $mig $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
