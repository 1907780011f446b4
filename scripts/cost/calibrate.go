package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
)

// child runs one measurement in a fresh process of this program (extra:
// more flags of measure).
func child(id, src string, n int, sets map[string]string, extra ...string) Measurement {
	args := append([]string{"measure", "-model", id, "-data", src, "-n", strconv.Itoa(n)}, extra...)
	keys := make([]string, 0, len(sets))
	for k := range sets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-set", k+"="+sets[k])
	}
	exe, _ := os.Executable()
	var out, errb bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	m := Measurement{Model: id, Data: src, Params: sets}
	if err := cmd.Run(); err != nil {
		m.Err = strings.TrimSpace(errb.String() + " " + err.Error())
		return m
	}
	got, err := parseMeasurement(out.Bytes())
	if err != nil {
		m.Err = err.Error()
		return m
	}
	return got
}

// parseMeasurement reads the JSON line a measurement prints.
func parseMeasurement(b []byte) (Measurement, error) {
	var m Measurement
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	err := json.Unmarshal([]byte(lines[len(lines)-1]), &m)
	return m, err
}

// variant is a set of parameter values a model is calibrated at.
type variant struct {
	name string            // "" for the defaults
	sets map[string]string // values given
}

// variants lists what a model is calibrated at: its defaults, and the
// settings that change its cost's form (a linear kernel for the twin SVMs,
// no hyper-parameter search for the GPs).
func variants(s *model.Spec) []variant {
	vs := []variant{{}}
	switch s.ID {
	case "twsvm", "wltsvm":
		// the default kernel is linear; the main formula is the kernel one
		vs = []variant{{"", map[string]string{"kernel": "rbf"}}, {"linear", map[string]string{"kernel": "linear"}}}
	case "mpwtsvm":
		vs = append(vs, variant{"linear", map[string]string{"kernel": "linear"}})
	case "gpc", "gpcplus":
		vs = append(vs, variant{"cold", map[string]string{"optimize": "false"}})
	}
	return vs
}

// sources are the calibration data of a model: its 2-D generator and
// Gaussian data of higher dimension with the blocks it needs.
func sources(s *model.Spec) []string {
	gen := "gen:" + run.DefaultGenerator(s)
	switch {
	case s.Task == spec.MultiLabel:
		return []string{gen, "synth:d=20,tags=5", "synth:d=64,tags=5"}
	case s.Z != spec.ZNone:
		return []string{gen, "synth:d=10,dz=10", "synth:d=32,dz=32"}
	}
	return []string{gen, "synth:d=20", "synth:d=64"}
}

