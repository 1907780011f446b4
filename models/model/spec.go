// Package model is LUPI Lab's model registry and the contracts every model
// keeps: the catalogue (package spec) describes a model — its paper, its
// parameters, which data blocks it needs, what it reports — and model binds
// an implementation to it: Fit trains it, and a Fitted model predicts,
// reports and serialises itself. The UI renders its forms and the CLI parses
// its flags from the catalogue, so adding a model touches no UI code.
package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/spec"
)

// The model catalogue's types live in package spec (metadata only, so the
// browser's UI build can use them without any numerics); model names them
// too, so that model code reads model.Values, model.Param, model.Binary.
type (
	// Task is what a model predicts.
	Task = spec.Task
	// Family groups models that share a visualisation in the UI.
	Family = spec.Family
	// Block says how a model uses the second data block Z.
	Block = spec.Block
	// ParamKind is the type of a hyper-parameter.
	ParamKind = spec.ParamKind
	// Param describes one hyper-parameter.
	Param = spec.Param
	// Values holds hyper-parameter values as text, keyed by parameter name.
	Values = spec.Values
	// Output declares one quantity a fit reports (Report.Extras, Diagnostics).
	Output = spec.Output
)

// Tasks, families, uses of Z and parameter kinds (see package spec).
const (
	Binary          = spec.Binary
	MultiClass      = spec.MultiClass
	MultiLabel      = spec.MultiLabel
	FamilySVM       = spec.FamilySVM
	FamilyGP        = spec.FamilyGP
	FamilyTwin      = spec.FamilyTwin
	FamilyMultiView = spec.FamilyMultiView
	FamilyTags      = spec.FamilyTags
	ZNone           = spec.ZNone
	ZPrivileged     = spec.ZPrivileged
	ZView           = spec.ZView
	Float           = spec.Float
	Int             = spec.Int
	Choice          = spec.Choice
	Bool            = spec.Bool
)

// Spec is a catalogued model with its implementation: the metadata of
// package spec (promoted: s.ID, s.Params, s.Resolve, …) plus Fit and Load.
type Spec struct {
	*spec.Spec
	// Fit trains the model. Never nil.
	Fit FitFunc `json:"-"`
	// Load rebuilds a fitted model from the "fitted" field of its saved JSON
	// (see Save / Load). Never nil.
	Load LoadFunc `json:"-"`
}

// LoadFunc rebuilds a fitted model from its saved JSON.
type LoadFunc func(raw json.RawMessage) (Fitted, error)

// FitFunc trains a model on a dataset.
type FitFunc func(ctx context.Context, train *data.Dataset, v Values, opt Options) (Fitted, error)

// Options are the non-hyper-parameter settings of a fit.
type Options struct {
	Seed int64 // for anything random (Platt CV folds, restarts, …)
	// Progress may be nil. Fits must call it (through Options.Report) often:
	// at least every ~10 ms of work. In the browser Go's wasm is single
	// threaded and this callback is where the page gets to redraw (it sleeps
	// briefly), so a solver that never reports freezes the tab.
	Progress func(Progress)
	// Workspace, when not nil, holds the caches this fit shares with the
	// other fits given the same Workspace (see Workspace): pass one to every
	// fit of an experiment or a grid search on the same data. Nil shares
	// nothing beyond the fit itself.
	Workspace *Workspace
	// MemoryBudget, when > 0, is the most memory (bytes) the fit may add
	// at its peak. Before it builds anything, a fit estimates its peak from
	// the catalogue's calibrated cost model (spec.Estimate: the n×n Gram
	// matrices, Qλ, EP posteriors and QP systems of its sub-problems) and
	// refuses with a *ResourceError beyond the budget. The CLI sets it from
	// the machine's memory (-max-memory), the app from the tab's budget; 0
	// checks nothing.
	MemoryBudget float64
	// Watch, when not nil, receives intermediate models while the fit
	// trains (see Watch); fits that do not support it ignore it.
	Watch *Watch
}

