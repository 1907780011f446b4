// Package svm is the kernel support vector machine: C-SVM with the hinge loss
// (Cortes & Vapnik 1995) and the L2-SVM with the squared hinge loss, both
// trained on their duals by the SMO solver (lupilab/models/solver/smo).
//
// C-SVM ("svm"): min ½αᵀ(yyᵀ∘K)α − 1ᵀα  s.t. yᵀα = 0, 0 ≤ αᵢ ≤ Cᵢ,
// with Cᵢ = C·wpos for yᵢ = +1 and C·wneg for yᵢ = −1 (LIBSVM's C-SVC with
// class weights; Chang & Lin 2011, eq. (2)).
//
// L2-SVM ("l2svm"): primal min ½‖w‖² + Σ Cᵢ ξᵢ², yᵢ(wᵀφ(xᵢ) + b) ≥ 1 − ξᵢ
// (the squared hinge; no ξ ≥ 0 needed). Its dual, as in LIBLINEAR's L2-loss
// SVM (Hsieh et al. 2008, eq. (4) with D_ii = 1/(2C)) but keeping the bias
// b (hence the equality constraint), is
//
//	min ½αᵀ(yyᵀ∘(K + D))α − 1ᵀα  s.t. yᵀα = 0, αᵢ ≥ 0 (no upper bound),
//
// with Dᵢᵢ = 1/(2Cᵢ); then ξᵢ = αᵢ/(2Cᵢ). The decision is
// f(x) = Σ yᵢαᵢK(xᵢ, x) − ρ in both cases (LIBSVM's rho).
//
// Probability outputs (parameter "probability") are Platt's sigmoid
// P(y = +1 | f) = 1/(1 + exp(A f + B)) fitted to 5-fold cross-validated
// decision values with the Newton method of Lin, Lin & Weng (2007), as
// LIBSVM's -b 1 does; folds are stratified and drawn with the fit's seed
// (model.Options.Seed), so a fit is reproducible. A < 0 keeps the probability
// increasing in the decision value.
package svm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/smo"
)

// Params are the settings of one binary SVM fit.
type Params struct {
	Kernel kernel.Kernel
	// C > 0 is the cost of a margin violation.
	C float64
	// WeightPos and WeightNeg scale C for the +1 and −1 class (0 means 1).
	WeightPos, WeightNeg float64
	// Squared selects the squared hinge (L2-SVM).
	Squared bool
	// Eps is the SMO stopping tolerance (0 ⇒ 1e-3).
	Eps float64
	// MaxIter bounds the SMO iterations (0 ⇒ the solver's default).
	MaxIter int
	// Shrinking enables the shrinking heuristic.
	Shrinking bool // LIBSVM's default is on; recommended for n ≳ 1000
	// CacheMB is the kernel-row cache budget (0 ⇒ 100 MiB).
	CacheMB float64
	// Float32 caches kernel rows in single precision as LIBSVM does (half
	// the memory; the solution is LIBSVM's to rounding). Off: float64.
	Float32 bool
}

// Model is a trained binary SVM: f(x) = Σⱼ Coef[j]·K(SV[j], x) − Rho.
type Model struct {
	Kernel kernel.Kernel
	// SV holds the support vectors (rows); nil for a precomputed kernel.
	SV *mat.Dense
	// Coef holds yᵢαᵢ per support vector.
	Coef []float64
	Rho  float64
	// Index holds the training-row index of each support vector.
	Index []int
	// Platt holds the probability sigmoid when fitted.
	Platt *Platt

	svNorm []float64
	report *model.Report
}

// Platt is the sigmoid P(y = +1 | f) = 1/(1 + exp(A f + B)).
type Platt struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Prob returns P(y = +1 | f), computed without overflow.
func (p *Platt) Prob(f float64) float64 {
	t := p.A*f + p.B
	if t >= 0 {
		e := math.Exp(-t)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(t))
}

func checkParams(p *Params) error {
	if math.IsNaN(p.C) || p.C <= 0 || math.IsInf(p.C, 0) {
		return fmt.Errorf("svm: C must be a positive finite number (got %g)", p.C)
	}
	for _, w := range []*float64{&p.WeightPos, &p.WeightNeg} {
		if *w == 0 {
			*w = 1
		}
		if math.IsNaN(*w) || *w < 0 || math.IsInf(*w, 0) {
			return fmt.Errorf("svm: class weights must be positive finite numbers (got %g)", *w)
		}
	}
	if p.Eps < 0 || math.IsNaN(p.Eps) {
		return fmt.Errorf("svm: eps must be > 0 (got %g)", p.Eps)
	}
	return p.Kernel.Validate()
}

