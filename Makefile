# LUPI Lab — build, serve, test.
#   make run     build the wasm app and serve it on http://localhost:8080 (ADDR=host:port to change)
#   make test    install what the tests need (Debian), then lint + unit + wasm build + browser tests
SHELL := /bin/bash
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
GOBIN := $(shell $(GO) env GOPATH)/bin
ADDR ?= localhost:8080
STATICCHECK_VERSION ?= v0.8.2
# axe-core (npm) checks the pages' accessibility in the browser tests.
AXE_VERSION ?= 4.14.1
STATIC_DIR ?= dist
BASE ?= /
FUZZTIME ?= 10m
# Brotli quality of the .wasm.br copies: 5 for development (seconds); make static and
# make bench-web use 11 (the best: about a minute of CPU for the two builds).
BROTLI_Q ?= 5

.PHONY: all run server wasm static test deps lint unit fuzz-short browser screenshots bench bench-svm bench-svmplus bench-svmplus-rbf bench-svmplus-paper bench-svmplus-real \
        bench-gp bench-joint bench-twin bench-multiview bench-qp bench-gp-wasm bench-grid bench-grid-wasm bench-gp-web bench-web bench-experiments fixtures-qp fixtures-refs fuzz load datasets clean \
        cost-table cost-calibrate cost-penalty cost-wasm

all: wasm server

## wasm: compile the two browser builds — the UI (app.wasm, go-app, no numerics) and the
## compute engine (compute.wasm, run by the Web Workers of web/pool.js) — and compress them.
## The UI is built against a copy of go-app without its server-side handler (scripts/uimod).
## web/warm-fit.json is the compute engine's answer to a first visit, which the UI build's
## warm-up replays (scripts/warmfit, web/warm.js).
wasm:
	@$(GO) run ./scripts/uimod -out .build/ui
	@set -e; \
	GOOS=js GOARCH=wasm $(GO) build -modfile .build/ui/go.mod -trimpath -ldflags="-s -w" -o web/app.wasm ./wasm/ui & ui=$$!; \
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o web/compute.wasm ./wasm/compute & cp=$$!; \
	wait $$ui; wait $$cp
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" web/wasm_exec.js
	$(GO) run ./scripts/warmfit -web web -out web/warm-fit.json
	$(GO) run ./scripts/compress -q $(BROTLI_Q) web/app.wasm web/compute.wasm

server:
	@mkdir -p bin
	$(GO) build -o bin/lupi-server .
	$(GO) build -o bin/lupi ./cmd/lupi

## run: build everything and serve
run: wasm server
	./bin/lupi-server -addr $(ADDR)

## static: write the site as plain files (STATIC_DIR, BASE=/sub/path/ for a sub-path host)
static: BROTLI_Q = 11
static: wasm server
	rm -rf $(STATIC_DIR)
	./bin/lupi-server -static $(STATIC_DIR) -base $(BASE)

