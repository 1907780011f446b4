package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
)

// shipped lists the shipped datasets the table uses, with what they hold.
func shipped(dir string) []string {
	var out []string
	for _, f := range []string{"wdbc.csv", "digits-lowhigh.csv", "segment-twoview.csv", "digits-twoview.csv", "digits-tags.csv"} {
		out = append(out, filepath.Join(dir, f))
	}
	return out
}

// suits says whether a model is tabulated on a dataset: models that ignore
// the second block on every labelled set, privileged models on the LUPI
// sets, two-view models on the two-view sets, multi-label models on the
// tag set.
func suits(s *model.Spec, ds *data.Dataset) bool {
	if s.CheckData(ds) != nil {
		return false
	}
	switch {
	case s.Task == spec.MultiLabel:
		return ds.Tags != nil
	case ds.Y == nil:
		return false
	case s.Z == spec.ZPrivileged:
		return ds.Kind == data.KindLUPI
	case s.Z == spec.ZView:
		return ds.Kind == data.KindTwoView
	}
	return true
}

// tableMain measures every model on every shipped dataset it suits and on
// its default generated set, and prints the cost model's prediction
// against the measurement. A fit predicted to take more than -budget CPU
// seconds is measured on a stratified sub-sample of the largest size
// predicted to fit the budget (the n column says which).
func tableMain(args []string) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	dir := fs.String("data", "web/datasets", "directory of the shipped datasets")
	budget := fs.Float64("budget", 10, "largest predicted CPU seconds measured (larger fits are sub-sampled)")
	only := fs.String("models", "", "comma-separated model ids (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	type row struct {
		id, data    string
		n, N, tasks int
		pred        spec.Estimate
		predFull    spec.Estimate
		secs, bytes float64
		err         string
	}
	var rows []row
	for _, s := range model.All() {
		if *only != "" && !contains(strings.Split(*only, ","), s.ID) {
			continue
		}
		srcs := append([]string{"gen:" + run.DefaultGenerator(s)}, shipped(*dir)...)
		for _, src := range srcs {
			ds, err := loadData(src, 0, -1, 1)
			if err != nil {
				return err
			}
			if !suits(s, ds) {
				continue
			}
			v := s.Defaults()
			adaptWidths(s, v, ds)
			N := ds.Rows()
			full := s.Estimate(model.ShapeOf(s.Spec, ds), v)
			n := N
			for n > 50 && s.Estimate(shapeAt(s, ds, n), v).Seconds > *budget {
				n = n * 2 / 3
			}
			sub := ds
			if n < N {
				sub = subsample(ds, n, 1)
				n = sub.Rows()
			}
			est := s.Estimate(model.ShapeOf(s.Spec, sub), v)
			m := child(s.ID, src, n, nil)
			r := row{id: s.ID, data: label(src), n: n, N: N, tasks: est.Tasks, pred: est, predFull: full, secs: m.Seconds, bytes: m.Bytes, err: m.Err}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "%-9s %-20s n=%-5d predicted %8.3f s %8.1f MB, measured %8.3f s %8.1f MB %s\n",
				s.ID, r.data, n, est.Seconds, est.Bytes/(1<<20), m.Seconds, m.Bytes/(1<<20), m.Err)
		}
	}
	fmt.Printf("Cost model (models/spec/costs.go) against measurements: `make cost-table` (go run ./scripts/cost table), %s, %s, %d CPU(s), GOMAXPROCS=1, default parameters (kernel widths 1/d on d > 2 features, as the CLI), standardised features.\n\n",
		time.Now().Format("2006-01-02"), runtime.GOARCH, runtime.NumCPU())
	fmt.Println("| model | data | n (of N) | tasks | predicted s | measured s (CPU) | ratio | predicted MB | measured MB | ratio | predicted at N |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	var tr, br []float64
	for _, r := range rows {
		if r.err != "" {
			fmt.Printf("| %s | %s | %d (of %d) | %d | %s | error: %s | | | | | |\n", r.id, r.data, r.n, r.N, r.tasks, g3(r.pred.Seconds), r.err)
			continue
		}
		t, b := r.secs/r.pred.Seconds, r.bytes/r.pred.Bytes
		tr = append(tr, t)
		if r.bytes > 8<<20 { // below 8 MB the runtime's own noise dominates
			br = append(br, b)
		}
		fmt.Printf("| %s | %s | %d (of %d) | %d | %s | %s | %.2f | %.1f | %.1f | %.2f | %s |\n", r.id, r.data, r.n, r.N, r.tasks,
			g3(r.pred.Seconds), g3(r.secs), t, r.pred.Bytes/(1<<20), r.bytes/(1<<20), b, r.predFull)
	}
	fmt.Printf("\nTime: %s. Memory (fits above 8 MB): %s.\n", summary(tr), summary(br))
	return nil
}

