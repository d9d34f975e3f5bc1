#!/usr/bin/env bash
# A world the distributed mode cannot step yet must be refused on every rank alike: exit
# status 2 and one line naming the key, before any step. Registered by tests/CMakeLists.txt
# when BOIDS_MPI is on.
#
#   refuse.sh BOIDS MPIEXEC KEY RUN-ARGS...
set -euo pipefail
boids=$1 mpiexec=$2 key=$3
shift 3
unset DISPLAY  # see compare.sh: Open MPI's hwloc probes X displays otherwise
export HWLOC_COMPONENTS=-gl
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
err=$(mktemp)
trap 'rm -f "$err"' EXIT
status=0
"$mpiexec" --oversubscribe -np 2 "$boids" run --quiet --steps 2 "$@" 2>"$err" >/dev/null || status=$?
lines=$(grep -c "^boids: error: " "$err" || true)
if [[ $status -ne 2 ]] || ! grep -q "^boids: error: .*$key: " "$err" || [[ $lines -ne 1 ]]; then
  echo "expected exit 2 and one 'boids: error: ... $key: ...' line; got exit $status:" >&2
  cat "$err" >&2
  exit 1
fi
echo "refused: $(cat "$err")"
