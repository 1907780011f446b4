// Package spec is LUPI Lab's model catalogue: what every model is (its paper,
// equations, task, which data blocks it needs), its hyper-parameters (name,
// default, range, scale, help), the quantities its fits report, and what a
// fit costs. It is metadata only — it imports nothing but the standard
// library — so the browser's UI build renders forms, tables and cost
// estimates from it without linking any numerics. The implementations bind
// to these specs by id in package model (model.Register); a model's numbers
// never live here.
//
// Adding a model: declare its Spec in the catalogue file of its family
// (catalog_*.go), implement Fit and Load in a model package, and bind them
// with model.Register(id, fit, load). The registry test in models/all checks
// that every spec has an implementation and that every key a fit reports is
// declared in Outputs.
package spec

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// FamilyInfo names a family for people, in catalogue order.
type FamilyInfo struct {
	ID    Family
	Label string
}

// Families lists the families in the order menus show them.
var Families = []FamilyInfo{
	{FamilySVM, "SVM and SVM+ (Xu et al. 2016)"},
	{FamilyGP, "Gaussian processes (Hernández-Lobato et al. 2014)"},
	{FamilyTwin, "Twin SVMs (Xu & Wang)"},
	{FamilyMultiView, "Multi-view (Xu & Wang)"},
	{FamilyTags, "Multi-label (Xiong et al. 2014)"},
}

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
	// Aliases are other names accepted for this parameter (older names, or
	// the names a paper uses); Resolve maps them to Name.
	Aliases []string `json:"aliases,omitempty"`
	// ShowIf hides the parameter unless another parameter has one of the given
	// values, e.g. {"kernel": {"rbf"}} for gamma. Purely a UI hint.
	ShowIf map[string][]string `json:"show_if,omitempty"`
	// Advanced marks solver settings (tolerances, caches, iteration limits)
	// that the UI folds away. Purely a UI hint.
	Advanced bool `json:"advanced,omitempty"`
}

// Spec describes a model: everything about it but its implementation.
type Spec struct {
	ID        string  `json:"id"`        // stable identifier: "svm", "svm2plus", …
	Name      string  `json:"name"`      // display name: "SVM2+"
	Paper     string  `json:"paper"`     // citation of the paper the model comes from
	Equations string  `json:"equations"` // equations implemented, e.g. "Xu et al. 2016, eqs (3)-(5)"
	About     string  `json:"about"`     // one paragraph for the UI
	Task      Task    `json:"task"`
	Family    Family  `json:"family"`
	Z         Block   `json:"z"`
	Params    []Param `json:"params"`
	// MultiClass lists the strategies a binary model supports for more than
	// two classes ("ovr", "ovo"); empty for native multi-class / multi-label.
	MultiClass []string `json:"multiclass,omitempty"`
	// Support names what Report.NSupport counts for this model ("support
	// vectors", "samples with α > 0"); empty when the model has no such
	// notion (a GP's prediction uses every training sample).
	Support string `json:"support,omitempty"`
	// Objective names what Report.Objective is for this model (e.g. "Dual
	// objective", "Negative log evidence").
	Objective string `json:"objective,omitempty"`
	// Outputs declares every scalar (Report.Extras) and per-sample vector
	// (Report.Diagnostics) a fit of this model reports.
	Outputs []Output `json:"outputs,omitempty"`
}

var (
	mu       sync.RWMutex
	registry = map[string]*Spec{}
)

// register adds a catalogue entry; it panics on a programming error
// (duplicate id, bad parameter or output declaration) since it runs from init.
func register(s *Spec) {
	if s.ID == "" || s.Name == "" {
		panic("spec: a spec needs an ID and a Name")
	}
	for _, p := range s.Params {
		if err := p.check(); err != nil {
			panic(fmt.Sprintf("spec %s: %v", s.ID, err))
		}
	}
	names := map[string]bool{}
	for _, p := range s.Params {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if names[n] {
				panic(fmt.Sprintf("spec %s: parameter name or alias %q used twice", s.ID, n))
			}
			names[n] = true
		}
	}
	seen := map[string]bool{}
	for _, o := range s.Outputs {
		if o.Key == "" || o.Label == "" || seen[o.Key] {
			panic(fmt.Sprintf("spec %s: output %q needs a unique key and a label", s.ID, o.Key))
		}
		seen[o.Key] = true
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[s.ID]; dup {
		panic("spec: duplicate id " + s.ID)
	}
	registry[s.ID] = s
}

// Lookup returns the spec with the given id.
func Lookup(id string) (*Spec, error) {
	mu.RLock()
	defer mu.RUnlock()
	return Find(registry, id)
}