## deps: what the tests need on a fresh Debian machine: chromium (browser tests),
## python3-sklearn/-cvxopt/-scipy and libsvm-tools (the reference scripts), weka
## (with sklearn: the sources cmd/mkdatasets rebuilds web/datasets from, so its
## reproducibility test runs instead of skipping), staticcheck.
DEBIAN_DEPS := chromium python3-sklearn python3-cvxopt python3-scipy libsvm-tools weka
deps:
	@missing=$$(for p in $(DEBIAN_DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages the tests need:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi
	@test -x $(GOBIN)/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@test -f .deps/node_modules/axe-core/axe.min.js || npm install --silent --no-audit --no-fund --prefix .deps axe-core@$(AXE_VERSION) >/dev/null

lint: deps
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./app ./models/...
	$(GOBIN)/staticcheck ./...

unit:
	$(GO) test -count=1 ./...

fuzz-short:
	# a count rather than a duration: a duration can end mid-execution and
	# report "context deadline exceeded" (a go test -fuzz flake)
	FUZZTIME=150000x FUZZTIME_MODEL=30000x bash scripts/fuzz.sh

browser: wasm
	LUPI_BROWSER_TESTS=1 $(GO) test -count=1 -v -timeout 45m ./browsertest

## test: everything a change must pass
test: deps lint wasm unit fuzz-short browser
	@echo "make test: all checks passed"

## fuzz: long fuzzing of every reader and the model loader (FUZZTIME each)
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

## benchmarks (not part of make test)
bench: bench-svm bench-svmplus bench-svmplus-real bench-gp bench-joint bench-twin bench-multiview
bench-svm:
	bash scripts/bench-svm.sh
## bench-experiments: the paper experiments with lupi experiment -j 1 against -j 2 (identical
## output checked) and the speed-up projected on 8 and 16 cores from the tasks' times
bench-experiments:
	bash scripts/bench-experiments.sh
bench-svmplus:
	bash scripts/bench-svmplus.sh
## bench-svmplus-rbf: the same with an RBF privileged kernel (a linear one on this data gives the w = 0 optimum)
bench-svmplus-rbf:
	LUPI_BENCH_ZKERNEL=rbf bash scripts/bench-svmplus.sh
## bench-svmplus-paper: paper 000's regime (linear kernels on high-dimensional features, d = 2048), with
## SVM1+ also solved by the dense interior-point QP (the paper timed SVM1+ with MOSEK) up to n = 1000
bench-svmplus-paper:
	LUPI_BENCH_D=2048 LUPI_BENCH_QP_MAXN=1000 bash scripts/bench-svmplus.sh
## bench-svmplus-real: the svm2plus experiment's final fits on the shipped data (digits n = 269 … 1438, wdbc)
bench-svmplus-real:
	bash scripts/bench-svmplus-real.sh
bench-gp:
	bash scripts/bench-gp.sh
bench-gp-wasm:
	GP_BENCH_WASM=1 bash scripts/bench-gp.sh 100
## bench-gp-web: GPC vs GPC+ training time in the app, in headless Chromium (GP_WEB_SIZES=100,200,400)
GP_WEB_SIZES ?= $(or $(LUPI_BENCH_GP_SIZES),100,200,400)
bench-gp-web: wasm
	LUPI_BROWSER_TESTS=1 $(GO) test -count=1 -timeout 3h -run '^$$' -bench '^BenchmarkGPBrowser$$' -benchtime 1x ./browsertest -benchgp.sizes $(GP_WEB_SIZES)
## bench-grid: every model's full 200×200 map (default settings, default data); bench-grid-wasm: the same under node
bench-grid:
	bash scripts/bench-grid.sh
bench-grid-wasm:
	GRID_BENCH_WASM=1 bash scripts/bench-grid.sh
bench-joint:
	bash scripts/bench-joint.sh
bench-twin:
	bash scripts/bench-twin.sh
bench-multiview:
	bash scripts/bench-multiview.sh
bench-qp:
	sh models/solver/qp/testdata/bench_vs_cvxopt.sh
## fixtures: recompute the committed reference outputs (needs Debian python3-sklearn, python3-cvxopt, libsvm-tools)
fixtures-qp:
	/usr/bin/python3 models/solver/qp/testdata/make_fixtures.py
## fixtures-refs: the independent references of GPC+ (EP, and MCMC: about 20 minutes of CPU),
## MvTSVM, MCPK and MPWTSVM (needs Debian python3-scipy, python3-cvxopt)
fixtures-refs:
	/usr/bin/python3 models/gp/testdata/ref_gpcplus_ep.py
	/usr/bin/python3 models/gp/testdata/ref_gpcplus_mcmc.py
	/usr/bin/python3 models/multiview/testdata/ref_mvtsvm_mcpk.py
	/usr/bin/python3 models/twin/testdata/ref_mpwtsvm.py
## bench-web: the browser budgets of issues 24–26 (full-resolution map times per model, main-thread long tasks
## per job, first-load bytes, Lighthouse desktop/mobile, pool speed-ups, slider latency), printed as tables, and
## our wasm SMO against npm libsvm-js in the same Chromium; installs lighthouse and libsvm-js into
## scripts/benchweb/node_modules (git-ignored). BENCH=Maps (a regexp) runs some of the tables only.
bench-web: BROTLI_Q = 11
bench-web: wasm
	bash scripts/bench-web.sh
## screenshots: refresh docs/screens (one screen per model family, desktop and phone) from the
## app as `make wasm` builds it
screenshots: wasm server
	@set -e; ./bin/lupi-server -addr 127.0.0.1:8091 -web web & srv=$$!; trap "kill $$srv" EXIT; sleep 1; \
	$(GO) run ./scripts/screenshots -url http://127.0.0.1:8091 -out docs/screens
## cost-table: the cost model's predicted time and memory against measurements, every model on every
## shipped dataset it suits and on its default generated set (COST_BUDGET: largest predicted CPU
## seconds measured; larger fits run on a sub-sample). cost-calibrate re-measures and rewrites
## models/spec/costs.go (about an hour); cost-penalty re-measures how the time grows with C on
## overlapping classes and rewrites models/spec/penalties.go (a few minutes); cost-wasm measures the
## WebAssembly factor under Node.js.
COST_BUDGET ?= 10
cost-table:
	$(GO) run ./scripts/cost table -budget $(COST_BUDGET)
cost-calibrate:
	$(GO) run ./scripts/cost calibrate -save cost-measurements.jsonl -w models/spec/costs.go
cost-penalty:
	$(GO) run ./scripts/cost penalty -w models/spec/penalties.go
cost-wasm:
	$(GO) run ./scripts/cost wasm
## load: 10 000 requests at concurrency 64 against a local server it starts (loopback only)
load: server wasm
	$(GO) run ./scripts/load -start bin/lupi-server -web web -n 10000 -c 64
## datasets: rebuild web/datasets from the files Debian packages ship
datasets:
	$(GO) run ./cmd/mkdatasets

clean:
	rm -rf bin dist .build web/app.wasm web/app.wasm.br web/compute.wasm web/compute.wasm.br web/wasm_exec.js web/warm-fit.json browsertest/screenshots
