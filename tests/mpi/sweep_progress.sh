#!/usr/bin/env bash
# `mpirun -np 3 boids sweep` on a terminal: rank 0's progress bar and summary line count every
# rank's runs (mpi::post_progress / poll_progress), not rank 0's alone. `script` gives mpirun a
# pseudo-terminal, as a user's shell would. Registered by tests/CMakeLists.txt (BOIDS_MPI).
#
#   sweep_progress.sh BOIDS MPIEXEC
set -euo pipefail
boids=$1 mpiexec=$2
command -v script > /dev/null || { echo "skipped: no script(1)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/boids-mpi-progress.XXXXXX")
trap 'rm -rf "$dir"' EXIT
unset DISPLAY
export HWLOC_COMPONENTS=-gl
# Open MPI's session directory under this test's own: ctest runs MPI tests side by side, and
# one mpirun that ends can remove the shared /tmp/ompi.HOST.UID while another creates its
# pid.N in it ("mkdir: No such file or directory").
export OMPI_MCA_orte_tmpdir_base="$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 12 runs over 3 ranks: rank 0 makes 4 of them.
cmd="$mpiexec --oversubscribe -np 3 $boids sweep --set boids.count=200"
cmd+=" --vary rules.alignment=0:2:6 --repeats 2 --steps 400 --threads 1 --out $dir/s.csv"
script -qec "$cmd" "$dir/log" > /dev/null
tr '\r' '\n' < "$dir/log" > "$dir/lines"
grep -q 'sweep \[#*\] 12/12 runs' "$dir/lines" || { echo "no bar reached 12/12:"; tail -5 "$dir/lines"; exit 1; }
grep -q '^sweep: 12 runs (0 resumed) in .* of 3 ranks' "$dir/lines" || { echo "summary:"; grep '^sweep:' "$dir/lines"; exit 1; }
# Never more than the runs that exist, and the count never goes back.
awk '/runs, / { split($0, a, "] "); split(a[2], b, "/"); n = b[1] + 0;
  if (n < last || n > 12) { print "bad count " n " after " last; exit 1 } last = n }' "$dir/lines"
[ "$(wc -l < "$dir/s.csv")" -eq 13 ]
echo "progress of 3 ranks reduced on rank 0: $(grep -c 'runs, ' "$dir/lines") redraws"
