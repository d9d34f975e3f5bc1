#!/usr/bin/env bash
# Runs `boids run ARGS...` once as a single process and once under `mpirun -np NP`, and
# requires every file written (--out, and with --all-outputs also --save, --record and
# --metrics) to be byte-identical. Registered by tests/CMakeLists.txt when BOIDS_MPI is on.
#
#   compare.sh BOIDS MPIEXEC NP CASE [--clumped N] [--all-outputs] [--h5md] -- RUN-ARGS...
set -euo pipefail
boids=$1 mpiexec=$2 np=$3 name=$4
shift 4
clumped=0 all=0 h5md=0
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --clumped) clumped=$2; shift 2 ;;
    --all-outputs) all=1; shift ;;
    --h5md) h5md=1; shift ;;
    *) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/boids-mpi-$name-np$np.XXXXXX")
trap 'rm -rf "$dir"' EXIT
extra=()
if ((clumped > 0)); then
  # N boids in three tight balls (radius 4) of a 3D box of 100: most slabs stay empty.
  awk -v n="$clumped" 'BEGIN {
    srand(7); print "id,x,y,z,vx,vy,vz";
    for (i = 0; i < n; i++) {
      c = i % 3; cx = 20 + 30 * c; cy = 50; cz = 15 + 35 * c;
      printf "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", i, cx + 8 * (rand() - 0.5),
        cy + 8 * (rand() - 0.5), cz + 8 * (rand() - 0.5), 2 * rand() - 1, 2 * rand() - 1,
        2 * rand() - 1 } }' > "$dir/init.csv"
  extra+=(--init "$dir/init.csv")
fi
# Each run writes into its own folder under the same file names (an .xdmf names its .h5).
mkdir "$dir/single" "$dir/dist"
outputs() {
  local tag=$1/run
  local o=(--out "$dir/$tag.csv")
  if ((all)); then
    o+=(--save "$dir/$tag.snap" --record "$dir/$tag.rec" --every 3 --metrics "$dir/$tag.metrics.csv"
      --metrics-every 4)
  fi
  if ((h5md)); then
    o+=(--record "$dir/$tag.h5" --every 4 --metrics "$dir/$tag.metrics.csv" --metrics-every 4)
  fi
  echo "${o[@]}"
}
# shellcheck disable=SC2046
"$boids" run --quiet "${extra[@]}" "$@" $(outputs single)
# Open MPI's hardware discovery (hwloc's GL plugin) opens X displays (:0, :1, ...), and dies
# with "XIO: fatal IO error" when that X server is busy or gone: the runs need no display.
unset DISPLAY
export HWLOC_COMPONENTS=-gl
# Open MPI's session directory under this test's own: ctest runs MPI tests side by side, and
# one mpirun that ends can remove the shared /tmp/ompi.HOST.UID while another creates its
# pid.N in it ("mkdir: No such file or directory").
export OMPI_MCA_orte_tmpdir_base="$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck disable=SC2046
"$mpiexec" --oversubscribe -np "$np" "$boids" run --quiet "${extra[@]}" "$@" $(outputs dist)
status=0
for f in "$dir"/single/*; do
  g=$dir/dist/$(basename "$f")
  if cmp -s "$f" "$g"; then
    echo "same: $(basename "$f") ($(wc -c < "$f") bytes)"
  else
    echo "DIFFERENT: $(basename "$f") ($np ranks)"
    cmp "$f" "$g" | head -1 || true
    status=1
  fi
done
exit $status
