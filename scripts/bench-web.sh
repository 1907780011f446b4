#!/usr/bin/env bash
# bench-web.sh — times LUPI Lab's SMO compiled to WebAssembly against
# libsvm-js (LIBSVM 3.22 compiled by emscripten to wasm, npm "libsvm-js") in the
# same headless Chromium on the same data, and prints the ratio per n.
#
#   scripts/bench-web.sh                       # n = 1000 2000 5000
#   SIZES=1000,2000 REPEATS=3 scripts/bench-web.sh
#
# Settings as scripts/bench-svm.sh: RBF gamma = 0.1, C = 1, eps = 1e-3,
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
if [ ! -f "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.wasm" ]; then
	(cd "$web" && npm ci --no-audit --no-fund >/dev/null)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOOS=js GOARCH=wasm go build -trimpath -ldflags=-s -o "$work/lupi.wasm" ./$web/wasm
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$web/index.html" "$work/"
cp "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.js" "$web/node_modules/libsvm-js/dist/browser/wasm/libsvm.wasm" "$work/"
go run ./$web -dir "$work" -sizes "$SIZES" -repeats "$REPEATS"
if [ "${NODE:-1}" = 1 ] && command -v node >/dev/null; then
	echo "bench-web (Node $(node --version), same wasm builds, CPU time = process.cpuUsage):"
	node "$web/node-bench.js" "$work" "$SIZES" "$REPEATS" 2>/dev/null
fi