// shapeAt is the shape of ds sub-sampled to n rows.
func shapeAt(s *model.Spec, ds *data.Dataset, n int) spec.Shape {
	sh := model.ShapeOf(s.Spec, ds)
	sh.Rows = n
	return sh
}

// adaptWidths applies the CLI's and the app's data-dependent default
// kernel widths.
func adaptWidths(s *model.Spec, v model.Values, ds *data.Dataset) {
	zdim := 0
	if s.Z != spec.ZNone {
		zdim = ds.ZDim()
	}
	s.AdaptWidths(v, func(string) bool { return true }, ds.Dim(), zdim)
}

func label(src string) string {
	if strings.HasPrefix(src, "gen:") || strings.HasPrefix(src, "synth:") {
		return src
	}
	return strings.TrimSuffix(filepath.Base(src), ".csv")
}

func g3(x float64) string { return fmt.Sprintf("%.3g", x) }

// summary says how far predictions are from measurements: the median
// ratio and the share within 1.5× and 2×.
func summary(ratios []float64) string {
	if len(ratios) == 0 {
		return "no data"
	}
	s := append([]float64(nil), ratios...)
	sort.Float64s(s)
	in := func(f float64) int {
		k := 0
		for _, r := range s {
			if r <= f && r >= 1/f {
				k++
			}
		}
		return k
	}
	return fmt.Sprintf("measured/predicted median %.2f (range %.2f–%.2f); within 1.5×: %d of %d, within 2×: %d of %d",
		s[len(s)/2], s[0], s[len(s)-1], in(1.5), len(s), in(2), len(s))
}

// wasmMain measures the same fits natively and as WebAssembly under
// Node.js (wall time, one thread, alternating, the fastest of -repeats
// each) and prints the ratios and their median: spec.WasmFactor.
func wasmMain(args []string) error {
	fs := flag.NewFlagSet("wasm", flag.ContinueOnError)
	repeats := fs.Int("repeats", 3, "runs of each fit on each side")
	if err := fs.Parse(args); err != nil {
		return err
	}
	wasm := filepath.Join(os.TempDir(), "lupi-cost.wasm")
	build := exec.Command("go", "build", "-o", wasm, "./scripts/cost")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the wasm binary: %w", err)
	}
	defer os.Remove(wasm)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return err
	}
	runner := filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm", "go_js_wasm_exec")
	fits := []struct {
		id, src string
		n       int
	}{
		{"svm", "gen:moons", 2000}, {"svm2plus", "gen:lupi2d", 600}, {"gpc", "gen:moons", 200},
		{"twsvm", "synth:d=20", 800}, {"mpwtsvm", "gen:twoview2d", 400}, {"svm2k", "gen:twoview2d", 200}, {"jointsvm", "gen:multilabel2d", 800},
	}
	var ratios []float64
	fmt.Println("| model | data | n | native s (wall) | wasm s (wall, Node) | ratio |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, f := range fits {
		nat, wa := math.Inf(1), math.Inf(1)
		for r := 0; r < *repeats; r++ {
			m := child(f.id, f.src, f.n, nil)
			if m.Err != "" {
				return fmt.Errorf("%s native: %s", f.id, m.Err)
			}
			nat = math.Min(nat, m.Wall)
			w, err := wasmChild(runner, wasm, f.id, f.src, f.n)
			if err != nil {
				return fmt.Errorf("%s wasm: %w", f.id, err)
			}
			wa = math.Min(wa, w)
		}
		ratios = append(ratios, wa/nat)
		fmt.Printf("| %s | %s | %d | %.3f | %.3f | %.2f |\n", f.id, f.src, f.n, nat, wa, wa/nat)
	}
	sort.Float64s(ratios)
	fmt.Printf("\nmedian wasm/native ratio: %.2f (spec.WasmFactor)\n", ratios[len(ratios)/2])
	return nil
}

// wasmChild runs one measurement as WebAssembly under Node.js and returns
// its wall seconds.
func wasmChild(runner, wasm, id, src string, n int) (float64, error) {
	cmd := exec.Command(runner, wasm, "measure", "-model", id, "-data", src, "-n", fmt.Sprint(n))
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	m, err := parseMeasurement(out)
	if err != nil {
		return 0, err
	}
	if m.Err != "" {
		return 0, fmt.Errorf("%s", m.Err)
	}
	return m.Wall, nil
}
