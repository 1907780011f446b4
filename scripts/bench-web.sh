#!/usr/bin/env bash
# bench-web.sh — LUPI Lab's browser budgets (`make bench-web`, which first
# builds both wasm builds with BROTLI_Q=11), printed as tables:
#   1. the browser benchmarks of browsertest/benchweb_test.go, in headless
#      Chromium on localhost (BENCH, a regexp after "BenchmarkWeb", picks
#      some: Maps, LongTasks, Load, Lighthouse, Pool, Latency):
#        LUPI_BROWSER_TESTS=1 go test -run '^$' -bench '^BenchmarkWeb' -benchtime 1x ./browsertest
#      Lighthouse (npm, pinned in scripts/benchweb/package.json) runs with
#      Debian's chromium (CHROME_PATH);
#   2. LUPI Lab's SMO compiled to WebAssembly against libsvm-js (LIBSVM 3.22
#      compiled by emscripten to wasm, npm "libsvm-js") in the same headless
#      Chromium on the same data, the ratio per n (SMO=0 skips it):
#
#   scripts/bench-web.sh                       # everything; SMO sizes n = 1000 2000 5000
#   BENCH=Maps SMO=0 scripts/bench-web.sh      # one table
#   SIZES=1000,2000 REPEATS=3 scripts/bench-web.sh
#   PROFILE_NAMES=1 BENCH=Profile SMO=0 scripts/bench-web.sh   # where the main thread's time goes
#   BURST_MS=12 PROFILE_NAMES=1 BENCH=Profile ...   # the same for bursts over 12 ms (default 50)
#   LH_RUNS=3 BENCH=Lighthouse SMO=0 scripts/bench-web.sh   # Lighthouse, each preset 3 times
#   WORKERS=1 BENCH=LongTasks SMO=0 scripts/bench-web.sh   # long tasks with a pool of one worker
#   BENCH=FirstVisit SMO=0 scripts/bench-web.sh   # a first visit's long tasks, thread time, lazy wasm compilation,
#                                                 # and the page's other threads' CPU meanwhile
#   TRACE_OUT=trace.json BENCH=FirstVisit SMO=0 scripts/bench-web.sh   # also writes the raw trace
#                                                 # (with V8's compile events; for chrome://tracing or Perfetto)
#
# PROFILE_NAMES=1 first rebuilds web/app.wasm with its function names (no
# -ldflags=-s; the same code, a larger file served gzip-compressed), so that
# BenchmarkWebProfile's CPU profiles name the Go functions; `make wasm`
# builds the shipped one again. JOBS=text runs only the LongTasks and
# Profile jobs whose name contains text.
#
# The SMO comparison's settings are those of scripts/bench-svm.sh: RBF
# gamma = 0.1, C = 1, eps = 1e-3,
# shrinking, 100 MB cache, single-precision cache rows on both sides. Each
# time is the best of REPEATS calls of the train function, measured in the
# page with performance.now() (data copy into the solver included on both
# sides). Wall-clock in a page is noisy on a loaded machine, so the same
# comparison is then repeated under Node.js (V8, as Chromium) with CPU times
# (NODE=0 skips it). Goal: ratio ≤ 1.5.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1000,2000,5000}
REPEATS=${REPEATS:-2}
web=scripts/benchweb
if [ ! -f "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.wasm" ] || [ ! -x "$web/node_modules/.bin/lighthouse" ]; then
	(cd "$web" && npm ci --no-audit --no-fund >/dev/null)
fi
if [ ! -f web/app.wasm ] || [ ! -f web/compute.wasm ]; then
	echo "bench-web: build the wasm first (make bench-web does, with BROTLI_Q=11)"; exit 1
fi
if [ "${PROFILE_NAMES:-0}" = 1 ]; then
	go run ./scripts/uimod -out .build/ui
	GOOS=js GOARCH=wasm go build -modfile .build/ui/go.mod -trimpath -o web/app.wasm ./wasm/ui
fi
for f in web/app.wasm web/compute.wasm; do
	echo "$f: $(stat -c %s $f) bytes raw, $(stat -c %s $f.br) bytes brotli (served), $(gzip -9 -c $f | wc -c) bytes gzip -9"
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
LUPI_BROWSER_TESTS=1 go test -count=1 -timeout 3h -run '^$' -bench "^BenchmarkWeb(${BENCH:-})" -benchtime 1x ./browsertest
[ "${SMO:-1}" = 1 ] || exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOOS=js GOARCH=wasm go build -trimpath -ldflags=-s -o "$work/lupi.wasm" ./$web/wasm
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$web/index.html" "$web/problem.js" "$work/"
cp "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.js" "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.wasm" "$work/"
go run ./$web -dir "$work" -sizes "$SIZES" -repeats "$REPEATS"
if [ "${NODE:-1}" = 1 ] && command -v node >/dev/null; then
	echo "bench-web (Node $(node --version), same wasm builds, CPU time = process.cpuUsage):"
	node "$web/node-bench.js" "$work" "$SIZES" "$REPEATS" 2>/dev/null
fi