// Report sends p to the progress callback when there is one.
func (o Options) Report(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// Progress is a progress report from a running fit.
type Progress struct {
	Fraction float64 `json:"fraction"`          // in [0,1], best estimate; −1 when unknown
	Stage    string  `json:"stage,omitempty"`   // e.g. "class 2 of 5", "EP sweep 3"
	Iter     int     `json:"iter,omitempty"`    // solver iterations so far
	Message  string  `json:"message,omitempty"` // free text
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Spec{}
)

// Register binds an implementation to the catalogue entry with the given id
// (package spec); it panics on a programming error (no such entry, a second
// binding, nil Fit or Load) since it runs from init.
func Register(id string, fit FitFunc, load LoadFunc) {
	Bind(spec.MustLookup(id), fit, load)
}

// Bind registers an implementation under metadata that need not be in the
// catalogue (tests, experiments with private models); Register is Bind with
// the catalogue's entry.
func Bind(meta *spec.Spec, fit FitFunc, load LoadFunc) {
	if meta == nil || meta.ID == "" || fit == nil || load == nil {
		panic("model: Bind needs metadata with an ID, Fit and Load")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[meta.ID]; dup {
		panic("model: duplicate id " + meta.ID)
	}
	registry[meta.ID] = &Spec{Spec: meta, Fit: guarded(meta, fit), Load: load}
}

// guarded wraps every registered fit: parameter aliases become their
// canonical names (so that code still using an old name keeps working) and
// the memory budget is checked before the model's own code runs.
func guarded(meta *spec.Spec, fit FitFunc) FitFunc {
	return func(ctx context.Context, train *data.Dataset, v Values, opt Options) (Fitted, error) {
		c, err := meta.Canonical(v)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", meta.ID, err)
		}
		if train != nil && train.X != nil {
			if err := checkMagnitude(meta, train); err != nil {
				return nil, err
			}
			if err := checkPoly(meta, train, c); err != nil {
				return nil, err
			}
			if opt.MemoryBudget > 0 {
				if err := CheckBudget(meta, ShapeOf(meta, train), c, opt.MemoryBudget); err != nil {
					return nil, err
				}
			}
		}
		f, err := fit(ctx, train, c, opt)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, fmt.Errorf("model %s: the fit returned no model", meta.ID)
		}
		if err := checkReport(f.Report(), ""); err != nil {
			return nil, fmt.Errorf("%s: the fit produced %v: the hyper-parameters are numerically extreme for these data (try values nearer the defaults, or scale the features)", meta.Name, err)
		}
		return f, nil
	}
}

// maxMagnitude is the largest feature magnitude a fit accepts: kernels
// square features and sum d of them, so beyond about 1e150 the squares
// overflow float64 and every solver would fail with its own message.
const maxMagnitude = 1e150

// checkMagnitude refuses features whose squares overflow, with a message
// for people (the solvers would say "Q[3][3] = NaN is not finite").
func checkMagnitude(meta *spec.Spec, ds *data.Dataset) error {
	type block struct {
		name  string
		m     *mat.Dense
		names []string
	}
	blocks := []block{{"X", ds.X, ds.XNames}}
	if meta.Z != ZNone && ds.Z != nil {
		blocks = append(blocks, block{"Z", ds.Z, ds.ZNames})
	}
	for _, b := range blocks {
		r, c := b.m.Dims()
		limit := maxMagnitude / math.Sqrt(float64(c))
		for i := 0; i < r; i++ {
			for j, v := range b.m.RawRowView(i)[:c] {
				if math.IsInf(v, 0) || !(math.Abs(v) > limit) {
					continue // NaN and ±Inf are the data check's to report
				}
				col := fmt.Sprintf("column %d", j+1)
				if j < len(b.names) {
					col = fmt.Sprintf("column %q", b.names[j])
				}
				return fmt.Errorf("%s: row %d, %s of %s holds %g, too large for the kernels (which square the features): scale the features (e.g. lupi fit -scale) so that they stay below %.0e",
					meta.Name, i+1, col, b.name, v, limit)
			}
		}
	}
	return nil
}

// checkPoly refuses data on which a polynomial kernel (γ⟨x,x'⟩ + coef0)^d
// overflows float64 (the kernel on X, "kernel", and on Z, "zkernel"):
// the solvers would fail on an infinite matrix entry.
func checkPoly(meta *spec.Spec, ds *data.Dataset, v Values) error {
	for _, k := range []struct {
		prefix, block string
		m             *mat.Dense
	}{{"", "X", ds.X}, {"z", "Z", ds.Z}} {
		if k.m == nil || v[k.prefix+"kernel"] != spec.KernelPoly || (k.prefix == "z" && meta.Z == ZNone) {
			continue
		}
		g, c, d := v.Float(k.prefix+"gamma"), v.Float(k.prefix+"coef0"), v.Float(k.prefix+"degree")
		if !(g > 0) || !(d >= 1) {
			continue // the model reports bad kernel parameters itself
		}
		r, cols := k.m.Dims()
		for i := 0; i < r; i++ {
			row := k.m.RawRowView(i)[:cols]
			var sq float64
			for _, x := range row {
				sq += x * x
			}
			if base := g*sq + math.Abs(c); d*math.Log(base) > 700 {
				return fmt.Errorf("%s: the polynomial kernel (γ‖x‖² + coef0)^%g of %s overflows on row %d (γ‖x‖² = %.3g): scale the features (e.g. lupi fit -scale), or lower %sgamma or %sdegree",
					meta.Name, d, k.block, i+1, g*sq, k.prefix, k.prefix)
			}
		}
	}
	return nil
}

