#!/bin/sh
# Runs every dataset-reader fuzz test in turn, each for $FUZZTIME (default 10m).
# Usage: scripts/fuzz.sh            (make fuzz)
#        FUZZTIME=10s scripts/fuzz.sh   (the short run of make test)
# FUZZPARALLEL sets -parallel (default 1: the machine is shared).
set -eu
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-10m}"
FUZZPARALLEL="${FUZZPARALLEL:-1}"
for target in FuzzReadCSV FuzzReadLIBSVM FuzzReadARFF; do
	echo "== $target for $FUZZTIME"
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZPARALLEL" ./models/data/
done
