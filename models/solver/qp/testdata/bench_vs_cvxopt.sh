#!/bin/sh
# Side-by-side benchmark of models/solver/qp against cvxopt on RBF-kernel SVM
# duals (box + one equality) at n = 100, 400, 1200: BenchmarkSVMLike (three
# runs of one solve; it writes the problems it solves) and then cvxopt on the
# same problems. Run from the module root:
#   sh models/solver/qp/testdata/bench_vs_cvxopt.sh
set -e
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -run '^$' -bench '^BenchmarkSVMLike$' -benchtime 1x -count 3 ./models/solver/qp -args -qp.dump="$dir" >"$dir/go.txt"
grep -E '^Benchmark|^ok|FAIL' "$dir/go.txt"
/usr/bin/python3 models/solver/qp/testdata/bench_cvxopt.py "$dir"
