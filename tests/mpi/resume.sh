#!/usr/bin/env bash
# A snapshot written by NP ranks continues on M ranks (and on one process) to the bytes of an
# uninterrupted single-process run. Registered by tests/CMakeLists.txt when BOIDS_MPI is on.
#
#   resume.sh BOIDS MPIEXEC NP M RUN-ARGS...
set -euo pipefail
boids=$1 mpiexec=$2 np=$3 m=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/boids-mpi-resume-np$np.XXXXXX")
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
"$boids" run --quiet "$@" --steps 20 --out "$dir/single.csv" --save "$dir/single.snap"
"$mpiexec" --oversubscribe -np "$np" "$boids" run --quiet "$@" --steps 8 --save "$dir/half.snap"
"$mpiexec" --oversubscribe -np "$m" "$boids" run --quiet --load "$dir/half.snap" --steps 12 \
  --out "$dir/dist.csv" --save "$dir/dist.snap"
"$boids" run --quiet --load "$dir/half.snap" --steps 12 --out "$dir/one.csv"
cmp "$dir/single.csv" "$dir/dist.csv"
cmp "$dir/single.snap" "$dir/dist.snap"
cmp "$dir/single.csv" "$dir/one.csv"
echo "same: $np ranks -> snapshot -> $m ranks"
