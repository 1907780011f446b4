// Package twin implements the twin support vector machines of paper 001
// (Xu & Wang, "Multi-view learning with privileged weighted twin SVM"):
//
//   - "twsvm": TWSVM (Jayadeva, Khemchandani & Chandra 2007), two
//     non-parallel planes, each close to its own class and at distance ≥ 1
//     from the other;
//   - "wltsvm": WLTSVM (Ye et al. 2012; paper 001 eqs (1)-(5)), TWSVM whose
//     squared residuals are weighted by a within-class k-NN graph (dⱼ) and
//     whose constraints keep only the other-class samples that are k-nearest
//     neighbours of some sample of the plane's class (fⱼ);
//   - "mpwtsvm": MPWTSVM (paper 001 eqs (7)-(39)), two views, each view the
//     other's privileged information (see mpwtsvm.go).
//
// All three are linear or kernel (paper 001 eqs (36)-(39): a sample is
// replaced by its kernel row against the training rows, augmented with 1).
// The duals of TWSVM/WLTSVM are box-constrained convex QPs solved by dual
// coordinate descent (models/solver/dcd); MPWTSVM's dual is a non-convex QP
// solved by block coordinate descent to a KKT point (models/solver/ncqp).
//
// Decision (paper 001 eqs (33)-(35)): with dᵣ(x) = |ωᵣ·φ(x) + bᵣ| / ‖ωᵣ‖ the
// distance to the plane of class r, the binary decision value is
// d₋(x) − d₊(x), > 0 ⇒ +1 (nearer the positive plane). ‖ω‖ is the Euclidean
// norm of the weight vector as in (33), also for kernel surfaces.
//
// Planes for drawing: every binary model here implements Planes; the UI can
// reach it through (*model.Classifier).Models[i].
package twin

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/dcd"
)

// Planes is implemented by the fitted binary twin models: the signed,
// ‖ω‖-normalised value (ω·φ(x) + b)/‖ω‖ of every plane for every row of ds,
// keyed "pos" / "neg" (TWSVM, WLTSVM) or "A+", "A-", "B+", "B-" (MPWTSVM).
// The zero level set of each is the plane / kernel surface to draw; the
// decision is |neg| − |pos| (per view for MPWTSVM).
type Planes interface {
	PlaneValues(ds *data.Dataset) (map[string][]float64, error)
}

func init() {
	twFit, twLoad := model.WrapBinary("twsvm", fitter(false), loadTwin)
	model.Register("twsvm", twFit, twLoad)
	wlFit, wlLoad := model.WrapBinary("wltsvm", fitter(true), loadTwin)
	model.Register("wltsvm", wlFit, wlLoad)
}

// twinModel is a fitted binary TWSVM / WLTSVM.
type twinModel struct {
	Kind string        `json:"kind"` // "twsvm" or "wltsvm"
	Feat *features     `json:"features"`
	Pos  plane         `json:"pos"` // plane of the +1 class
	Neg  plane         `json:"neg"` // plane of the −1 class
	Rep  *model.Report `json:"report"`
}

// Report implements model.BinaryModel.
func (m *twinModel) Report() *model.Report { return m.Rep }

// PlaneValues implements Planes.
func (m *twinModel) PlaneValues(ds *data.Dataset) (map[string][]float64, error) {
	if ds == nil || ds.X == nil {
		return nil, data.ErrNoData
	}
	aug, err := m.Feat.augment(ds.X)
	if err != nil {
		return nil, err
	}
	return map[string][]float64{"pos": m.Pos.signed(aug), "neg": m.Neg.signed(aug)}, nil
}

// Decision implements model.BinaryModel: distance to the negative plane minus
// distance to the positive plane.
func (m *twinModel) Decision(ds *data.Dataset) ([]float64, error) {
	pv, err := m.PlaneValues(ds)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(pv["pos"]))
	for i := range out {
		out[i] = math.Abs(pv["neg"][i]) - math.Abs(pv["pos"][i])
	}
	return out, nil
}

// twinResult is one solved plane problem.
type twinResult struct {
	u     []float64 // (ω; b)
	alpha []float64 // per constraint row (all rows of the other class; 0 when dropped)
	res   *dcd.Result
	ridge float64
}