func checkData(X *mat.Dense, y []float64) error {
	if X == nil {
		return data.ErrNoData
	}
	n, d := X.Dims()
	if n < 2 {
		return fmt.Errorf("svm: %d training samples; at least 2 are needed", n)
	}
	if d == 0 {
		return data.ErrNoData
	}
	if len(y) != n {
		return fmt.Errorf("svm: %d labels for %d rows", len(y), n)
	}
	if err := model.CheckBinaryLabels(y); err != nil {
		return fmt.Errorf("svm: %w", err)
	}
	if err := data.CheckFinite("X", X); err != nil {
		return fmt.Errorf("svm: %w", err)
	}
	return nil
}

// Train fits a binary SVM on the rows of X with labels y ∈ {−1, +1}. The
// report carries the dual objective (LIBSVM's obj), rho, the support,
// iterations, convergence and per-sample diagnostics "alpha" and "slack"
// (max(0, 1 − yᵢf(xᵢ))).
func Train(ctx context.Context, X *mat.Dense, y []float64, p Params, opt model.Options) (*Model, error) {
	if err := checkParams(&p); err != nil {
		return nil, err
	}
	if err := checkData(X, y); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	cost := make([]float64, n)
	for i, v := range y {
		if v > 0 {
			cost[i] = p.C * p.WeightPos
		} else {
			cost[i] = p.C * p.WeightNeg
		}
	}
	q, err := kernel.NewQIn(opt.Workspace, p.Kernel, X, y, 0)
	if err != nil {
		return nil, err
	}
	var mtx smo.Matrix = q
	upper := cost
	if p.Squared {
		mtx = &shifted{QMatrix: q, d: halfInv(cost)}
		upper = nil // +Inf
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = -1
	}
	every := 20000 / n // a few ms of work at most between reports (the browser yields in them)
	if every < 1 {
		every = 1
	}
	if every > 500 {
		every = 500
	}
	var prog func(int, float64)
	if opt.Progress != nil {
		prog = func(iter int, viol float64) {
			// the target says what the number is for: the fit ends when it falls below eps
			opt.Progress(model.Progress{Fraction: -1, Stage: "SMO", Iter: iter, Message: fmt.Sprintf("max KKT violation %.3g, done below %g", viol, p.Eps)})
		}
	}
	so := smo.Options{Eps: p.Eps, MaxIter: p.MaxIter, Shrinking: p.Shrinking, CacheMB: p.CacheMB, Float32: p.Float32, Progress: prog, ProgressEvery: every}
	if opt.Watch != nil {
		// The iterate's expansion Σ yᵢαᵢK(xᵢ, x) − ρ with LIBSVM's ρ from
		// the current gradient: the decision the fit would return if it
		// stopped at this iteration.
		so.Watch = opt.Watching
		so.Snapshot = func(r *smo.Result) {
			opt.Snapshot(model.Snapshot{Iter: r.Iter, Stage: "SMO", Quantity: "max KKT violation", Value: r.Violation, Log: true,
				Binary: build(X, y, p, r, cost)})
		}
	}
	res, err := smo.Solve(ctx, &smo.Problem{Q: mtx, P: ones, Y: y, Upper: upper}, so)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	return build(X, y, p, res, cost), nil
}

func halfInv(c []float64) []float64 {
	d := make([]float64, len(c))
	for i, v := range c {
		d[i] = 1 / (2 * v)
	}
	return d
}

// shifted is Q + diag(d) for the squared hinge (y²=1 so the signs do not
// touch the diagonal).
type shifted struct {
	*kernel.QMatrix
	d []float64
}

func (s *shifted) Diag(i int) float64 { return s.QMatrix.Diag(i) + s.d[i] }
func (s *shifted) Row(i int, dst []float64) {
	s.QMatrix.Row(i, dst)
	dst[i] += s.d[i]
}
func (s *shifted) SubRow(i int, idx []int, dst []float64) {
	s.QMatrix.SubRow(i, idx, dst)
	for t, j := range idx {
		if j == i {
			dst[t] += s.d[i]
		}
	}
}
func (s *shifted) SubRow32(i int, idx []int, dst []float32) {
	s.QMatrix.SubRow32(i, idx, dst)
	for t, j := range idx {
		if j == i {
			dst[t] = float32(float64(dst[t]) + s.d[i])
		}
	}
}

