package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	_ "lupilab/models/all"
	"lupilab/models/cputime"
	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// Measurement is one fit: its shape, settings, time and memory.
type Measurement struct {
	Model   string       `json:"model"`
	Data    string       `json:"data"`
	Shape   spec.Shape   `json:"shape"`
	Params  model.Values `json:"params,omitempty"` // the values given (not the defaults)
	Seconds float64      `json:"seconds"`          // CPU seconds of the fit (wall under WebAssembly)
	Wall    float64      `json:"wall"`             // wall seconds of the fit
	Bytes   float64      `json:"bytes"`            // peak resident memory the fit added
	Extras  map[string]float64
	Err     string `json:"error,omitempty"`
}

// measureMain runs one fit in this process and prints its Measurement as
// one JSON line: the calibration runs each fit in a fresh child process so
// that the peak resident memory is the fit's own.
func measureMain(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	id := fs.String("model", "", "model id")
	src := fs.String("data", "", "gen:NAME, synth:d=…,dz=…,k=…,tags=…, or a shipped CSV path")
	n := fs.Int("n", 0, "rows (0: the file's or the generator's default)")
	seed := fs.Int64("seed", 1, "seed of the data and the fit")
	noise := fs.Float64("noise", -1, "the generator's noise (negative: its default)")
	sets := setFlags{}
	fs.Var(sets, "set", "hyper-parameter name=value")
	if err := fs.Parse(args); err != nil {
		return err
	}
	runtime.GOMAXPROCS(1) // one core, as in the browser (and steadier on a shared machine)
	ds, err := loadData(*src, *n, *noise, *seed)
	if err != nil {
		return err
	}
	s, err := model.Lookup(*id)
	if err != nil {
		return err
	}
	v, err := s.Resolve(model.Values(sets))
	if err != nil {
		return err
	}
	if sc, err := data.FitScaler(ds, data.ScaleStandard); err == nil {
		ds = sc.Apply(ds)
	}
	// the kernel widths the CLI and the app choose when none is given
	zdim := 0
	if s.Z != spec.ZNone {
		zdim = ds.ZDim()
	}
	s.AdaptWidths(v, func(name string) bool { _, set := sets[name]; return !set }, ds.Dim(), zdim)
	m := Measurement{Model: *id, Data: *src, Shape: shapeOf(ds), Params: model.Values(sets)}
	runtime.GC()
	debug.FreeOSMemory()
	base := rss()
	resetPeak()
	c0, cpuOK := cputime.Process()
	w0 := time.Now()
	f, err := s.Fit(context.Background(), ds, v, model.Options{Seed: *seed})
	m.Wall = time.Since(w0).Seconds()
	m.Seconds = m.Wall // where there is no CPU clock (WebAssembly)
	if c1, ok := cputime.Process(); cpuOK && ok && c1 > c0 {
		m.Seconds = c1 - c0
	}
	m.Bytes = math.Max(0, peak()-base)
	if err != nil {
		m.Err = err.Error()
	} else if r := f.Report(); r != nil {
		m.Extras = map[string]float64{}
		collect(r, m.Extras)
		if e, ok := trainError(f, ds); ok {
			m.Extras["train_error"] = e
		}
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
	return nil
}

// trainError is the fit's error on its own training rows: the fraction of
// rows predicted in the wrong class, or of (row, tag) pairs wrong for
// multi-label data (the Hamming loss). It measures how much the classes
// overlap for the penalty factor (spec.Penalty.E); ok is false when the
// prediction fails.
func trainError(f model.Fitted, ds *data.Dataset) (float64, bool) {
	p, err := f.Predict(ds)
	if err != nil {
		return 0, false
	}
	wrong, total := 0, 0
	switch {
	case ds.Y != nil && len(p.Labels) == len(ds.Y):
		for i, y := range ds.Y {
			if p.Labels[i] != y {
				wrong++
			}
		}
		total = len(ds.Y)
	case ds.Tags != nil && len(p.Tags) == ds.Rows():
		for i, row := range p.Tags {
			for j, has := range row {
				if has != (ds.Tags.At(i, j) > 0.5) {
					wrong++
				}
				total++
			}
		}
	}
	if total == 0 {
		return 0, false
	}
	return float64(wrong) / float64(total), true
}

// collect sums the solver counts the cost model uses over sub-reports.
func collect(r *model.Report, out map[string]float64) {
	keys := []string{"evidence_evaluations", "ep_sweeps_total", "ccp_steps", "rounds_10", "rounds_11"}
	var walk func(r *model.Report)
	walk = func(r *model.Report) {
		for _, k := range keys {
			if x, ok := r.Extras[k]; ok {
				out[k] += x
			}
		}
		out["iterations"] += float64(r.Iterations)
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(r)
	out["tasks"] = math.Max(1, float64(len(r.Sub)))
}

func shapeOf(ds *data.Dataset) spec.Shape {
	return spec.Shape{Rows: ds.Rows(), Dim: ds.Dim(), ZDim: ds.ZDim(), Classes: len(ds.Classes), Tags: ds.NumTags()}
}

// loadData makes the dataset a source names.
func loadData(src string, n int, noise float64, seed int64) (*data.Dataset, error) {
	kind, arg, _ := strings.Cut(src, ":")
	switch kind {
	case "gen":
		if n == 0 {
			g, ok := data.GeneratorByName(arg)
			if !ok {
				return nil, fmt.Errorf("unknown generator %q", arg)
			}
			n = g.DefaultN
		}
		g, _ := data.GeneratorByName(arg)
		if noise < 0 {
			noise = g.DefaultNoise
		}
		return data.GenerateByName(arg, n, noise, seed)
	case "synth":
		return synth(arg, n, seed)
	}
	ds, err := readShipped(src)
	if err != nil {
		return nil, err
	}
	if n > 0 && n < ds.Rows() {
		ds = subsample(ds, n, seed)
	}
	return ds, nil
}

// readShipped reads a shipped dataset with the kind its index gives.
func readShipped(path string) (*data.Dataset, error) {
	opt := data.ReadOptions{}
	idx, err := os.ReadFile(filepath.Join(filepath.Dir(path), "index.json"))
	if err == nil {
		var entries []struct{ File, Kind string }
		if json.Unmarshal(idx, &entries) == nil {
			for _, e := range entries {
				if e.File == filepath.Base(path) && e.Kind == string(data.KindTwoView) {
					opt.Kind = data.KindTwoView
				}
			}
		}
	}
	return data.ReadFile(path, opt)
}

// subsample keeps n rows, stratified by class (the same seed gives the same
// rows), so that every class keeps its share.
func subsample(ds *data.Dataset, n int, seed int64) *data.Dataset {
	r := data.NewRand(seed)
	perm := r.Perm(ds.Rows())
	if ds.Y == nil {
		rows := perm[:n]
		sort.Ints(rows)
		return data.Subset(ds, rows)
	}
	byClass := map[int][]int{}
	for _, i := range perm {
		byClass[ds.Y[i]] = append(byClass[ds.Y[i]], i)
	}
	var rows []int
	frac := float64(n) / float64(ds.Rows())
	for _, idx := range byClass {
		k := int(math.Round(frac * float64(len(idx))))
		k = max(k, min(2, len(idx)))
		rows = append(rows, idx[:min(k, len(idx))]...)
	}
	sort.Ints(rows)
	return data.Subset(ds, rows)
}

// synth makes Gaussian data with the shape "d=…,dz=…,k=…,tags=…" (defaults
// d=2, dz=0, k=2, tags=0): class c is centred at a random point with
// coordinates of spread 1.5, unit noise, so that the classes overlap as real
// data do (a fair share of support vectors); Z is a noisy linear image of X
// plus the class; tags (multi-label when tags > 0) are thresholds of random
// projections.
func synth(arg string, n int, seed int64) (*data.Dataset, error) {
	p := map[string]int{"d": 2, "dz": 0, "k": 2, "tags": 0}
	for _, kv := range strings.Split(arg, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		x, err := strconv.Atoi(v)
		if _, known := p[k]; !ok || err != nil || !known {
			return nil, fmt.Errorf("synth: bad %q", kv)
		}
		p[k] = x
	}
	if n == 0 {
		n = 200
	}
	r := data.NewRand(seed)
	d, dz, k, T := p["d"], p["dz"], p["k"], p["tags"]
	centres := mat.NewDense(k, d, nil)
	for c := 0; c < k; c++ {
		for j := 0; j < d; j++ {
			centres.Set(c, j, 1.5*r.NormFloat64()/math.Sqrt(float64(max(1, d/4))))
		}
	}
	ds := &data.Dataset{Name: "synth", Kind: data.KindPlain, X: mat.NewDense(n, d, nil)}
	for j := 0; j < d; j++ {
		ds.XNames = append(ds.XNames, fmt.Sprintf("x_%d", j+1))
	}
	y := make([]int, n)
	for i := range y {
		y[i] = i % k
		for j := 0; j < d; j++ {
			ds.X.Set(i, j, centres.At(y[i], j)+r.NormFloat64())
		}
	}
	if dz > 0 {
		ds.Z = mat.NewDense(n, dz, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < dz; j++ {
				v := 0.5*r.NormFloat64() + float64(y[i])
				if d > 0 {
					v += ds.X.At(i, j%d)
				}
				ds.Z.Set(i, j, v)
			}
		}
		for j := 0; j < dz; j++ {
			ds.ZNames = append(ds.ZNames, fmt.Sprintf("z_%d", j+1))
		}
		ds.Kind = data.KindTwoView
	}
	if T > 0 {
		ds.Tags = mat.NewDense(n, T, nil)
		w := mat.NewDense(T, d, nil)
		for t := 0; t < T; t++ {
			for j := 0; j < d; j++ {
				w.Set(t, j, r.NormFloat64())
			}
			ds.TagNames = append(ds.TagNames, fmt.Sprintf("tag_%d", t+1))
		}
		for i := 0; i < n; i++ {
			for t := 0; t < T; t++ {
				s := 0.0
				for j := 0; j < d; j++ {
					s += w.At(t, j) * ds.X.At(i, j)
				}
				if s+0.5*r.NormFloat64() > 0 {
					ds.Tags.Set(i, t, 1)
				}
			}
		}
		ds.Kind = data.KindMultiLabel
		return ds, ds.Validate()
	}
	ds.Y = y
	for c := 0; c < k; c++ {
		ds.Classes = append(ds.Classes, strconv.Itoa(c))
	}
	return ds, ds.Validate()
}

// setFlags collects repeated -set name=value.
type setFlags map[string]string

func (s setFlags) String() string { return "" }

func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("-set %q: want name=value", v)
	}
	s[k] = val
	return nil
}