// solvePlane solves, for one plane, the (weighted) TWSVM dual
//
//	min ½ αᵀ R M⁻¹ Rᵀ α − eᵀα,  0 ≤ α ≤ C,   u = M⁻¹Rᵀα
//
// where M = Sᵀ D S + εI (S: own class, D: within-class weights, eq (4)'s
// first term), R the kept rows (fⱼ = 1) of the other class multiplied by
// sign (−1 for the positive plane: −(u·x) ≥ 1 − ξ; +1 for the negative
// plane). Rows with fⱼ = 0 would contribute the constraint ξⱼ ≥ 0 only and
// are left out before any matrix is formed: that is WLTSVM's saving.
func solvePlane(ctx context.Context, aug *mat.Dense, own []int, w []float64, other []int, f []float64, sign, c, eps float64, opt model.Options, stage string) (*twinResult, error) {
	var kept []int
	for b, j := range other {
		if f[b] > 0 {
			kept = append(kept, j)
		}
	}
	opt.Report(model.Progress{Fraction: -1, Stage: stage, Message: "forming XᵀDX and the dual matrix"})
	sys, err := newSystem(rowsOf(aug, own, 1), w, rowsOf(aug, kept, sign), eps)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := len(kept)
	pvec := make([]float64, m)
	upper := make([]float64, m)
	for i := range pvec {
		pvec[i], upper[i] = -1, c
	}
	res, err := dcd.Solve(ctx, &dcd.Problem{Q: sys.H, P: pvec, Upper: upper}, dcd.Options{
		Progress: func(it int, viol float64) {
			opt.Report(model.Progress{Fraction: -1, Stage: stage, Iter: it, Message: fmt.Sprintf("KKT violation %.2g", viol)})
		},
	})
	if err != nil {
		return nil, err
	}
	alpha := make([]float64, len(other))
	b := 0
	for a := range other {
		if f[a] > 0 {
			alpha[a] = res.X[b]
			b++
		}
	}
	return &twinResult{u: sys.planeFrom(res.X), alpha: alpha, res: res, ridge: sys.Ridge}, nil
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// fitter returns the binary fit of TWSVM (weighted = false) or WLTSVM.
func fitter(weighted bool) model.BinaryFitFunc {
	return func(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
		return fitTwin(ctx, train, y, v, opt, weighted)
	}
}

func fitTwin(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options, weighted bool) (*twinModel, error) {
	start := time.Now()
	tc, err := twinConfigOf(train, y, v, weighted)
	if err != nil {
		return nil, err
	}
	id := tc.id
	rep := &model.Report{Model: id, Params: v.Clone(), NTrain: train.Rows(), Converged: true}
	if tc.warning != "" {
		rep.Warnings = append(rep.Warnings, tc.warning)
	}
	pos, neg := model.SplitClasses(y)
	dPos, dNeg := ones(len(pos)), ones(len(neg))
	fNeg, fPos := ones(len(neg)), ones(len(pos))
	if weighted {
		opt.Report(model.Progress{Fraction: 0, Message: "k-nearest-neighbour graphs"})
		dist := sqDist(train.X)
		dPos, dNeg = withinWeights(dist, pos, tc.k), withinWeights(dist, neg, tc.k)
		fNeg, fPos = betweenIndicators(dist, pos, neg, tc.k), betweenIndicators(dist, neg, pos, tc.k)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	feat := newFeatures(tc.kernel, train.X)
	aug, err := feat.augment(train.X)
	if err != nil {
		return nil, err
	}
	r1, err := solvePlane(ctx, aug, pos, dPos, neg, fNeg, -1, tc.c, tc.eps, opt, "plane of the +1 class")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	opt.Report(model.Progress{Fraction: 0.5})
	r2, err := solvePlane(ctx, aug, neg, dNeg, pos, fPos, 1, tc.c, tc.eps, opt, "plane of the −1 class")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	m := &twinModel{Kind: id, Feat: feat, Rep: rep}
	if m.Pos, err = planeOf(r1.u); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	if m.Neg, err = planeOf(r2.u); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	m.report(tc, r1, r2, twinRows{pos: pos, neg: neg, dPos: dPos, dNeg: dNeg, fPos: fPos, fNeg: fNeg})
	rep.TrainSeconds = time.Since(start).Seconds()
	return m, nil
}

// twinConfig holds a TWSVM / WLTSVM fit's checked settings.
type twinConfig struct {
	id      string // "twsvm" or "wltsvm"
	c, eps  float64
	k       int // WLTSVM's neighbours (0 for TWSVM)
	kernel  kernel.Kernel
	warning string // constant columns of X, if any
}

// twinConfigOf validates the data and the parameter values of a fit.
func twinConfigOf(train *data.Dataset, y []float64, v model.Values, weighted bool) (twinConfig, error) {
	tc := twinConfig{id: "twsvm"}
	if weighted {
		tc.id = "wltsvm"
	}
	id := tc.id
	if train == nil || train.X == nil {
		return tc, data.ErrNoData
	}
	if n := train.Rows(); len(y) != n {
		return tc, fmt.Errorf("%s: %d labels for %d rows", id, len(y), n)
	}
	tc.c, tc.eps = v.Float("C"), v.Float("eps")
	if !(tc.c > 0) || math.IsInf(tc.c, 0) {
		return tc, fmt.Errorf("%s: C must be > 0, got %v", id, tc.c)
	}
	if !(tc.eps > 0) {
		return tc, fmt.Errorf("%s: the ridge eps must be > 0, got %v", id, tc.eps)
	}
	var err error
	if tc.kernel, err = kernFromValues(v); err != nil {
		return tc, fmt.Errorf("%s: %w", id, err)
	}
	minSize := 1
	if weighted {
		tc.k, minSize = v.Int("k"), 2
		if tc.k < 1 {
			return tc, fmt.Errorf("%s: k must be ≥ 1, got %d", id, tc.k)
		}
	}
	pos, neg := model.SplitClasses(y)
	if err := checkClasses(train, pos, neg, tc.k, minSize); err != nil {
		return tc, fmt.Errorf("%s: %w", id, err)
	}
	if tc.warning, err = checkView("A (X)", train.X); err != nil {
		return tc, fmt.Errorf("%s: %w", id, err)
	}
	return tc, nil
}

// twinRows are the classes' rows and graphs of a fit: within-class weights
// d of each plane's class, kept-constraint indicators f of the other class.
type twinRows struct {
	pos, neg               []int
	dPos, dNeg, fPos, fNeg []float64
}

// report fills the model's report and per-sample diagnostics.
func (m *twinModel) report(tc twinConfig, r1, r2 *twinResult, rows twinRows) {
	rep := m.Rep
	n := rep.NTrain
	alpha, dropped, weight := make([]float64, n), make([]float64, n), make([]float64, n)
	amax := 0.0
	for a, i := range rows.neg {
		alpha[i], dropped[i], weight[i] = r1.alpha[a], 1-rows.fNeg[a], rows.dNeg[a]
		amax = math.Max(amax, alpha[i])
	}
	for a, i := range rows.pos {
		alpha[i], dropped[i], weight[i] = r2.alpha[a], 1-rows.fPos[a], rows.dPos[a]
		amax = math.Max(amax, alpha[i])
	}
	nDrop := 0.0
	for i, a := range alpha {
		if a > 1e-8*amax {
			rep.Support = append(rep.Support, i)
		}
		nDrop += dropped[i]
	}
	rep.NSupport = len(rep.Support)
	rep.Objective = r1.res.Obj + r2.res.Obj
	rep.Iterations = r1.res.Iter + r2.res.Iter
	rep.Converged = r1.res.Converged && r2.res.Converged
	if !rep.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("coordinate descent stopped before the KKT tolerance (violations %.2g and %.2g)", r1.res.Violation, r2.res.Violation))
	}
	rep.Diagnostics = map[string][]float64{"alpha": alpha, "dropped": dropped, "weight": weight}
	rep.Extras = map[string]float64{
		"norm_pos": m.Pos.norm(), "norm_neg": m.Neg.norm(),
		"b_pos": m.Pos.B, "b_neg": m.Neg.B,
		"dropped_fraction": nDrop / float64(n),
		"kkt_violation":    math.Max(r1.res.Violation, r2.res.Violation),
		"ridge_pos":        r1.ridge, "ridge_neg": r2.ridge,
		"objective_pos": r1.res.Obj, "objective_neg": r2.res.Obj,
	}
	if isLinear(tc.kernel) && len(m.Pos.W) <= 3 {
		for j := range m.Pos.W {
			rep.Extras[fmt.Sprintf("w_pos_%d", j)] = m.Pos.W[j]
			rep.Extras[fmt.Sprintf("w_neg_%d", j)] = m.Neg.W[j]
		}
	}
}
