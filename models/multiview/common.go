package multiview

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// Decision rules of a two-view model (paper 001, section 5.1 "Measures").
const (
	RuleA    = "A"    // sign(f_A(x_A))
	RuleB    = "B"    // sign(f_B(x_B))
	RuleBoth = "both" // sign(½(f_A(x_A) + f_B(x_B)))
)

// withDefaults completes v with the spec's defaults (Fit may be called with
// values that did not go through Spec.Resolve), old parameter names
// (aliases) read as their parameter's.
func withDefaults(params []model.Param, v model.Values) model.Values {
	out := model.Values{}
	for _, p := range params {
		out[p.Name] = p.Default
	}
	if c, err := spec.CanonicalIn(params, v); err == nil {
		v = c
	}
	for k, x := range v {
		out[k] = x
	}
	return out
}

// positive reads a parameter that must be a finite number > 0.
func positive(v model.Values, name string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v[name]), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, fmt.Errorf("parameter %s must be a finite number > 0 (got %q)", name, v[name])
	}
	return f, nil
}

// nonNegative reads a parameter that must be a finite number ≥ 0.
func nonNegative(v model.Values, name string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v[name]), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("parameter %s must be a finite number ≥ 0 (got %q)", name, v[name])
	}
	return f, nil
}

func ruleOf(v model.Values) (string, error) {
	r := v["rule"]
	switch r {
	case RuleA, RuleB, RuleBoth:
		return r, nil
	}
	return "", fmt.Errorf("parameter rule: %q is not one of A, B, both", r)
}

// ErrNoViewB is returned when a dataset has no second view.
var ErrNoViewB = errors.New("multiview: the dataset has no view B (Z); two-view models need both views at training and at test time")

// checkTrain validates a binary two-view training set: both views present,
// same rows, finite values, labels ±1 with both classes present.
func checkTrain(train *data.Dataset, y []float64) (xa, xb *mat.Dense, err error) {
	if train == nil || train.X == nil {
		return nil, nil, data.ErrNoData
	}
	if train.Z == nil {
		return nil, nil, ErrNoViewB
	}
	n, _ := train.X.Dims()
	if nz, _ := train.Z.Dims(); nz != n {
		return nil, nil, fmt.Errorf("multiview: view B has %d rows, view A has %d", nz, n)
	}
	if n < 2 {
		return nil, nil, fmt.Errorf("multiview: %d training samples, need at least 2", n)
	}
	if len(y) != n {
		return nil, nil, fmt.Errorf("multiview: %d labels for %d rows", len(y), n)
	}
	if err := finite("view A", train.X); err != nil {
		return nil, nil, err
	}
	if err := finite("view B", train.Z); err != nil {
		return nil, nil, err
	}
	if err := model.CheckBinaryLabels(y); err != nil {
		return nil, nil, fmt.Errorf("multiview: %w", err)
	}
	return train.X, train.Z, nil
}

// views is what every two-view fit reads before it builds its problem: the
// two views' training rows, the decision rule and each view's kernel.
type views struct {
	xa, xb *mat.Dense
	rule   string
	ka, kb kernel.Kernel
}

// penalty names a hyper-parameter, positive (or non-negative, zeroOK),
// and where readViews stores it.
type penalty struct {
	name   string
	dst    *float64
	zeroOK bool
}

// readViews checks a two-view training set (checkTrain), then reads the
// named parameters, the rule and the kernels of views A ("") and
// B ("z"), in that order, stopping at the first error.
func readViews(train *data.Dataset, y []float64, v model.Values, ps ...penalty) (views, error) {
	xa, xb, err := checkTrain(train, y)
	if err != nil {
		return views{}, err
	}
	w := views{xa: xa, xb: xb}
	for _, p := range ps {
		read := positive
		if p.zeroOK {
			read = nonNegative
		}
		if *p.dst, err = read(v, p.name); err != nil {
			return views{}, err
		}
	}
	if w.rule, err = ruleOf(v); err != nil {
		return views{}, err
	}
	if w.ka, err = kernel.FromValues(v, ""); err != nil {
		return views{}, err
	}
	if w.kb, err = kernel.FromValues(v, "z"); err != nil {
		return views{}, err
	}
	return w, nil
}

// checkTest validates the rows to score against the training dimensions.
// With rule A a model needs view A only: it then accepts data without Z
// (the LUPI use of a two-view model, where view B was privileged, as paper
// 000 uses SVM-2K) and reports viewB = false.
func checkTest(ds *data.Dataset, da, db int, rule string) (viewB bool, err error) {
	if ds == nil || ds.X == nil {
		return false, data.ErrNoData
	}
	if ds.Z == nil {
		if rule != RuleA {
			return false, ErrNoViewB
		}
		if _, ca := ds.X.Dims(); ca != da {
			return false, fmt.Errorf("multiview: the model was trained on %d view-A features, the data has %d", da, ca)
		}
		return false, finite("view A", ds.X)
	}
	n, ca := ds.X.Dims()
	nz, cb := ds.Z.Dims()
	if nz != n {
		return false, fmt.Errorf("multiview: view B has %d rows, view A has %d", nz, n)
	}
	if ca != da || cb != db {
		return false, fmt.Errorf("multiview: the model was trained on %d + %d features, the data has %d + %d", da, db, ca, cb)
	}
	if err := finite("view A", ds.X); err != nil {
		return false, err
	}
	return true, finite("view B", ds.Z)
}