// checkReport returns an error naming the first non-finite number of a
// fit's report (its objective, rho, extras, per-sample diagnostics and
// sub-reports): JSON cannot hold it, and it means the fit failed.
func checkReport(r *Report, where string) error {
	if r == nil {
		return nil
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if bad(r.Objective) {
		return fmt.Errorf("a non-finite objective (%v)%s", r.Objective, where)
	}
	if r.Rho != nil && bad(*r.Rho) {
		return fmt.Errorf("a non-finite offset rho (%v)%s", *r.Rho, where)
	}
	for k, x := range r.Extras {
		if bad(x) {
			return fmt.Errorf("a non-finite %s (%v)%s", k, x, where)
		}
	}
	for k, d := range r.Diagnostics {
		for i, x := range d {
			if bad(x) {
				return fmt.Errorf("a non-finite %s (%v) at training row %d%s", k, x, i+1, where)
			}
		}
	}
	for i, s := range r.Sub {
		if err := checkReport(s, fmt.Sprintf(" in sub-problem %d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// ShapeOf is the shape of a training set as the cost model sees it: the
// second block counts only for models that use it.
func ShapeOf(meta *spec.Spec, ds *data.Dataset) spec.Shape {
	sh := spec.Shape{Rows: ds.Rows(), Dim: ds.Dim(), Classes: len(ds.Classes), Tags: ds.NumTags()}
	if meta.Z != ZNone {
		sh.ZDim = ds.ZDim()
	}
	return sh
}

// ResourceError is a fit refused before it started because its estimated
// peak memory exceeds the budget (Options.MemoryBudget).
type ResourceError struct {
	Model    string        // display name
	Shape    spec.Shape    // the training data's
	Estimate spec.Estimate // the cost model's prediction
	Budget   float64       // bytes
	fitRows  int
}

// Error says what, how much, and how to proceed, in one line.
func (e *ResourceError) Error() string {
	what := ""
	if e.Estimate.Quadratic != "" {
		what = ", for " + e.Estimate.Quadratic
		if e.Estimate.TaskRows > 0 {
			what += fmt.Sprintf(" of %d×%d", e.Estimate.TaskRows, e.Estimate.TaskRows)
		}
	}
	return fmt.Sprintf("%s on %d rows would need about %s of memory at its peak%s, more than the %s allowed: "+
		"fit it on a sub-sample (about %d rows fit), or choose a model whose memory does not grow with n² (SVM, L2-SVM)",
		e.Model, e.Shape.Rows, spec.FormatBytes(e.Estimate.Bytes), what, spec.FormatBytes(e.Budget), e.FitRows())
}

// FitRows is about how many training rows the budget allows this model
// (the largest n whose estimate fits, to 5 %).
func (e *ResourceError) FitRows() int {
	return e.fitRows
}

// CheckBudget returns a *ResourceError when fitting meta with values v on
// data of shape sh is estimated to need more than budget bytes at its peak
// (nil when it fits or the model has no calibrated cost).
func CheckBudget(meta *spec.Spec, sh spec.Shape, v Values, budget float64) error {
	est := meta.Estimate(sh, v)
	if !est.Known || budget <= 0 || est.Bytes <= budget {
		return nil
	}
	e := &ResourceError{Model: meta.Name, Shape: sh, Estimate: est, Budget: budget}
	lo, hi := 0, sh.Rows
	for hi-lo > max(1, lo/20) {
		mid := (lo + hi) / 2
		s := sh
		s.Rows = mid
		if meta.Estimate(s, v).Bytes <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	e.fitRows = lo
	return e
}

// Lookup returns the spec with the given id.
func Lookup(id string) (*Spec, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	return spec.Find(registry, id)
}

// All returns every registered spec, ordered by family then id.
func All() []*Spec {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	meta := make([]*spec.Spec, len(out))
	byMeta := map[*spec.Spec]*Spec{}
	for i, s := range out {
		meta[i] = s.Spec
		byMeta[s.Spec] = s
	}
	spec.SortSpecs(meta)
	for i, m := range meta {
		out[i] = byMeta[m]
	}
	return out
}

// CheckData says whether the model can use a dataset: tags for multi-label
// models, class labels for classifiers, the second block for models that
// need privileged features or a second view.
func (s *Spec) CheckData(ds *data.Dataset) error {
	switch {
	case ds == nil:
		return data.ErrNoData
	case s.Task == MultiLabel && ds.Tags == nil:
		return fmt.Errorf("%s predicts tag sets: the data has no tags", s.Name)
	case s.Task != MultiLabel && ds.Y == nil:
		return fmt.Errorf("%s is a classifier: the data has no class labels", s.Name)
	case s.Z != ZNone && ds.Z == nil:
		return fmt.Errorf("%s needs a second feature block (privileged features or view B): the data has none", s.Name)
	}
	return nil
}

// ForPredict returns ds as the model may see it at test time: models that
// use Z only while training (privileged information) never see it.
func (s *Spec) ForPredict(ds *data.Dataset) *data.Dataset {
	if s.Z == ZView || ds.Z == nil {
		return ds
	}
	c := *ds
	c.Z = nil
	return &c
}
