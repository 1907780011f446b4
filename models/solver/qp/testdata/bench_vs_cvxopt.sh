#!/bin/sh
# Side-by-side benchmark of models/solver/qp against cvxopt on RBF-kernel SVM
# duals (box + one equality) at n = 100, 400, 1200. Run from the module root:
#   sh models/solver/qp/testdata/bench_vs_cvxopt.sh
set -e
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
QP_BENCH_DIR="$dir" go test -count=1 -run '^TestBenchDump$' -v ./models/solver/qp | grep -E 'n=|ok|FAIL'
/usr/bin/python3 models/solver/qp/testdata/bench_cvxopt.py "$dir"
