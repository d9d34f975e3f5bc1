#!/usr/bin/env bash
# Flock metrics: the `--metrics` file (and `--out`) of a reference binary (main's, 1 thread) and a
# new one must be byte-identical on every setup below, the new one under every instruction set
# and on 1 and 2 threads. Usage: scripts/metrics_same_bits.sh OLD/boids NEW/boids
set -u
old=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N="--set boids.count=20000 --set world.size=120"
P="--set engine.precision=double"
cases=(
  "3d-wrap-float|$N"
  "3d-wrap-double|$N $P"
  "3d-reflect|$N --set world.boundary=reflect"
  "3d-open|$N --set world.boundary=open"
  "2d-wrap|--set world.dims=2 --set boids.count=20000 --set world.size=600"
  "2d-reflect-double|--set world.dims=2 --set boids.count=20000 --set world.size=600 --set world.boundary=reflect $P"
  "3d-cone-230|$N --set rules.view_angle=230"
  "2d-open-cone-200-double|--set world.dims=2 --set boids.count=20000 --set world.size=600 --set world.boundary=open --set rules.view_angle=200 $P"
  "box30-r9|--set boids.count=2000 --set world.size=30 --set rules.radius=9"
  "box36-r6|--set boids.count=2000 --set world.size=36 --set rules.radius=6"
  "box30-r9-reflect|--set boids.count=2000 --set world.size=30 --set rules.radius=9 --set world.boundary=reflect"
  "2d-box-r9|--set world.dims=2 --set boids.count=400 --set world.size=30 --set rules.radius=9"
  "pred40-kind0|$N --set predators.count=40"
  "pred40-kind1|$N --set predators.count=40 --metrics-kind 1"
  "cluster-engine|$N --set engine.kind=cluster"
  "cells-per-radius-2|$N --set engine.cells_per_radius=2"
  "naive|--set boids.count=3000 --set world.size=65 --set engine.kind=naive"
  "vicsek|--scenario scenarios/vicsek.toml"
  "couzin|--scenario scenarios/couzin.toml"
  "topological|$N --set rules.neighbours=topological"
  "sparse-2000-300|--set boids.count=2000 --set world.size=300"
  "sparse-2d|--set world.dims=2 --set boids.count=3000 --set world.size=2000 --set world.boundary=reflect"
  "dense-3d|--set boids.count=20000 --set world.size=40 --set rules.radius=4"
)
fail=0 runs=0
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  # shellcheck disable=SC2086
  if ! "$old" run $args --steps 20 --threads 1 --quiet --metrics "$tmp/ref.csv" \
      --metrics-every 7 --out "$tmp/ref-out.csv" 2>"$tmp/err"; then
    echo "SETUP FAILED $name: $(cat "$tmp/err")"; fail=1; continue
  fi
  for isa in scalar sse4.2 avx2 avx512; do
    for th in 1 2; do
      # shellcheck disable=SC2086
      BOIDS_MAX_ISA=$isa "$new" run $args --steps 20 --threads $th --quiet --metrics "$tmp/new.csv" \
        --metrics-every 7 --out "$tmp/new-out.csv"
      runs=$((runs + 1))
      if ! cmp -s "$tmp/ref.csv" "$tmp/new.csv" || ! cmp -s "$tmp/ref-out.csv" "$tmp/new-out.csv"; then
        echo "DIFFER $name isa=$isa threads=$th"; fail=1
      fi
    done
  done
done
echo "$runs runs, $([ $fail = 0 ] && echo all byte-identical || echo FAILURES)"
