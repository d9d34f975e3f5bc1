#!/usr/bin/env bash
# Topological neighbours: the `--out` of a reference binary (main's) and a new one must be
# byte-identical on every setup below, the new one under every instruction set and on 1 and 2
# threads. Usage: scripts/topo_same_bits.sh OLD/boids NEW/boids
set -u
old=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T="--set rules.neighbours=topological"
cases=(
  "3d-wrap-float-k7|--set boids.count=3000 --set world.size=46.4 $T --set rules.topological_k=7"
  "3d-wrap-double-k7-r55|--set boids.count=3000 --set world.size=46.4 --set engine.precision=double $T --set rules.radius=5.5"
  "2d-wrap-float-k7|--set world.dims=2 --set boids.count=3000 --set world.size=120 $T"
  "2d-wrap-double-k40|--set world.dims=2 --set boids.count=3000 --set world.size=120 --set engine.precision=double $T --set rules.topological_k=40"
  "3d-reflect-k5|--set boids.count=3000 --set world.size=46.4 --set world.boundary=reflect $T --set rules.topological_k=5"
  "3d-open-k12|--set boids.count=3000 --set world.size=46.4 --set world.boundary=open $T --set rules.topological_k=12"
  "2d-reflect-double-k1|--set world.dims=2 --set boids.count=3000 --set world.size=120 --set world.boundary=reflect --set engine.precision=double $T --set rules.topological_k=1"
  "3d-wrap-k40|--set boids.count=3000 --set world.size=46.4 $T --set rules.topological_k=40"
  "3d-wrap-k20-cone|--set boids.count=3000 --set world.size=46.4 $T --set rules.topological_k=20 --set rules.view_angle=270"
  "2d-open-k3-cone|--set world.dims=2 --set boids.count=3000 --set world.size=120 --set world.boundary=open $T --set rules.topological_k=3 --set rules.view_angle=200"
  "3d-wrap-double-k16-cone|--set boids.count=3000 --set world.size=46.4 --set engine.precision=double $T --set rules.topological_k=16 --set rules.view_angle=300"
  "3d-collapsed-k7|--set boids.count=600 --set world.size=20 $T --set rules.radius=9"
  "3d-pure-topo-k7|--set boids.count=1500 --set world.size=40 $T --set rules.radius=19.9"
  "3d-open-pure-topo-k7|--set boids.count=1500 --set world.size=40 --set world.boundary=open $T --set rules.radius=100"
  "3d-wrap-k7-closest|--set boids.count=3000 --set world.size=46.4 $T --set behaviour.closest_separation=1"
  "3d-abm-k7|--set world.profile=abm --set motion.min_speed=4 --set boids.count=3000 --set world.size=46.4 $T"
  "3d-sep-large-k9|--set boids.count=3000 --set world.size=46.4 $T --set rules.topological_k=9 --set rules.separation_radius=8"
  "vicsek-k7|--scenario scenarios/vicsek.toml --set boids.count=2000 $T"
  "couzin|--scenario scenarios/couzin.toml --set boids.count=400"
  # Radii about the k-th neighbour distance: the row pass's lane kernel (seam cells included).
  "3d-wrap-float-k7-r4|--set boids.count=3000 --set world.size=46.4 $T --set rules.radius=4"
  "3d-wrap-double-k12-r45-cone|--set boids.count=3000 --set world.size=46.4 --set engine.precision=double $T --set rules.topological_k=12 --set rules.radius=4.5 --set rules.view_angle=280"
  "2d-wrap-float-k15-r6|--set world.dims=2 --set boids.count=3000 --set world.size=120 $T --set rules.topological_k=15 --set rules.radius=6"
  "3d-reflect-k7-r4|--set boids.count=3000 --set world.size=46.4 --set world.boundary=reflect $T --set rules.radius=4"
  "3d-open-double-k5-r4|--set boids.count=3000 --set world.size=46.4 --set world.boundary=open --set engine.precision=double $T --set rules.topological_k=5 --set rules.radius=4"
  # Float on AVX2's pair lane kernel (4 boids x 2 candidates): a view cone, the minimum image
  # everywhere (a wrapped box too small for image shifts), an open 2D box.
  "3d-wrap-float-k12-r45-cone|--set boids.count=3000 --set world.size=46.4 $T --set rules.topological_k=12 --set rules.radius=4.5 --set rules.view_angle=280"
  "3d-wrap-small-float-k3-r25|--set boids.count=400 --set world.size=12 $T --set rules.topological_k=3 --set rules.radius=2.5 --set rules.separation_radius=1.5"
  "2d-open-float-k5-r5-cone|--set world.dims=2 --set boids.count=3000 --set world.size=120 --set world.boundary=open $T --set rules.topological_k=5 --set rules.radius=5 --set rules.view_angle=220"
)
fail=0 runs=0
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  # shellcheck disable=SC2086
  if ! "$old" run $args --steps 12 --threads 1 --quiet --out "$tmp/ref.csv" 2>"$tmp/err"; then
    echo "SETUP FAILED $name: $(cat "$tmp/err")"; fail=1; continue
  fi
  for isa in scalar sse4.2 avx2 avx512; do
    for th in 1 2; do
      # shellcheck disable=SC2086
      BOIDS_MAX_ISA=$isa "$new" run $args --steps 12 --threads $th --quiet --out "$tmp/new.csv"
      runs=$((runs + 1))
      if ! cmp -s "$tmp/ref.csv" "$tmp/new.csv"; then
        echo "DIFFER $name isa=$isa threads=$th"; fail=1
      fi
    done
  done
done
echo "$runs runs, $([ $fail = 0 ] && echo all byte-identical || echo FAILURES)"
exit $fail
