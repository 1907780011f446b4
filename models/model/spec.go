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
	"sort"
	"strings"
	"sync"

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
	registry[meta.ID] = &Spec{Spec: meta, Fit: fit, Load: load}
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
