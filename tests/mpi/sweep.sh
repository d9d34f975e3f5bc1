#!/usr/bin/env bash
# `mpirun -np NP boids sweep` must write the single-process sweep's CSV and SVG byte for byte,
# also when resuming a sweep cut short. Registered by tests/CMakeLists.txt when BOIDS_MPI is on.
#
#   sweep.sh BOIDS MPIEXEC NP
set -euo pipefail
boids=$1 mpiexec=$2 np=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/boids-mpi-sweep-np$np.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# Open MPI's hardware discovery (hwloc's GL plugin) opens X displays (:0, :1, ...), and dies
# with "XIO: fatal IO error" when that X server is busy or gone: the runs need no display.
unset DISPLAY
export HWLOC_COMPONENTS=-gl
# Open MPI's session directory under this test's own: ctest runs MPI tests side by side, and
# one mpirun that ends can remove the shared /tmp/ompi.HOST.UID while another creates its
# pid.N in it ("mkdir: No such file or directory").
export OMPI_MCA_orte_tmpdir_base="$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2054 # the comma is part of a --vary value
args=(sweep --quiet --set boids.count=300 --vary rules.alignment=0:2:4 --vary rules.cohesion=0.1,0.3
  --repeats 2 --steps 30 --measure-from 10 --measure-every 5)
"$boids" "${args[@]}" --out "$dir/single.csv" --plot "$dir/single.svg"
"$mpiexec" --oversubscribe -np "$np" "$boids" "${args[@]}" --out "$dir/dist.csv" --plot "$dir/dist.svg"
cmp "$dir/single.csv" "$dir/dist.csv"
cmp "$dir/single.svg" "$dir/dist.svg"
# A sweep cut after 5 rows, finished by NP ranks.
head -6 "$dir/single.csv" > "$dir/resumed.csv"
"$mpiexec" --oversubscribe -np "$np" "$boids" "${args[@]}" --out "$dir/resumed.csv" --resume
cmp "$dir/single.csv" "$dir/resumed.csv"
echo "same: $(($(wc -l < "$dir/single.csv") - 1)) rows on $np ranks"
