package spec

import (
	"fmt"
	"math"
	"strconv"
)

// What a fit costs: the catalogue's cost model.
//
// Every model's fit is a number of sub-problems (one for two classes; k for
// one-vs-rest; k(k−1)/2 on about 2n/k rows each for one-vs-one; one per tag
// for independent SVMs), each on m rows with D = Dim + ZDim features. One
// sub-problem costs
//
//	seconds(m, D) = units · (T0 + T1·m·D + T2·m²·D + T3·(m/1000)^P)
//	bytes(m, D)   = B0 + B1·m·D + B2·m²
//
// where the T terms are the fixed cost, reading the data, kernel
// evaluations and the solver's own work (dense factorisations are cubic,
// SMO about quadratic: P is fitted), and units is 1 except for models whose
// work is counted in units the parameters change: EP sweeps for the GPs
// (evidence evaluations × sweeps per evaluation: optimize=false needs one
// evaluation, restarts add searches, max_sweeps caps the sweeps) and
// convex–concave steps for MCPK (ccp_iter caps them). probability=true adds
// LIBSVM's five-fold cross-validation (five fits on 4/5 of the rows). The
// memory is the peak resident memory the fit adds: the B2 term is the n×n
// matrices (Gram matrices, Qλ, EP posteriors, QP KKT systems) and, for the
// SMO-based models, a kernel-row cache bounded by the "cache" parameter.
//
// The coefficients are measured, not guessed: scripts/cost fits each model
// at several sizes on generated data and on the shipped datasets, fits them
// by least squares on relative errors and prints the table of predicted
// against measured costs (`make cost-table`); costTable (costs.go) holds
// the result. Seconds are CPU seconds of one core of the machine the
// calibration ran on; WasmFactor converts them to the browser.
//
// The formula is measured at the default hyper-parameters, on the
// generators' default noise. The iterative solvers (SMO and its kin) take
// many more iterations when the penalty C grows and the classes overlap:
// more multipliers move between their bounds, and each moves further (on
// two moons with heavy noise, C = 1000 takes about 40 times as long as
// C = 1, and several times more than that on the default noise). So the
// models whose time grows with C have a Penalty factor, 1 + A·(r^Q − 1)
// with r the largest ratio of a penalty parameter to its default (1 when
// none is above its default), measured by `go run ./scripts/cost penalty`
// as the time with heavily overlapping classes — the slow case — over the
// formula's typical case. An estimate with a factor above 1 is an upper
// bound (Estimate.UpTo): on well-separated classes the same fit can take
// as little as the formula alone.
//
// How much the classes overlap is known once the model has been fitted on
// the data (usually at its defaults, before the penalty is raised): its
// training error. EstimateAfter scales the factor's growth by
// (e/E)^B, with e that training error and E the slow case's, so the
// estimate follows the data rather than bounding it (on two moons with
// n = 1 400: C = 1000 takes 1.2 times C = 1 at noise 0.1, 5.6 times at
// 0.2, 36 times at 0.3); B is fitted from the generator's default noise
// by the same script.

// Shape is the size of a fit's training data.
type Shape struct {
	Rows    int `json:"rows"`              // training rows
	Dim     int `json:"dim"`               // main features (view A)
	ZDim    int `json:"zdim,omitempty"`    // second-block features (privileged or view B)
	Classes int `json:"classes,omitempty"` // classes (0 for multi-label data)
	Tags    int `json:"tags,omitempty"`    // tags (multi-label data)
}

// Cost is one model's calibrated cost formula (see above).
type Cost struct {
	T0, T1, T2, T3, P float64 // seconds per unit of one sub-problem
	B0, B1, B2        float64 // bytes of one sub-problem
	// CacheBytes, when > 0, says that the m² term is a kernel cache bounded
	// by the "cache" parameter (MiB): B2·m² is capped at cache × CacheBytes
	// bytes.
	CacheBytes float64
	// Unit names what the seconds are counted in: "" for a whole
	// sub-problem, "ep_sweeps_total" (GPs) or "ccp_steps" (MCPK).
	Unit string
	// Units is the typical number of units of one sub-problem at the
	// default settings; ColdUnits that without the hyper-parameter search
	// (GPs with optimize=false); both from the calibration runs.
	Units, ColdUnits float64
	// Evaluations is the GP models' typical number of evidence evaluations
	// per L-BFGS search (the default settings run 1 + restarts searches).
	Evaluations float64
	// Quadratic names the n×n structures for messages ("the kernel matrix
	// and the EP posterior").
	Quadratic string
	// Linear, when not nil, is the cost with a linear kernel (twin SVMs:
	// their linear version solves (d+1)-dimensional systems instead of
	// n-dimensional ones).
	Linear *Cost
}