// finite is data.CheckFinite with this package's prefix.
func finite(block string, m *mat.Dense) error {
	if err := data.CheckFinite(block, m); err != nil {
		return fmt.Errorf("multiview: %w", err)
	}
	return nil
}

// combine applies a decision rule to per-view decisions.
func combine(rule string, fa, fb []float64) []float64 {
	out := make([]float64, len(fa))
	for i := range fa {
		switch rule {
		case RuleA:
			out[i] = fa[i]
		case RuleB:
			out[i] = fb[i]
		default:
			out[i] = 0.5 * (fa[i] + fb[i])
		}
	}
	return out
}

// expansion is a kernel expansion f(x) = Σ_j Coef_j K(x_j, x) + Bias over
// the stored rows x_j.
type expansion struct {
	Kernel kernel.Kernel `json:"kernel"`
	X      *model.Matrix `json:"x"`
	Coef   []float64     `json:"coef"`
	Bias   float64       `json:"bias"`
	x      *mat.Dense
}

// newExpansion keeps only the rows with a non-zero coefficient.
func newExpansion(k kernel.Kernel, X *mat.Dense, coef []float64, bias float64) *expansion {
	var rows []int
	var c []float64
	for i, v := range coef {
		if v != 0 {
			rows = append(rows, i)
			c = append(c, v)
		}
	}
	e := &expansion{Kernel: k, Coef: c, Bias: bias}
	if len(rows) > 0 {
		_, d := X.Dims()
		xs := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			xs.SetRow(i, X.RawRowView(r))
		}
		e.x = xs
		e.X = model.MatrixOf(xs)
	}
	return e
}

// decision evaluates the expansion at the rows of X.
func (e *expansion) decision(X *mat.Dense) ([]float64, error) {
	n, _ := X.Dims()
	out := make([]float64, n)
	for i := range out {
		out[i] = e.Bias
	}
	if len(e.Coef) == 0 {
		return out, nil
	}
	if e.x == nil {
		xs, err := e.X.Dense()
		if err != nil {
			return nil, err
		}
		if r, _ := xs.Dims(); r != len(e.Coef) {
			return nil, fmt.Errorf("multiview: saved expansion has %d rows and %d coefficients", r, len(e.Coef))
		}
		e.x = xs
	}
	K := e.Kernel.Cross(X, e.x)
	var f mat.VecDense
	f.MulVec(K, mat.NewVecDense(len(e.Coef), e.Coef))
	for i := range out {
		out[i] += f.AtVec(i)
	}
	return out, nil
}

// viewRule is one view's decision function inside a fitted two-view model:
// a kernel expansion (SVM-2K, PSVM-2V, MCPK) or a pair of twin planes
// (MvTSVM).
type viewRule interface {
	// decision is the view's f_t at the rows of X (the view's inputs).
	decision(X *mat.Dense) ([]float64, error)
	// validate checks a loaded view of dimension d (what names it in errors).
	validate(what string, d int) error
}

// twoViews is what every fitted two-view model holds and does: one decision
// function per view, the rule that combines them (A, B or both, eq 35 of
// paper 001 read as the mean) and the two views' dimensions. Its JSON is the
// saved model; the kinds embed it and add their own views' readouts.
type twoViews[V viewRule] struct {
	Model string        `json:"model"`
	Rule  string        `json:"rule"`
	DimA  int           `json:"dim_a"`
	DimB  int           `json:"dim_b"`
	A     V             `json:"a"`
	B     V             `json:"b"`
	Rep   *model.Report `json:"report"`
}

// ViewDecisions implements model.MultiView. Without view B (rule A only)
// the map holds "A" alone.
func (m *twoViews[V]) ViewDecisions(ds *data.Dataset) (map[string][]float64, error) {
	hasB, err := checkTest(ds, m.DimA, m.DimB, m.Rule)
	if err != nil {
		return nil, err
	}
	fa, err := m.A.decision(ds.X)
	if err != nil {
		return nil, err
	}
	if !hasB {
		return map[string][]float64{"A": fa}, nil
	}
	fb, err := m.B.decision(ds.Z)
	if err != nil {
		return nil, err
	}
	return map[string][]float64{"A": fa, "B": fb}, nil
}

// Decision implements model.BinaryModel with the model's rule.
func (m *twoViews[V]) Decision(ds *data.Dataset) ([]float64, error) {
	v, err := m.ViewDecisions(ds)
	if err != nil {
		return nil, err
	}
	return combine(m.Rule, v["A"], v["B"]), nil
}

// Report implements model.BinaryModel.
func (m *twoViews[V]) Report() *model.Report { return m.Rep }

// DecisionRule returns "A", "B" or "both" (½(f_A + f_B)).
func (m *twoViews[V]) DecisionRule() string { return m.Rule }

// InputDims implements model.Shaped.
func (m *twoViews[V]) InputDims() (x, z int) { return m.DimA, m.DimB }

// svmLike is a fitted two-view model with one kernel expansion per view
// (SVM-2K, PSVM-2V, MCPK).
type svmLike struct {
	twoViews[*expansion]
}

// augmented returns K + 1: the kernel of the augmented samples (x; 1) that
// PSVM-2V and MCPK use instead of an explicit bias (paper 001 section 2.2:
// "l labeled augmented samples ((x_i^A; 1), (x_i^B; 1), y_i)"). For a
// non-linear kernel we read the augmentation in feature space, φ̃(x) =
// (φ(x); 1), so the offset is regularised exactly as in the linear case.
func augmented(K *mat.SymDense) *mat.SymDense {
	n := K.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			out.SetSym(i, j, K.At(i, j)+1)
		}
	}
	return out
}
