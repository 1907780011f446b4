#!/usr/bin/env bash
# bench-experiments.sh — wall time of the paper experiments with `lupi experiment NAME -j 1`
# against `-j 2` (A B A B, ROUNDS rounds), checks that both print identical results, and
# projects the speed-up on 2, 8 and 16 cores from the per-task times of a -j 1 run.
#
#   scripts/bench-experiments.sh                   # the four configurations below, 2 rounds
#   ROUNDS=3 ONLY=gpcplus scripts/bench-experiments.sh
#
# Configurations (the full protocols take from minutes to hours on 2 cores; these keep every
# stage of each plan and shrink its size):
#   jointsvm                            the full protocol (one split, 75 validation fits, 3 final)
#   gpcplus  -repeats 4                 the full protocol with 4 of its repeats
#   svm2plus -quick -repeats 10         the quick grid and sizes, 10 repeats
#   mpwtsvm  -quick -set tasks=6        the quick grid and sizes, 6 tasks of each dataset
#
# The projection: `lupi experiment … -project FILE -j P` replays the task times of a further
# -j 1 run (its -tasks file) on P workers with the runner's own scheduler on a simulated clock
# (models/experiment: a task starts once the tasks it needs have finished and a worker is free,
# in the order tasks became ready): the speed-up P workers would give if nothing else (the time outside tasks,
# memory bandwidth, turbo, the Go runtime's GC) changed. "2 cores" beside the measured -j 2
# shows what those other things cost here. "2 staged" and "8 staged" project the runner before
# dependency scheduling from the same task times: each plan stage's tasks in plan order on P
# workers, stages one after another.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2}
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lupi" ./cmd/lupi

configs=("jointsvm" "gpcplus -repeats 4" "svm2plus -quick -repeats 10" "mpwtsvm -quick -set tasks=6")
printf '%-34s %8s %8s %8s %9s %9s %9s %9s %9s  %s\n' "experiment" "-j 1 s" "-j 2 s" "speed-up" "2 cores" "8 cores" "16 cores" "2 staged" "8 staged" "same output"
for c in "${configs[@]}"; do
	name=${c%% *}
	if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then continue; fi
	j1=() j2=()
	for r in $(seq "$ROUNDS"); do
		for j in 1 2; do
			s=$(date +%s.%N)
			# shellcheck disable=SC2086
			"$work/lupi" experiment $c -j $j -timing=false -json "$work/$name-$j.json" >/dev/null
			t=$(echo "$(date +%s.%N) - $s" | bc)
			if [ $j = 1 ]; then j1+=("$t"); else j2+=("$t"); fi
		done
	done
	same=yes
	cmp -s "$work/$name-1.json" "$work/$name-2.json" || same=NO
	# one more -j 1 run with timings: the tasks' times for the projection
	# shellcheck disable=SC2086
	"$work/lupi" experiment $c -j 1 -tasks "$work/$name-1-tasks.json" >/dev/null
	proj=()
	for p in 2 8 16; do
		# shellcheck disable=SC2086
		proj+=("$("$work/lupi" experiment $c -j $p -project "$work/$name-1-tasks.json" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["speedup"])')")
	done
	"$PY" - "$c" "${j1[*]}" "${j2[*]}" "${proj[*]}" "$same" "$work/$name-1-tasks.json" <<'PYEOF'
import json, statistics, sys
conf, j1, j2, proj, same, tasks = sys.argv[1:]
j1 = [float(x) for x in j1.split()]
j2 = [float(x) for x in j2.split()]
p2, p8, p16 = (float(x) for x in proj.split())
stages = {}  # plan stage → its tasks' wall times
for x in json.load(open(tasks)):
    stages.setdefault(x["stage"], []).append(x["timing"]["task_wall"])

def makespan(times, workers):
    # plan order, each task on the first free worker
    load = [0.0] * workers
    for d in times:
        i = load.index(min(load))
        load[i] += d
    return max(load)

total = sum(map(sum, stages.values()))
s2, s8 = (total / sum(makespan(s, p) for s in stages.values()) for p in (2, 8))
m1, m2 = statistics.median(j1), statistics.median(j2)
print(f"{conf:34s} {m1:8.1f} {m2:8.1f} {m1 / m2:7.2f}× {p2:8.2f}× {p8:8.1f}× {p16:8.1f}× {s2:8.2f}× {s8:8.1f}×  {same}")
PYEOF
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); -j 1 and -j 2 in turn, ROUNDS=$ROUNDS, medians; projections from a further -j 1 run's task times"