// Penalty is how a model's time grows with its penalty parameters (see
// above): factor(r) = 1 + A·(r^Q − 1) for r = max over Params of
// value/default, r ≥ 1 (so factor(1) = 1), in the slow case; on data
// whose training error e is known, 1 + A·(r^Q − 1)·min(1, (e/E)^B).
type Penalty struct {
	Params []string // the penalty parameters ("C"; "C_A", "C_B")
	A, Q   float64
	// E is the training error at the defaults in the slow case (the
	// heavily overlapping data A and Q were measured on), B the exponent
	// of the overlap's effect (0 when not measured: the factor then
	// stays the slow case's whatever the data).
	E, B float64
}

// overlapScale is how much of the slow case's growth data with training
// error e shows: (e/E)^B, at most 1; 1 when e is unknown (negative) or
// the model's B was not measured.
func (p *Penalty) overlapScale(e float64) float64 {
	if p == nil || !(e >= 0) || !(p.E > 0) || !(p.B > 0) {
		return 1
	}
	return math.Min(1, math.Pow(e/p.E, p.B))
}

// OverlapScaleOf is overlapScale for the calibration script's checks.
func (p *Penalty) OverlapScaleOf(e float64) float64 { return p.overlapScale(e) }

// factor is the penalty factor at values val (1 when no penalty parameter
// is above its default), in the slow case.
func (p *Penalty) factor(s *Spec, val func(string) string) float64 {
	if p == nil {
		return 1
	}
	r := 1.0
	for _, name := range p.Params {
		par := s.Param(name)
		if par == nil {
			continue
		}
		def, err1 := strconv.ParseFloat(par.Default, 64)
		v, err2 := strconv.ParseFloat(val(name), 64)
		if err1 == nil && err2 == nil && def > 0 && v > 0 && !math.IsInf(v, 0) {
			r = math.Max(r, v/def)
		}
	}
	return 1 + p.A*(math.Pow(r, p.Q)-1)
}

// Estimate is the predicted cost of a fit.
type Estimate struct {
	Seconds  float64 `json:"seconds"`   // CPU seconds of one native core (the calibration machine)
	Bytes    float64 `json:"bytes"`     // peak memory the fit adds
	Tasks    int     `json:"tasks"`     // sub-problems (binary models, tags)
	TaskRows int     `json:"task_rows"` // rows of each sub-problem
	// Quadratic names the n×n structures that dominate the memory, for
	// messages.
	Quadratic string `json:"quadratic,omitempty"`
	// Known is false when the model has no calibrated cost (the numbers
	// are then zero).
	Known bool `json:"known"`
	// Penalty is the factor Seconds includes for penalty parameters above
	// their defaults (1 or 0: none; see Penalty).
	Penalty float64 `json:"penalty,omitempty"`
	// Overlap is the training error the penalty factor was scaled by
	// (EstimateAfter), −1 when none was known: the factor is then the
	// slow case's.
	Overlap float64 `json:"overlap"`
}

// UpTo reports whether Seconds is an upper bound rather than a typical
// time: a large penalty makes the fit's time depend on how much the
// classes overlap, and Seconds assumes they overlap heavily, not knowing
// how much they do.
func (e Estimate) UpTo() bool { return e.Penalty > 1.5 && e.Overlap < 0 }

// Scaled reports whether a large penalty's factor was scaled by how much
// the classes overlap (a known training error): a typical time, with a
// wider error than the formula alone.
func (e Estimate) Scaled() bool { return e.Penalty > 1.5 && e.Overlap >= 0 }

// WasmFactor is how much slower the same fit runs as WebAssembly than
// natively: the median over several models of wasm (Node.js) wall time
// divided by native wall time for the same fits, measured by
// `go run ./scripts/cost wasm` (see costs.go for the figures). Browsers
// run WebAssembly at about Node's speed (both are V8 in Chromium).
var WasmFactor float64 = wasmFactor

// BrowserSeconds is the estimate's time under WebAssembly.
func (e Estimate) BrowserSeconds() float64 { return e.Seconds * WasmFactor }

// String says the estimate for people: "about 3.2 s, 120 MB".
func (e Estimate) String() string {
	if !e.Known {
		return "unknown cost"
	}
	if e.UpTo() {
		return "up to " + FormatSeconds(e.Seconds) + ", " + FormatBytes(e.Bytes)
	}
	return "about " + FormatSeconds(e.Seconds) + ", " + FormatBytes(e.Bytes)
}

