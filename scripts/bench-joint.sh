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
export BENCH_N=${BENCH_N:-2000} BENCH_D=${BENCH_D:-16} BENCH_T=${BENCH_T:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if [ -n "${BENCH_SHIPPED:-}" ]; then
	BENCH_SHIPPED=$(cd "$BENCH_SHIPPED" && pwd); export BENCH_SHIPPED
	echo "# joint SVM benchmarks: shipped digits-tags (n=1200 d=256 T=10), RBF γ=1/d, C=1, min of $COUNT runs"
	BENCH_N=1200 BENCH_T=10
else
	echo "# joint SVM benchmarks: n=$BENCH_N d=$BENCH_D T=$BENCH_T, RBF γ=1/d, C=1, min of $COUNT runs"
fi
go test -run '^$' -bench 'JointTrain|SingleTagSVM|IndepTrain|JointPredict|IndepPredict' \
	-benchtime 3x -count "$COUNT" ./models/joint >"$out/bench.txt"
grep '^Benchmark' "$out/bench.txt" | awk '{sub(/-[0-9]+$/, "", $1); print $1, $3}' |
	sort -k1,1 -k2,2n | awk '!seen[$1]++' >"$out/min.txt"
cat "$out/min.txt" | awk '{printf "%-28s %10.1f ms\n", $1, $2/1e6}'
grep '^Benchmark' "$out/bench.txt" | awk '!seen[$1]++ && NF > 5 {sub(/-[0-9]+$/, "", $1); $2=""; $3=""; $4=""; print}'

get() { awk -v k="$1" '$1 == k {print $2}' "$out/min.txt"; }
g=$(get BenchmarkJointTrainGaussian); p=$(get BenchmarkJointTrainPoly); s=$(get BenchmarkSingleTagSVM)
i=$(get BenchmarkIndepTrain); jp=$(get BenchmarkJointPredict); ip=$(get BenchmarkIndepPredict)

# LIBSVM on the same data (one file per tag), timed in this run
lib1="" ; libT=""
if command -v svm-train >/dev/null 2>&1; then
	BENCH_DUMP="$out" go test -run '^TestDumpBenchData$' -count 1 ./models/joint >/dev/null
	. "$out/params"
	best1=""; bestT=""
	r=0
	while [ "$r" -lt "$COUNT" ]; do
		t0=$(date +%s%N)
		svm-train -q -s 0 -t 2 -g "$GAMMA" -c "$C" -e 0.001 -h 1 "$out/tag0.libsvm" "$out/m0" >/dev/null
		t1=$(date +%s%N)
		j=0
		while [ "$j" -lt "$T" ]; do
			svm-train -q -s 0 -t 2 -g "$GAMMA" -c "$C" -e 0.001 -h 1 "$out/tag$j.libsvm" "$out/m$j" >/dev/null
			j=$((j + 1))
		done
		t2=$(date +%s%N)
		d1=$((t1 - t0)); dT=$((t2 - t1))
		if [ -z "$best1" ] || [ "$d1" -lt "$best1" ]; then best1=$d1; fi
		if [ -z "$bestT" ] || [ "$dT" -lt "$bestT" ]; then bestT=$dT; fi
		r=$((r + 1))
	done
	lib1=$best1; libT=$bestT
	printf "%-28s %10.1f ms   (svm-train, one tag, incl. process start and file parsing)\n" "LIBSVM single tag" "$(echo "$lib1" | awk '{print $1/1e6}')"
	printf "%-28s %10.1f ms   (svm-train, %d tags)\n" "LIBSVM T tags" "$(echo "$libT" | awk '{print $1/1e6}')" "$T"
fi

echo
echo "# ratios"
awk -v g="$g" -v p="$p" -v s="$s" -v i="$i" -v jp="$jp" -v ip="$ip" -v T="$BENCH_T" -v l1="$lib1" -v lT="$libT" 'BEGIN {
	printf "joint (Gaussian) / single-tag SVM   = %.2f   (goal <= 2)\n", g / s
	printf "joint (polynomial) / single-tag SVM = %.2f   (goal <= 2)\n", p / s
	printf "independent (T=%d) / joint Gaussian = %.2f   (goal >= T/2 = %.1f)\n", T, i / g, T / 2
	printf "independent (T=%d) / joint poly     = %.2f   (goal >= T/2 = %.1f)\n", T, i / p, T / 2
	printf "prediction, independent / joint     = %.2f   (n=%s rows: joint %.1f ms, independent %.1f ms)\n", ip / jp, ENVIRON["BENCH_N"], jp / 1e6, ip / 1e6
	if (l1 != "") {
		printf "LIBSVM single tag / our single tag  = %.2f\n", l1 / s
		printf "LIBSVM T tags / our joint Gaussian  = %.2f\n", lT / g
	}
}'
