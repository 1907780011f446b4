// Package model is LUPI Lab's model registry and the contracts every model
// keeps: a Spec describes a model (its paper, its parameters, which data blocks
// it needs), Fit trains it, and a Fitted model predicts, reports and
// serialises itself. The UI renders its forms and the CLI parses its flags from
// this one registry, so adding a model touches no UI code.
package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"lupilab/models/data"
)

// Task is what a model predicts.
type Task string

// Tasks.
const (
	Binary     Task = "binary"     // two classes (multi-class through OvR / OvO wrappers)
	MultiClass Task = "multiclass" // native multi-class
	MultiLabel Task = "multilabel" // tag sets
)

// Family groups models that share a visualisation in the UI.
type Family string

// Families.
const (
	FamilySVM       Family = "svm"       // SVM, L2-SVM, SVM1+, SVM2+
	FamilyGP        Family = "gp"        // GPC, GPC+
	FamilyTwin      Family = "twin"      // TWSVM, WLTSVM
	FamilyMultiView Family = "multiview" // MPWTSVM, SVM-2K, MVTSVM, PSVM-2V, MCPK
	FamilyTags      Family = "tags"      // joint SVM, independent SVMs
)

// Block says how a model uses the second data block Z.
type Block string

// Uses of Z.
const (
	ZNone       Block = ""           // ignores Z
	ZPrivileged Block = "privileged" // needs Z at training time only
	ZView       Block = "view"       // needs Z at training and at test time (view B)
)

// ParamKind is the type of a hyper-parameter.
type ParamKind string

// Parameter kinds.
const (
	Float  ParamKind = "float"
	Int    ParamKind = "int"
	Choice ParamKind = "choice"
	Bool   ParamKind = "bool"
)

// Param describes one hyper-parameter.
type Param struct {
	Name    string    `json:"name"`              // key in Values, CLI -set name=value, URL
	Label   string    `json:"label"`             // short label for the UI
	Kind    ParamKind `json:"kind"`              // float, int, choice, bool
	Default string    `json:"default"`           // default value, as text
	Min     float64   `json:"min,omitempty"`     // inclusive range for float / int
	Max     float64   `json:"max,omitempty"`     // (Min == Max == 0: unbounded)
	Log     bool      `json:"log,omitempty"`     // slider on a log scale
	Choices []string  `json:"choices,omitempty"` // for Choice
	Help    string    `json:"help,omitempty"`    // one sentence for the UI
	// ShowIf hides the parameter unless another parameter has one of the given
	// values, e.g. {"kernel": {"rbf"}} for gamma. Purely a UI hint.
	ShowIf map[string][]string `json:"show_if,omitempty"`
	// Advanced marks solver settings (tolerances, caches, iteration limits)
	// that the UI folds away. Purely a UI hint.
	Advanced bool `json:"advanced,omitempty"`
}

// Spec describes a registered model.
type Spec struct {
	ID        string  `json:"id"`        // stable identifier: "svm", "svm2plus", …
	Name      string  `json:"name"`      // display name: "SVM2+"
	Paper     string  `json:"paper"`     // citation of the paper the model comes from
	Equations string  `json:"equations"` // equations implemented, e.g. "paper 000, eqs (3)-(5)"
	About     string  `json:"about"`     // one paragraph for the UI
	Task      Task    `json:"task"`
	Family    Family  `json:"family"`
	Z         Block   `json:"z"`
	Params    []Param `json:"params"`
	// MultiClass lists the strategies a binary model supports for more than
	// two classes ("ovr", "ovo"); empty for native multi-class / multi-label.
	MultiClass []string `json:"multiclass,omitempty"`

	// Fit trains the model. Never nil.
	Fit FitFunc `json:"-"`
	// Load rebuilds a fitted model from the "fitted" field of its saved JSON
	// (see Save / Load). Never nil.
	Load func(raw json.RawMessage) (Fitted, error) `json:"-"`
}

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

