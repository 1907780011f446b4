#!/bin/sh
# bench-grid.sh — the full 200×200 decision map of every registered model at its
# default settings on its default generated data (run.DefaultGenerator, the
# generator's default size and noise, 70 % training rows, standard scaling):
# viz.Evaluate / EvaluateViews / EvaluateTags with every layer (twin planes, GP
# mean/variance/probability/entropy, per-view and per-tag maps). The issue's goal
# (in Chromium): ≤ 50 ms for SVM-type models, ≤ 150 ms for the others.
# Usage: scripts/bench-grid.sh [model-regexp] [benchtime]
# GRID_BENCH_WASM=1 runs the same benchmark as WebAssembly under node
# (GOOS=js GOARCH=wasm, go_js_wasm_exec; wall time only, 5 iterations by
# default so that node's JIT warm-up weighs little).
set -eu
cd "$(dirname "$0")/.."
models=${1:-.*}
bt=${2:-10x}
if [ "${GRID_BENCH_WASM:-}" = 1 ]; then
  bt=${2:-5x}
  export GOOS=js GOARCH=wasm
  set -- -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
else
  set --
fi
go test "$@" -run '^$' -bench "^BenchmarkFullMap$/^($models)\$" -benchtime "$bt" -timeout 60m ./models/viz/ |
  awk '/^BenchmarkFullMap/ {
    split($1, p, "/"); m = p[2]; sub(/-[0-9]+$/, "", m)
    cpu = ""; for (i = 4; i < NF; i++) if ($(i+1) == "cpu-ms/op") cpu = sprintf("%8.1f ms cpu", $i)
    printf "  %-10s %9.1f ms wall %s\n", m, $3/1e6, cpu; next }
  { print }'