func build(X *mat.Dense, y []float64, p Params, res *smo.Result, cost []float64) *Model {
	n, d := X.Dims()
	m := &Model{Kernel: p.Kernel, Rho: res.Rho}
	alpha := res.Alpha
	slack := make([]float64, n)
	for i := 0; i < n; i++ {
		if alpha[i] > 0 {
			m.Index = append(m.Index, i)
			m.Coef = append(m.Coef, y[i]*alpha[i])
		}
		// yᵢf(xᵢ) = (Qα)ᵢ − yᵢρ with ∇ᵢ = (Qα)ᵢ (+ αᵢ/(2Cᵢ) for L2) − 1
		yf := res.Grad[i] + 1 - y[i]*res.Rho
		if p.Squared {
			yf -= alpha[i] / (2 * cost[i])
		}
		slack[i] = math.Max(0, 1-yf)
	}
	if p.Kernel.Kind != kernel.Precomputed && len(m.Index) > 0 {
		m.SV = mat.NewDense(len(m.Index), d, nil)
		for t, i := range m.Index {
			m.SV.SetRow(t, X.RawRowView(i))
		}
	}
	m.prepare()
	rep := &model.Report{NTrain: n, Converged: res.Converged, Iterations: res.Iter, Objective: res.Obj,
		NSupport: len(m.Index), Support: append([]int(nil), m.Index...),
		Extras:      map[string]float64{"n_bounded_sv": float64(res.NBound), "n_free_sv": float64(res.NFree), "max_violation": res.Violation},
		Diagnostics: map[string][]float64{"alpha": append([]float64(nil), alpha...), "slack": slack}}
	rep.SetRho(res.Rho)
	if !res.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("SMO did not converge in %d iterations (max KKT violation %.3g, eps %g)", res.Iter, res.Violation, p.Eps))
	}
	m.report = rep
	return m
}

func (m *Model) prepare() {
	if m.SV == nil {
		m.svNorm = nil
		return
	}
	r, _ := m.SV.Dims()
	m.svNorm = make([]float64, r)
	for i := range m.svNorm {
		v := m.SV.RawRowView(i)
		m.svNorm[i] = floats.Dot(v, v)
	}
}

// Report returns the fit report.
func (m *Model) Report() *model.Report { return m.report }

// DecisionX returns f(x) = Σⱼ Coef[j]·K(SV[j], x) − Rho for every row of X,
// using only the support vectors. X must have the training dimension (for
// a precomputed kernel: one column per training sample); Decision checks it.
func (m *Model) DecisionX(X *mat.Dense) []float64 {
	n, _ := X.Dims()
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		x := X.RawRowView(i)
		s := 0.0
		if m.Kernel.Kind == kernel.Precomputed {
			for t, j := range m.Index {
				s += m.Coef[t] * x[j]
			}
		} else if m.SV != nil {
			xx := floats.Dot(x, x)
			for t, c := range m.Coef {
				s += c * m.Kernel.FromDot(floats.Dot(m.SV.RawRowView(t), x), m.svNorm[t], xx)
			}
		}
		out[i] = s - m.Rho
	}
	return out
}

// Decision implements model.BinaryModel on ds.X.
func (m *Model) Decision(ds *data.Dataset) ([]float64, error) {
	if ds == nil || ds.X == nil {
		return nil, data.ErrNoData
	}
	_, d := ds.X.Dims()
	switch {
	case m.Kernel.Kind == kernel.Precomputed:
		for _, j := range m.Index {
			if j >= d {
				return nil, fmt.Errorf("svm: precomputed kernel rows have %d columns; support vector %d needs more", d, j)
			}
		}
	case m.SV != nil:
		if _, sd := m.SV.Dims(); sd != d {
			return nil, fmt.Errorf("svm: the data have %d features, the model was trained on %d", d, sd)
		}
	}
	return m.DecisionX(ds.X), nil
}

// ProbabilityX returns P(y = +1 | x) for the rows of X from the Platt
// sigmoid; an error when the model was trained without probability outputs.
func (m *Model) ProbabilityX(X *mat.Dense) ([]float64, error) {
	if m.Platt == nil {
		return nil, errors.New("svm: the model was trained without probability outputs")
	}
	f := m.DecisionX(X)
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = m.Platt.Prob(v)
	}
	return out, nil
}

// ProbModel is a Model with probability outputs; it implements
// model.Probabilistic (a plain *Model does not, so that the multi-class
// wrapper asks for probabilities only when they exist).
type ProbModel struct{ *Model }

// Probability implements model.Probabilistic.
func (p ProbModel) Probability(ds *data.Dataset) ([]float64, error) {
	if _, err := p.Decision(ds); err != nil {
		return nil, err
	}
	return p.ProbabilityX(ds.X)
}