// Register adds a spec to the registry; it panics on a programming error
// (duplicate id, missing Fit/Load, bad parameter spec) since it runs from init.
func Register(s *Spec) {
	if s.ID == "" || s.Fit == nil || s.Load == nil {
		panic("model: Register needs an ID, Fit and Load")
	}
	for _, p := range s.Params {
		if err := p.check(); err != nil {
			panic(fmt.Sprintf("model %s: %v", s.ID, err))
		}
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[s.ID]; dup {
		panic("model: duplicate id " + s.ID)
	}
	registry[s.ID] = s
}

// Lookup returns the spec with the given id.
func Lookup(id string) (*Spec, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := registry[id]
	if !ok {
		ids := make([]string, 0, len(registry))
		for k := range registry {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		return nil, fmt.Errorf("unknown model %q (known: %s)", id, strings.Join(ids, ", "))
	}
	return s, nil
}

// All returns every registered spec, ordered by family then id.
func All() []*Spec {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	order := map[Family]int{FamilySVM: 0, FamilyGP: 1, FamilyTwin: 2, FamilyMultiView: 3, FamilyTags: 4}
	sort.Slice(out, func(i, j int) bool {
		if order[out[i].Family] != order[out[j].Family] {
			return order[out[i].Family] < order[out[j].Family]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Param returns the parameter spec with the given name, or nil.
func (s *Spec) Param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// Defaults returns every parameter at its default value.
func (s *Spec) Defaults() Values {
	v := Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	return v
}

// Resolve returns v completed with defaults and checked against the spec:
// unknown names, unparsable values and values out of range are errors.
func (s *Spec) Resolve(v Values) (Values, error) {
	out := s.Defaults()
	for k, val := range v {
		p := s.Param(k)
		if p == nil {
			names := make([]string, len(s.Params))
			for i, q := range s.Params {
				names[i] = q.Name
			}
			return nil, fmt.Errorf("model %s has no parameter %q (parameters: %s)", s.ID, k, strings.Join(names, ", "))
		}
		if err := p.Validate(val); err != nil {
			return nil, fmt.Errorf("model %s: %w", s.ID, err)
		}
		out[k] = val
	}
	return out, nil
}

func (p Param) check() error {
	if p.Name == "" {
		return fmt.Errorf("parameter without a name")
	}
	if p.Kind == Choice && len(p.Choices) == 0 {
		return fmt.Errorf("choice parameter %s without choices", p.Name)
	}
	if p.Log && p.Min <= 0 {
		return fmt.Errorf("log-scale parameter %s needs Min > 0", p.Name)
	}
	return p.Validate(p.Default)
}

// Validate checks one textual value against the parameter spec.
func (p Param) Validate(val string) error {
	switch p.Kind {
	case Float, Int:
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return fmt.Errorf("parameter %s: %q is not a number", p.Name, val)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("parameter %s: %v is not a finite number", p.Name, f)
		}
		if p.Kind == Int && f != math.Trunc(f) {
			return fmt.Errorf("parameter %s: %v is not an integer", p.Name, f)
		}
		if (p.Min != 0 || p.Max != 0) && (f < p.Min || f > p.Max) {
			return fmt.Errorf("parameter %s: %v is outside [%g, %g]", p.Name, f, p.Min, p.Max)
		}
	case Choice:
		for _, c := range p.Choices {
			if c == val {
				return nil
			}
		}
		return fmt.Errorf("parameter %s: %q is not one of %s", p.Name, val, strings.Join(p.Choices, ", "))
	case Bool:
		if _, err := strconv.ParseBool(val); err != nil {
			return fmt.Errorf("parameter %s: %q is not true or false", p.Name, val)
		}
	default:
		return fmt.Errorf("parameter %s: unknown kind %q", p.Name, p.Kind)
	}
	return nil
}

// Values holds hyper-parameter values as text, keyed by parameter name: the
// form they take in URLs, CLI flags and JSON. Models read them with the typed
// getters after Spec.Resolve has filled defaults and checked ranges.
type Values map[string]string

// Float returns a float parameter (0 when missing or unparsable: Resolve
// prevents both).
func (v Values) Float(name string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(v[name]), 64)
	return f
}

// Int returns an integer parameter.
func (v Values) Int(name string) int { return int(v.Float(name)) }

// String returns a choice parameter.
func (v Values) String(name string) string { return v[name] }

// Bool returns a boolean parameter.
func (v Values) Bool(name string) bool {
	b, _ := strconv.ParseBool(v[name])
	return b
}

// Clone returns a copy of v.
func (v Values) Clone() Values {
	out := make(Values, len(v))
	for k, x := range v {
		out[k] = x
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
