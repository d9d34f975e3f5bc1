#!/usr/bin/env bash
# A world a distributed run cannot step must be refused with a `boids: error: KEY: ...` line
# and exit status 2 (mpirun passes on the first failing rank's status), with nothing written.
#
#   refused.sh BOIDS MPIEXEC NP KEY -- RUN-ARGS...
set -uo pipefail
boids=$1 mpiexec=$2 np=$3 key=$4
shift 5
dir=$(mktemp -d "${TMPDIR:-/tmp}/boids-mpi-refused.XXXXXX")
trap 'rm -rf "$dir"' EXIT
unset DISPLAY  # Open MPI's hwloc GL plugin would open X displays (compare.sh)
export HWLOC_COMPONENTS=-gl
# Open MPI's session directory under this test's own: ctest runs MPI tests side by side, and
# one mpirun that ends can remove the shared /tmp/ompi.HOST.UID while another creates its
# pid.N in it ("mkdir: No such file or directory").
export OMPI_MCA_orte_tmpdir_base="$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$mpiexec" --oversubscribe -np "$np" "$boids" run --quiet --out "$dir/out.csv" "$@" \
  > "$dir/stdout" 2> "$dir/stderr"
status=$?
cat "$dir/stderr"
if ((status != 2)); then echo "refused.sh: exit status $status, expected 2"; exit 1; fi
if ! grep -q "^boids: error: $key: " "$dir/stderr"; then
  echo "refused.sh: no line 'boids: error: $key: ...'"
  exit 1
fi
if [[ -e $dir/out.csv ]]; then echo "refused.sh: --out was written"; exit 1; fi
echo "refused on $np ranks: $key"
