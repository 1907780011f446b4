#!/bin/sh
# Runs every fuzz test in turn — the dataset readers (models/data) and the
# saved-model loader (models/all: model.Load and Predict on what it loads) —
# each for $FUZZTIME (default 10m; the loader for $FUZZTIME_MODEL, default
# $FUZZTIME).
# Usage: scripts/fuzz.sh            (make fuzz)
#        FUZZTIME=150000x FUZZTIME_MODEL=30000x scripts/fuzz.sh   (the short run of make test)
# FUZZPARALLEL sets -parallel (default 1: the machine is shared).
# FUZZMINIMIZE sets -fuzzminimizetime (default 1000x): Go's default of 60 s
# per newly interesting input stalls the run (0 execs/sec for up to a
# minute at a time, golang/go#48820), while a count bounds each
# minimisation to that many executions.
set -eu
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-10m}"
FUZZTIME_MODEL="${FUZZTIME_MODEL:-$FUZZTIME}"
FUZZPARALLEL="${FUZZPARALLEL:-1}"
FUZZMINIMIZE="${FUZZMINIMIZE:-1000x}"
run() { # package target time
	echo "== $2 for $3"
	go test -run '^$' -fuzz "^$2\$" -fuzztime "$3" -fuzzminimizetime "$FUZZMINIMIZE" -parallel "$FUZZPARALLEL" "$1"
}
for target in FuzzReadCSV FuzzReadLIBSVM FuzzReadARFF; do
	run ./models/data/ "$target" "$FUZZTIME"
done
run ./models/all/ FuzzLoadModel "$FUZZTIME_MODEL"