func calibrateMain(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	budget := fs.Float64("budget", 8, "stop a size ladder after a fit of more CPU seconds than this")
	maxN := fs.Int("max-n", 6400, "largest n")
	only := fs.String("models", "", "comma-separated model ids (default: all)")
	in := fs.String("in", "", "read measurements from this JSON-lines file instead of measuring")
	save := fs.String("save", "", "append the measurements to this JSON-lines file")
	write := fs.String("w", "", "write the coefficients as Go source to this file (models/spec/costs.go)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var ms []Measurement
	if *in != "" {
		var err error
		if ms, err = readMeasurements(*in); err != nil {
			return err
		}
	} else {
		var sink io.Writer = io.Discard
		if *save != "" {
			f, err := os.OpenFile(*save, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer f.Close()
			sink = f
		}
		for _, s := range model.All() {
			if *only != "" && !contains(strings.Split(*only, ","), s.ID) {
				continue
			}
			for _, va := range variants(s) {
				for _, src := range sources(s) {
					for n := 50; n <= *maxN; n *= 2 {
						m := child(s.ID, src, n, va.sets)
						b, _ := json.Marshal(m)
						fmt.Fprintln(sink, string(b))
						fmt.Fprintf(os.Stderr, "%-9s %-6s %-22s n=%-5d %8.3f s cpu %8.3f s wall %8.1f MB %s\n",
							s.ID, va.name, src, n, m.Seconds, m.Wall, m.Bytes/(1<<20), m.Err)
						ms = append(ms, m)
						if m.Err != "" || m.Seconds > *budget || m.Bytes > 2<<30 {
							break
						}
					}
				}
			}
		}
	}
	costs, report := fitCosts(ms, *only)
	fmt.Print(report)
	src := goSource(costs)
	if *write != "" {
		return os.WriteFile(*write, []byte(src), 0o644)
	}
	fmt.Print(src)
	return nil
}

// fitCosts fits the cost coefficients of every model (of only, when not
// empty) and variant to the measurements: the default variant's, the linear
// kernel's and the cold start's units. It returns them with a report of each
// fit.
func fitCosts(ms []Measurement, only string) (map[string]*spec.Cost, string) {
	costs := map[string]*spec.Cost{}
	var report strings.Builder
	for _, s := range model.All() {
		if only != "" && !contains(strings.Split(only, ","), s.ID) {
			continue
		}
		for _, va := range variants(s) {
			var obs []Measurement
			for _, m := range ms {
				if m.Model == s.ID && m.Err == "" && sameSets(m.Params, va.sets) {
					obs = append(obs, m)
				}
			}
			if len(obs) < 3 {
				fmt.Fprintf(&report, "%s %s: %d measurements, not enough to fit\n", s.ID, va.name, len(obs))
				continue
			}
			c := fitCost(s, va, obs, &report)
			switch va.name {
			case "":
				if prev := costs[s.ID]; prev != nil {
					c.Linear = prev.Linear
				}
				costs[s.ID] = c
			case "linear":
				if costs[s.ID] == nil {
					costs[s.ID] = &spec.Cost{}
				}
				costs[s.ID].Linear = c
			case "cold":
				if base := costs[s.ID]; base != nil {
					base.ColdUnits = c.Units
				}
			}
		}
	}
	return costs, report.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

func sameSets(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func readMeasurements(path string) ([]Measurement, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Measurement
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m Measurement
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out, sc.Err()
}

// tasksOf is the number of sub-problems a measurement's fit solved and
// the rows of each (see spec.Estimate).
func tasksOf(s *model.Spec, m Measurement) (tasks int, rows float64) {
	t, r := s.Tasks(m.Shape, spec.Values(m.Params))
	return t, float64(r)
}

// fitCost fits one model's (variant's) formula to its measurements.
func fitCost(s *model.Spec, va variant, obs []Measurement, report io.Writer) *spec.Cost {
	c := &spec.Cost{Quadratic: quadratic(s)}
	switch s.ID {
	case "gpc", "gpcplus":
		c.Unit = "ep_sweeps_total"
	case "mcpk":
		c.Unit = "ccp_steps"
	}
	switch s.ID {
	case "svm", "l2svm", "indepsvm", "jointsvm", "svm2plus", "svm1plus":
		// SMO-type solvers cache kernel rows within the "cache" budget
		// (MiB) — in single precision by default (4 bytes an entry)
		if s.Param("cache") != nil {
			c.CacheBytes = 1 << 20
		}
	}
	type row struct{ m, D, units, secs, bytes float64 }
	var rows []row
	var unitSum, evalSum float64
	for _, o := range obs {
		tasks, m := tasksOf(s, o)
		units := 1.0
		if c.Unit != "" {
			units = o.Extras[c.Unit] / float64(tasks)
			unitSum += units
			evalSum += o.Extras["evidence_evaluations"] / float64(tasks)
		}
		rows = append(rows, row{m, float64(o.Shape.Dim + o.Shape.ZDim), math.Max(units, 1), o.Seconds / float64(tasks), o.Bytes})
	}
	if c.Unit != "" {
		c.Units = unitSum / float64(len(obs))
		c.Evaluations = evalSum / float64(len(obs))
	}
	// Time per unit: T0 + T1·m·D + T2·m²·D + T3·(m/1000)^P, non-negative
	// coefficients, least squares on relative errors; P on a grid.
	bestErr := math.Inf(1)
	for P := 1.0; P <= 3.51; P += 0.1 {
		A := mat.NewDense(len(rows), 4, nil)
		b := make([]float64, len(rows))
		for i, r := range rows {
			w := 1 / (r.secs / r.units)
			A.SetRow(i, []float64{w, w * r.m * r.D, w * r.m * r.m * r.D, w * math.Pow(r.m/1000, P)})
			b[i] = 1
		}
		x, e := nnls(A, b)
		if e < bestErr {
			bestErr = e
			c.T0, c.T1, c.T2, c.T3, c.P = x[0], x[1], x[2], x[3], P
		}
	}
	if c.T3 == 0 {
		c.P = 0
	}
	// Memory: B0 + B1·m·D + B2·m², relative errors with a floor of 8 MB
	// (the runtime's own noise at small sizes).
	A := mat.NewDense(len(rows), 3, nil)
	b := make([]float64, len(rows))
	for i, r := range rows {
		w := 1 / math.Max(r.bytes, 8<<20)
		q := r.m * r.m
		A.SetRow(i, []float64{w, w * r.m * r.D, w * q})
		b[i] = r.bytes * w
	}
	x, memErr := nnls(A, b)
	c.B0, c.B1, c.B2 = x[0], x[1], x[2]
	name := s.ID
	if va.name != "" {
		name += " (" + va.name + ")"
	}
	fmt.Fprintf(report, "%s: %d fits; time P=%.1f, rms relative error %.2f; memory rms relative error %.2f (8 MB floor)\n",
		name, len(rows), c.P, math.Sqrt(bestErr/float64(len(rows))), math.Sqrt(memErr/float64(len(rows))))
	return c
}

// quadratic names a model's n×n structures for messages.
func quadratic(s *model.Spec) string {
	switch s.ID {
	case "svm", "l2svm", "indepsvm":
		return "the kernel-row cache"
	case "svm1plus":
		return "the kernel-row caches of X and Z"
	case "svm2plus":
		return "the privileged matrix Qλ and the kernel-row cache"
	case "gpc":
		return "the kernel matrix and the EP posterior"
	case "gpcplus":
		return "the kernel matrices of f and g and the EP posteriors"
	case "jointsvm":
		return "the kernel-row cache and the output-kernel table"
	case "twsvm", "wltsvm":
		return "the kernel matrix and the twin duals"
	case "mpwtsvm":
		return "both views' kernel matrices and the coupled duals"
	}
	return "both views' kernel matrices and the QP's KKT system"
}

// nnls solves min ‖Ax − b‖² with x ≥ 0 by trying every support (the
// problems here have at most four unknowns) and returns x and the squared
// residual.
func nnls(A *mat.Dense, b []float64) ([]float64, float64) {
	r, c := A.Dims()
	bv := mat.NewVecDense(r, b)
	best, bestErr := make([]float64, c), math.Inf(1)
	for mask := 1; mask < 1<<c; mask++ {
		var cols []int
		for j := 0; j < c; j++ {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		if len(cols) > r {
			continue
		}
		sub := mat.NewDense(r, len(cols), nil)
		for k, j := range cols {
			for i := 0; i < r; i++ {
				sub.Set(i, k, A.At(i, j))
			}
		}
		var x mat.VecDense
		if err := x.SolveVec(sub, bv); err != nil {
			continue
		}
		ok := true
		for k := range cols {
			if x.AtVec(k) < 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var res mat.VecDense
		res.MulVec(sub, &x)
		res.SubVec(&res, bv)
		e := mat.Dot(&res, &res)
		if e < bestErr {
			bestErr = e
			best = make([]float64, c)
			for k, j := range cols {
				best[j] = x.AtVec(k)
			}
		}
	}
	return best, bestErr
}

// goSource writes the cost table as Go source for models/spec/costs.go.
func goSource(costs map[string]*spec.Cost) string {
	var b strings.Builder
	b.WriteString("package spec\n\n// Code generated by `go run ./scripts/cost calibrate -w models/spec/costs.go`; DO NOT EDIT.\n")
	b.WriteString("// The measurements behind it: see cost.go; `make cost-table` compares its\n// predictions with new measurements.\n\n")
	fmt.Fprintf(&b, "const wasmFactor = %s\n\n", g(spec.WasmFactor))
	b.WriteString("var costTable = map[string]*Cost{\n")
	for _, id := range slices.Sorted(maps.Keys(costs)) {
		fmt.Fprintf(&b, "\t%q: %s,\n", id, costLit(costs[id], "\t"))
	}
	b.WriteString("}\n")
	return formatGo(b.String())
}

// formatGo gofmts generated source (returned as it is when it does not
// parse, so that the compiler shows what is wrong).
func formatGo(src string) string {
	out, err := format.Source([]byte(src))
	if err != nil {
		return src
	}
	return string(out)
}

func costLit(c *spec.Cost, indent string) string {
	var parts []string
	add := func(name string, v float64) {
		if v != 0 {
			parts = append(parts, name+": "+g(v))
		}
	}
	add("T0", c.T0)
	add("T1", c.T1)
	add("T2", c.T2)
	add("T3", c.T3)
	add("P", c.P)
	add("B0", c.B0)
	add("B1", c.B1)
	add("B2", c.B2)
	add("CacheBytes", c.CacheBytes)
	if c.Unit != "" {
		parts = append(parts, "Unit: "+strconv.Quote(c.Unit))
	}
	add("Units", c.Units)
	add("ColdUnits", c.ColdUnits)
	add("Evaluations", c.Evaluations)
	if c.Quadratic != "" {
		parts = append(parts, "Quadratic: "+strconv.Quote(c.Quadratic))
	}
	s := "{" + strings.Join(parts, ", ")
	if c.Linear != nil {
		s += ",\n" + indent + "\tLinear: &Cost" + costLit(c.Linear, indent+"\t")
	}
	return s + "}"
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
