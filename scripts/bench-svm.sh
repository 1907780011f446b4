#!/usr/bin/env bash
# bench-svm.sh — times LUPI Lab's native SMO (the `lupi` CLI) against LIBSVM's
# svm-train on the same files in one run, and prints the ratio per n.
#
#   scripts/bench-svm.sh                 # n = 1000 5000 20000
#   SIZES="1000 5000" REPEATS=3 scripts/bench-svm.sh
#   BASE=/path/to/older/lupi scripts/bench-svm.sh   # also time another build (before/after a change)
#
# Data: a noisy 10-D binary problem (y = sign(x1 + x2·x3 + sin 2x4 + x5²/2 − ½
# + 0.8·noise), x ~ N(0, I)), generated with a fixed seed (42) and written as
# LIBSVM files; both programs read the same file. Settings are equal: RBF
# γ = 0.1, C = 1, eps = 1e-3, shrinking on, 100 MB kernel cache, single
# precision cache rows (LIBSVM's Qfloat; our "precision=single" default).
# Each timing is the best of REPEATS runs of the whole process (read the file,
# train; LIBSVM also writes its model file, we skip scoring the training set).
# Both wall-clock and CPU (user+sys) times are reported: on a shared, loaded machine
# the CPU ratio is the reliable one. Goal: ratio ≤ 1.2.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 5000 20000"}
REPEATS=${REPEATS:-2}
GAMMA=0.1 C=1 EPS=0.001 CACHE=100
command -v svm-train >/dev/null || { echo "bench-svm: svm-train not found (apt-get install libsvm-tools)" >&2; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "bench-svm: $PY not found (needed to generate the data)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lupi" ./cmd/lupi

gen() { # n file
	"$PY" - "$1" "$2" <<'EOF'
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(42)
X = rng.normal(size=(n, 10))
f = X[:, 0] + X[:, 1] * X[:, 2] + np.sin(2 * X[:, 3]) + 0.5 * X[:, 4] ** 2 - 0.5 + 0.8 * rng.normal(size=n)
y = np.where(f > 0, 1, -1)
with open(path, "w") as out:
    for xi, yi in zip(X, y):
        out.write("%+d " % yi + " ".join("%d:%.8g" % (j + 1, v) for j, v in enumerate(xi)) + "\n")
EOF
}

# best wall / CPU (user+sys, from getrusage: microsecond resolution) time of
# REPEATS runs of a command; stdout of the last run in $work/out
timeit() {
	"$PY" - "$REPEATS" "$work/out" "$@" <<'EOF'
import resource, subprocess, sys, time
reps, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
bw = bc = float("inf")
for _ in range(reps):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out, "w") as f:
        subprocess.run(cmd, stdout=f, check=True)
    w = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    bw, bc = min(bw, w), min(bc, c)
print("%.3f %.3f" % (bw, bc))
EOF
}

BASE=${BASE:-}
echo "bench-svm: RBF gamma=$GAMMA C=$C eps=$EPS cache=${CACHE}MB, best of $REPEATS; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$BASE" ] && echo "bench-svm: also timing BASE=$BASE (cpu_base; ours/base is the CPU ratio of this build to it)"
printf "%7s | %9s %9s | %9s %9s | %7s %7s | %8s %8s | %s\n" n wall_lib wall_ours cpu_lib cpu_ours wall× cpu× nSV_lib nSV_ours "objective lib / ours"
for n in $SIZES; do
	f="$work/n$n.libsvm"
	gen "$n" "$f"
	read -r lw lu < <(timeit svm-train -s 0 -t 2 -g $GAMMA -c $C -e $EPS -m $CACHE -h 1 "$f" "$work/model")
	lobj=$(sed -n 's/^obj = \([^,]*\),.*/\1/p' "$work/out")
	lsv=$(sed -n 's/^nSV = \([0-9]*\),.*/\1/p' "$work/out")
	args=(fit -model svm -train "$f" -set kernel=rbf -set gamma=$GAMMA -set C=$C -set eps=$EPS
		-set cache=$CACHE -set shrinking=true -set precision=single -train-metrics=false)
	read -r ow ou < <(timeit "$work/lupi" "${args[@]}")
	oobj=$(sed -n 's/^ *"objective": \([^,]*\),*/\1/p' "$work/out")
	osv=$(sed -n 's/^ *"n_support": \([0-9]*\),*/\1/p' "$work/out")
	rw=$(awk -v a="$ow" -v b="$lw" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "n/a" }')
	ru=$(awk -v a="$ou" -v b="$lu" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "n/a" }')
	printf "%7s | %9s %9s | %9s %9s | %7s %7s | %8s %8s | %s / %.6f\n" "$n" "$lw" "$ow" "$lu" "$ou" "$rw" "$ru" "$lsv" "$osv" "$lobj" "$oobj"
	if [ -n "$BASE" ]; then
		read -r bw bu < <(timeit "$BASE" "${args[@]}")
		bobj=$(sed -n 's/^ *"objective": \([^,]*\),*/\1/p' "$work/out")
		printf "%7s | base: wall %s cpu %s, objective %.6f | ours/base: wall %s cpu %s\n" "$n" "$bw" "$bu" "$bobj" \
			"$(awk -v a="$ow" -v b="$bw" 'BEGIN{ printf "%.2f", a/b }')" "$(awk -v a="$ou" -v b="$bu" 'BEGIN{ printf "%.2f", a/b }')"
	fi
done
