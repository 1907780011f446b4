#!/bin/sh
# Time per task of each multi-view model (SVM-2K, MvTSVM, PSVM-2V, MCPK) on
# one-vs-one tasks of the shipped two-view data, with the same SVM-2K dual
# solved by cvxopt (and libsvm's SVC on view A alone) timed side by side.
#
#   scripts/bench-multiview.sh            # n = 50, 100, 200 per task
#   MV_BENCH_PER_CLASS=100 scripts/bench-multiview.sh
#
# Prints Go benchmark lines (ns/op = one fit), then per task: cvxopt's
# objective and time for SVM-2K against ours, and the ratio of the times.
# Timings are CPU-contended on a shared machine: compare ratios from one run.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# MCPK speed with default parameters on twoview2d (n = 70, 140, 200): time
# per fit, largest gap between progress callbacks, objective, steps.
# BENCH_WASM=1 also runs n = 70 under GOOS=js GOARCH=wasm (Node).
echo "== MCPK speed, twoview2d, default parameters (native)"
go test -run '^$' -bench MCPKSpeed -benchtime 1x -count=1 ./models/multiview | grep -E '^Benchmark|objective'
if [ -n "${BENCH_WASM:-}" ]; then
	echo "== the same in wasm (n = 70)"
	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench 'MCPKSpeed/n=70$' -benchtime 1x -count=1 ./models/multiview | grep -E '^Benchmark|objective'
fi
echo

echo "== Go: one fit per model and task (go test -bench BenchmarkFit ./models/multiview)"
set -- -mv.export="$tmp"
if [ -n "${MV_BENCH_PER_CLASS:-}" ]; then set -- "$@" -mv.perclass="$MV_BENCH_PER_CLASS"; fi
go test -run '^$' -bench BenchmarkFit -benchtime 1x ./models/multiview -args "$@" | tee "$tmp/go.txt" | grep -E '^Benchmark|^ok'

echo
echo "== Reference: SVM-2K dual by cvxopt (Python) on the same tasks; libsvm SVC on view A"
/usr/bin/python3 models/multiview/testdata/svm2k_cvxopt.py "$tmp" > "$tmp/ref.txt"

echo
printf '%-40s %12s %12s %8s %16s %16s\n' task ours_s cvxopt_s ratio ours_obj cvxopt_obj
while IFS="$(printf '\t')" read -r name cobj oobj status cs ss; do
	n=${name##*_n=}
	task=${name%_n=*}
	ns=$(grep -E "^BenchmarkFit/svm2k/${task}/n=${n}-" "$tmp/go.txt" | awk '{print $3}')
	ours=$(awk -v ns="$ns" 'BEGIN{printf "%.4f", ns/1e9}')
	c=${cs#cvxopt_s=}
	ratio=$(awk -v a="$c" -v b="$ours" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "-" }')
	printf '%-40s %12s %12s %8s %16s %16s\n' "$name" "$ours" "$c" "$ratio" "${oobj#ours_obj=}" "${cobj#cvxopt_svm2k_obj=}"
done < "$tmp/ref.txt"
echo "(ratio = cvxopt time / our time for the same SVM-2K dual; > 1 means we are faster)"