// Find returns the entry of a registry keyed by model id (this catalogue's,
// or package model's of implementations), or an error naming the unknown id
// and listing the known ones in order.
func Find[T any](registry map[string]T, id string) (T, error) {
	s, ok := registry[id]
	if !ok {
		ids := make([]string, 0, len(registry))
		for k := range registry {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		return s, fmt.Errorf("unknown model %q (known: %s)", id, strings.Join(ids, ", "))
	}
	return s, nil
}

// MustLookup returns the spec with the given id and panics when there is
// none: for the model packages' own ids, which the catalogue declares.
func MustLookup(id string) *Spec {
	s, err := Lookup(id)
	if err != nil {
		panic(err)
	}
	return s
}

// All returns every spec, ordered by family then id.
func All() []*Spec {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	SortSpecs(out)
	return out
}

// SortSpecs orders specs by family (catalogue order) then id.
func SortSpecs(out []*Spec) {
	order := map[Family]int{}
	for i, f := range Families {
		order[f.ID] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if order[out[i].Family] != order[out[j].Family] {
			return order[out[i].Family] < order[out[j].Family]
		}
		return out[i].ID < out[j].ID
	})
}

// Param returns the parameter spec with the given name or alias, or nil.
func (s *Spec) Param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	for i := range s.Params {
		for _, a := range s.Params[i].Aliases {
			if a == name {
				return &s.Params[i]
			}
		}
	}
	return nil
}

// Output returns the declaration of a reported key, or nil.
func (s *Spec) Output(key string) *Output {
	for i := range s.Outputs {
		if s.Outputs[i].Matches(key) {
			return &s.Outputs[i]
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
// aliases become canonical names; unknown names, unparsable values and
// values out of range are errors.
func (s *Spec) Resolve(v Values) (Values, error) {
	out := s.Defaults()
	given := map[string]string{}
	for k, val := range v {
		p := s.Param(k)
		if p == nil {
			names := make([]string, len(s.Params))
			for i, q := range s.Params {
				names[i] = q.Name
			}
			return nil, fmt.Errorf("model %s has no parameter %q (parameters: %s)", s.ID, k, strings.Join(names, ", "))
		}
		if prev, ok := given[p.Name]; ok && prev != k {
			return nil, fmt.Errorf("model %s: %q and %q name the same parameter", s.ID, prev, k)
		}
		given[p.Name] = k
		if err := p.Validate(val); err != nil {
			return nil, fmt.Errorf("model %s: %w", s.ID, err)
		}
		out[p.Name] = val
	}
	return out, nil
}

// Canonical returns v with every alias replaced by its parameter's name;
// names the spec does not know are kept as they are (Resolve reports
// them). Fits canonicalise the values they get (model.Bind), so code that
// still uses an old name keeps working — also code that starts from
// Defaults() (canonical names) and sets a parameter under its old name:
// a value at the parameter's default gives way to the other name's. It
// fails when a parameter is given twice, under different names, with two
// different values that are not the default.
func (s *Spec) Canonical(v Values) (Values, error) { return CanonicalIn(s.Params, v) }

// CanonicalIn is Canonical over a parameter list.
func CanonicalIn(params []Param, v Values) (Values, error) {
	alias := map[string]*Param{}
	for i, p := range params {
		for _, a := range p.Aliases {
			alias[a] = &params[i]
		}
	}
	if len(alias) == 0 {
		return v, nil
	}
	out := make(Values, len(v))
	for k, x := range v {
		if _, isAlias := alias[k]; !isAlias {
			out[k] = x
		}
	}
	for k, x := range v {
		p, isAlias := alias[k]
		if !isAlias {
			continue
		}
		prev, dup := out[p.Name]
		switch {
		case !dup || prev == x || prev == p.Default:
			out[p.Name] = x
		case x == p.Default:
			// the canonical name holds a deliberate value
		default:
			return nil, fmt.Errorf("%q and %q name the same parameter with different values (%s, %s)", p.Name, k, prev, x)
		}
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

// Bounded reports whether the parameter has a range (Min or Max set).
func (p Param) Bounded() bool { return p.Min != 0 || p.Max != 0 }

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
		if p.Bounded() && (f < p.Min || f > p.Max) {
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

// DefaultGenerator names the synthetic dataset that shows the model best:
// tags for multi-label models, two views for view models, privileged data
// for LUPI models, two moons otherwise. The app switches to it when the data
// on screen does not suit the model; tests and benchmarks fit on it.
func (s *Spec) DefaultGenerator() string {
	switch {
	case s.Task == MultiLabel:
		return "multilabel2d"
	case s.Z == ZView:
		return "twoview2d"
	case s.Z == ZPrivileged:
		return "lupi2d"
	}
	return "moons"
}
