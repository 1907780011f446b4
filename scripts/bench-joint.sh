#!/bin/sh
# bench-joint.sh — paper 003's efficiency claims, measured side by side in one run:
#   joint SVM training time vs one single-tag SVM on the same inputs (goal ≤ 2×),
#   T independent SVMs vs the joint SVM (goal ≥ T/2 times slower), prediction times,
#   and LIBSVM's svm-train (Debian libsvm-tools) on the same single-tag / T-tag problems
#   as an outside reference.
# Sizes: BENCH_N (2000), BENCH_D (16), BENCH_T (10) for synthetic data, or BENCH_SHIPPED=web/datasets
# for the shipped digits-tags set (1200 × 256, 10 tags); COUNT repeats (5), the minimum is kept
# (the machine is shared, so the minimum is the least disturbed run).
# Usage: scripts/bench-joint.sh        (from the repository root)
set -eu
cd "$(dirname "$0")/.."
COUNT=${COUNT:-5}
BENCH_N=${BENCH_N:-2000} BENCH_D=${BENCH_D:-16} BENCH_T=${BENCH_T:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if [ -n "${BENCH_SHIPPED:-}" ]; then
	BENCH_SHIPPED=$(cd "$BENCH_SHIPPED" && pwd)
	echo "# joint SVM benchmarks: shipped digits-tags (n=1200 d=256 T=10), RBF γ=1/d, C=1, min of $COUNT runs"
	BENCH_N=1200 BENCH_T=10
	set -- -joint.shipped="$BENCH_SHIPPED"
else
	echo "# joint SVM benchmarks: n=$BENCH_N d=$BENCH_D T=$BENCH_T, RBF γ=1/d, C=1, min of $COUNT runs"
	set -- -joint.n="$BENCH_N" -joint.d="$BENCH_D" -joint.t="$BENCH_T"
fi
# LIBSVM's svm-train on the same data (one file per tag), timed in the same
# run as a whole process (start, file parsing, training, model file)
benches='JointTrain|SingleTagSVM|IndepTrain|JointPredict|IndepPredict'
if command -v svm-train >/dev/null 2>&1; then benches="$benches|LIBSVM"; fi
go test -run '^$' -bench "$benches" -benchtime 3x -count "$COUNT" ./models/joint -args "$@" >"$out/bench.txt"
grep '^Benchmark' "$out/bench.txt" | awk '{sub(/-[0-9]+$/, "", $1); print $1, $3}' |
	sort -k1,1 -k2,2n | awk '!seen[$1]++' >"$out/min.txt"
grep -v LIBSVM "$out/min.txt" | awk '{printf "%-28s %10.1f ms\n", $1, $2/1e6}'
grep '^Benchmark' "$out/bench.txt" | grep -v LIBSVM | awk '!seen[$1]++ && NF > 5 {sub(/-[0-9]+$/, "", $1); $2=""; $3=""; $4=""; print}'

get() { awk -v k="$1" '$1 == k {print $2}' "$out/min.txt"; }
g=$(get BenchmarkJointTrainGaussian); p=$(get BenchmarkJointTrainPoly); s=$(get BenchmarkSingleTagSVM)
i=$(get BenchmarkIndepTrain); jp=$(get BenchmarkJointPredict); ip=$(get BenchmarkIndepPredict)
lib1=$(get BenchmarkLIBSVMSingleTag); libT=$(get BenchmarkLIBSVMIndep)
if [ -n "$lib1" ]; then
	printf "%-28s %10.1f ms   (svm-train, one tag, incl. process start and file parsing)\n" "LIBSVM single tag" "$(echo "$lib1" | awk '{print $1/1e6}')"
	printf "%-28s %10.1f ms   (svm-train, %d tags)\n" "LIBSVM T tags" "$(echo "$libT" | awk '{print $1/1e6}')" "$BENCH_T"
fi

echo
echo "# ratios"
awk -v g="$g" -v p="$p" -v s="$s" -v i="$i" -v jp="$jp" -v ip="$ip" -v T="$BENCH_T" -v N="$BENCH_N" -v l1="$lib1" -v lT="$libT" 'BEGIN {
	printf "joint (Gaussian) / single-tag SVM   = %.2f   (goal <= 2)\n", g / s
	printf "joint (polynomial) / single-tag SVM = %.2f   (goal <= 2)\n", p / s
	printf "independent (T=%d) / joint Gaussian = %.2f   (goal >= T/2 = %.1f)\n", T, i / g, T / 2
	printf "independent (T=%d) / joint poly     = %.2f   (goal >= T/2 = %.1f)\n", T, i / p, T / 2
	printf "prediction, independent / joint     = %.2f   (n=%s rows: joint %.1f ms, independent %.1f ms)\n", ip / jp, N, jp / 1e6, ip / 1e6
	if (l1 != "") {
		printf "LIBSVM single tag / our single tag  = %.2f\n", l1 / s
		printf "LIBSVM T tags / our joint Gaussian  = %.2f\n", lT / g
	}
}'
