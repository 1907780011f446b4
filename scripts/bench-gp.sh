#!/bin/sh
# bench-gp.sh — GPC vs GPC+ training time and EP sweeps for n = 100, 200, 400, 800
# (native; paper 002 reports GPC+ ≈ 2× GPC). Prints go test -bench output and
# the GPC+/GPC ratios of wall time, CPU time (steadier on a shared machine)
# and sweeps per size, and whether the issue's goal (GPC+ ≤ 2.5× GPC, judged
# on CPU time, on wall time under wasm) is met.
#   BenchmarkEP:  one EP run at fixed hyper-parameters (optimize=false)
#   BenchmarkFit: full training with type-II ML (gonum/optimize L-BFGS, no restarts)
# then BenchmarkPredictGrid (40 000-point grid, n = 70 and 400).
# Usage: scripts/bench-gp.sh [sizes-regexp] [benchtime]   e.g. scripts/bench-gp.sh '100|200' 2x
# GP_BENCH_WASM=1 runs the same benchmarks as WebAssembly under node
# (GOOS=js GOARCH=wasm, go_js_wasm_exec; benchtime 3x by default); there
# cpu-ms/op is not available and the ratios use wall time.
set -eu
cd "$(dirname "$0")/.."
sizes=${1:-100|200|400|800}
bt=${2:-1x}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ "${GP_BENCH_WASM:-}" = 1 ]; then
  # one iteration would time node's JIT warm-up in the first benchmark
  bt=${2:-3x}
  export GOOS=js GOARCH=wasm
  set -- -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
else
  set --
fi
go test "$@" -run '^$' -bench "^Benchmark(EP|Fit)$/^gpc(plus)?$/^n=($sizes)$" -benchtime "$bt" -timeout 60m ./models/gp/ | tee "$out"
go test "$@" -run '^$' -bench "^BenchmarkPredictGrid$" -benchtime 2x -timeout 60m ./models/gp/ | grep '^Benchmark' || true
echo
echo "GPC+ / GPC ratios (time, EP sweeps):"
awk '/^Benchmark/ {
  split($1, p, "/"); kind = p[1]; sub(/^Benchmark/, "", kind); m = p[2]; n = p[3]; sub(/-[0-9]+$/, "", n)
  id = kind SUBSEP m SUBSEP n; t[id] = $3; keys[kind SUBSEP n] = 1
  for (i = 4; i < NF; i++) { if ($(i+1) == "sweeps/op") s[id] = $i; if ($(i+1) == "cpu-ms/op") c[id] = $i }
}
END {
  for (k in keys) {
    split(k, q, SUBSEP)
    a = t[q[1] SUBSEP "gpc" SUBSEP q[2]]; b = t[q[1] SUBSEP "gpcplus" SUBSEP q[2]]
    sa = s[q[1] SUBSEP "gpc" SUBSEP q[2]]; sb = s[q[1] SUBSEP "gpcplus" SUBSEP q[2]]
    ca = c[q[1] SUBSEP "gpc" SUBSEP q[2]]; cb = c[q[1] SUBSEP "gpcplus" SUBSEP q[2]]
    r = (ca > 0 ? cb/ca : b/a)
    if (a > 0 && b > 0) printf "  %-4s %-6s GPC %8.3fs wall %8.3fs cpu %5s sweeps | GPC+ %8.3fs wall %8.3fs cpu %5s sweeps | wall ×%.2f cpu ×%.2f sweeps ×%.2f | goal ≤ 2.5×: %s\n", q[1], q[2], a/1e9, ca/1e3, sa, b/1e9, cb/1e3, sb, b/a, (ca > 0 ? cb/ca : 0), sb/sa, (r <= 2.5 ? "met" : "not met")
  }
}' "$out" | sort