// FormatSeconds writes a duration for people: "0.3 s", "45 s", "12 min", "3.1 h".
func FormatSeconds(s float64) string {
	switch {
	case s < 10:
		return strconv.FormatFloat(s, 'g', 2, 64) + " s"
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 7200:
		return fmt.Sprintf("%.0f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.0f days", s/86400)
}

// FormatBytes writes a size for people in powers of 1024: "512 kB", "1.5 GB".
func FormatBytes(b float64) string {
	switch {
	case b < 1<<20:
		return fmt.Sprintf("%.0f kB", b/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.0f MB", b/(1<<20))
	case b < 1<<40:
		return fmt.Sprintf("%.1f GB", b/(1<<30))
	}
	return fmt.Sprintf("%.1f TB", b/(1<<40))
}

// CostOf returns the calibrated cost of a model (nil when it has none).
func CostOf(id string) *Cost { return costTable[id] }

// Estimate predicts the time and peak memory of fitting model s with
// values v (resolved or not: missing values take the defaults) on data of
// shape sh, not knowing how much its classes overlap (a large penalty's
// time is then an upper bound).
func (s *Spec) Estimate(sh Shape, v Values) Estimate {
	return s.EstimateAfter(sh, v, -1)
}

// EstimateAfter is Estimate on data on which the model's training error
// was trainErr (in [0, 1]; negative: unknown), as an earlier fit of the
// model on the same data measured it: a large penalty's factor is then
// scaled by how much the classes overlap (see Penalty).
func (s *Spec) EstimateAfter(sh Shape, v Values, trainErr float64) Estimate {
	c := costTable[s.ID]
	if c == nil || sh.Rows <= 0 {
		return Estimate{}
	}
	val := func(name string) string {
		if x, ok := v[name]; ok {
			return x
		}
		if p := s.Param(name); p != nil {
			return p.Default
		}
		return ""
	}
	if c.Linear != nil && val("kernel") == KernelLinear {
		c = c.Linear
	}
	tasks, m := s.Tasks(sh, v)
	D := float64(sh.Dim + sh.ZDim)
	units := c.units(s, val)
	sub := units * c.seconds(float64(m), D)
	if b, err := strconv.ParseBool(val("probability")); err == nil && b {
		sub += 5 * units * c.seconds(0.8*float64(m), D)
	}
	pt := penaltyTable[s.ID]
	pen := pt.factor(s, val)
	overlap := -1.0
	if pen > 1 && trainErr >= 0 && trainErr <= 1 && pt.B > 0 {
		pen = 1 + (pen-1)*pt.overlapScale(trainErr)
		overlap = trainErr
	}
	cacheMiB, _ := strconv.ParseFloat(val("cache"), 64)
	return Estimate{
		Seconds:   float64(tasks) * sub * pen,
		Penalty:   pen,
		Overlap:   overlap,
		Bytes:     c.bytes(float64(m), D, cacheMiB),
		Tasks:     tasks,
		TaskRows:  m,
		Quadratic: c.Quadratic,
		Known:     true,
	}
}

// Tasks returns how many sub-problems a fit of s on data of shape sh
// solves and the rows of each: one for two classes, k for one-vs-rest,
// k(k−1)/2 of about 2n/k rows for one-vs-one, one per tag for independent
// SVMs.
func (s *Spec) Tasks(sh Shape, v Values) (tasks, rows int) {
	tasks, rows = 1, sh.Rows
	strategy := v["multiclass"]
	if strategy == "" {
		if p := s.Param("multiclass"); p != nil {
			strategy = p.Default
		}
	}
	switch {
	case s.Task == MultiLabel && s.ID == "indepsvm":
		tasks = max(1, sh.Tags)
	case s.Task == Binary && sh.Classes > 2:
		k := sh.Classes
		if strategy == "ovo" {
			return k * (k - 1) / 2, max(2, int(math.Round(2*float64(sh.Rows)/float64(k))))
		}
		tasks = k
	}
	return tasks, rows
}

// seconds is one unit of one sub-problem.
func (c *Cost) seconds(m, D float64) float64 {
	t := c.T0 + c.T1*m*D + c.T2*m*m*D
	if c.T3 > 0 {
		t += c.T3 * math.Pow(m/1000, c.P)
	}
	return t
}

// bytes is the peak memory of one sub-problem.
func (c *Cost) bytes(m, D, cacheMiB float64) float64 {
	q := c.B2 * m * m
	if c.CacheBytes > 0 && cacheMiB > 0 {
		q = math.Min(q, cacheMiB*c.CacheBytes)
	}
	return c.B0 + c.B1*m*D + q
}

// units is how many units (EP sweeps, convex–concave steps) one
// sub-problem takes with these values.
func (c *Cost) units(s *Spec, val func(string) string) float64 {
	num := func(name string) (float64, bool) {
		f, err := strconv.ParseFloat(val(name), 64)
		return f, err == nil
	}
	switch c.Unit {
	case "ep_sweeps_total":
		maxSweeps, ok := num("max_sweeps")
		if !ok || maxSweeps <= 0 {
			maxSweeps = math.Inf(1)
		}
		if opt, err := strconv.ParseBool(val("optimize")); err == nil && !opt {
			return math.Min(c.ColdUnits, maxSweeps)
		}
		// Units and Evaluations were measured at the default number of
		// restarts; each restart is one more L-BFGS search.
		restarts, _ := num("restarts")
		def := 0.0
		if p := s.Param("restarts"); p != nil {
			def, _ = strconv.ParseFloat(p.Default, 64)
		}
		evals := c.Evaluations * (1 + math.Max(0, restarts)) / (1 + def)
		return evals * math.Min(c.Units/math.Max(1, c.Evaluations), maxSweeps)
	case "ccp_steps":
		if steps, ok := num("ccp_iter"); ok && steps > 0 {
			return math.Min(c.Units, steps)
		}
		return c.Units
	}
	return 1
}
