// Package joint implements paper 003 (Xiong, Szedmak & Piater, "Joint SVM for
// accurate and fast image tagging"): the joint SVM — Szedmak & Shawe-Taylor's
// Maximum Margin Regression — which trains one SVM for all T tags at once by
// putting a kernel K_ψ on the label vectors, and the baseline it is compared
// with, T independent SVMs (one per tag). It also registers the paper's
// experiment, `lupi experiment jointsvm`.
//
// The joint SVM solves the box-only dual (paper 003, eq 10, without the bias
// constraint as section 2.3 argues)
//
//	min_α ½ αᵀ(K_ψ ∘ K_φ)α − 1ᵀα   s.t. 0 ≤ αᵢ ≤ C
//
// with smo.Solve (no equality constraint), and predicts by eq (13) — the best
// of the distinct training label sets — or by the exact argmax of eq (12) over
// all 2^T label vectors when T is small.
package joint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/smo"
	"lupilab/models/spec"
)

// Prediction rules.
const (
	PredictTrainSets  = spec.PredictTrainSets  // eq (13): argmax over the distinct training label sets
	PredictExhaustive = spec.PredictExhaustive // eq (12): argmax over all 2^T label vectors (T ≤ MaxExhaustiveTags)
)

// MaxExhaustiveTags is the largest T for which eq (12) is solved by brute
// force over all 2^T label vectors.
const MaxExhaustiveTags = 12

// MaxGammaEntries bounds the γ table kept by a fitted model (8 bytes each:
// 32 MiB). The table has one row per distinct label set that carries a
// support vector and one column per candidate label set; beyond the bound
// the model evaluates γ on the fly at test time instead.
const MaxGammaEntries = 4 << 20

// Params are the joint SVM's settings.
type Params struct {
	Kernel  kernel.Kernel // input kernel K_φ
	Output  OutputParams  // output kernel K_ψ
	C       float64       // box bound, > 0
	Predict string        // PredictTrainSets (default) or PredictExhaustive
	Eps     float64       // SMO stopping tolerance (0 ⇒ smo default 1e-3)
	MaxIter int           // 0 ⇒ smo default
}

// Model is a fitted joint SVM. It implements model.Fitted.
type Model struct {
	kern    kernel.Kernel
	out     *OutputKernel
	tags    []string
	predict string

	sets  [][]float64 // distinct training label sets (candidates of eq 13), ±1
	svX   *mat.Dense  // support vectors' inputs
	alpha []float64   // their multipliers
	svSet []int       // index into sets of each support vector's label set

	// γ table of eq (13): rows = sets that carry a support vector (gRows),
	// columns = every candidate in sets. nil when it would exceed
	// MaxGammaEntries (then γ is evaluated on the fly).
	gRows  []int
	gRowOf []int // set index → row of gamma (−1 if no support vector)
	gamma  []float64

	report *model.Report
}

// Tags returns ±1 label vectors from a 0/1 tag matrix.
func signs(tags *mat.Dense) [][]float64 {
	n, t := tags.Dims()
	Y := make([][]float64, n)
	for i := range Y {
		Y[i] = make([]float64, t)
		for j := 0; j < t; j++ {
			if tags.At(i, j) > 0.5 {
				Y[i][j] = 1
			} else {
				Y[i][j] = -1
			}
		}
	}
	return Y
}

// checkTags rejects tag matrices a tagger cannot learn from: no tags, a tag
// that is never on or always on in the training data.
func checkTags(ds *data.Dataset) error {
	if ds.Tags == nil || ds.NumTags() == 0 {
		return errors.New("joint: the dataset has no tags: the tag models need a multi-label dataset")
	}
	n, t := ds.Tags.Dims()
	if n < 2 {
		return fmt.Errorf("joint: %d training rows, need at least 2", n)
	}
	for j := 0; j < t; j++ {
		on := 0
		for i := 0; i < n; i++ {
			if ds.Tags.At(i, j) > 0.5 {
				on++
			}
		}
		name := fmt.Sprintf("%d", j+1)
		if j < len(ds.TagNames) {
			name = fmt.Sprintf("%q", ds.TagNames[j])
		}
		if on == 0 {
			return fmt.Errorf("joint: tag %s is never on in the training data: nothing to learn for it (drop the tag)", name)
		}
		if on == n {
			return fmt.Errorf("joint: tag %s is on for every training row: nothing to learn for it (drop the tag)", name)
		}
	}
	return nil
}

// distinct returns the distinct rows of Y (in order of first appearance) and
// the index of each row's set.
func distinct(Y [][]float64) (sets [][]float64, of []int) {
	seen := map[string]int{}
	of = make([]int, len(Y))
	key := make([]byte, 0, 64)
	for i, y := range Y {
		key = key[:0]
		for _, v := range y {
			if v > 0 {
				key = append(key, '1')
			} else {
				key = append(key, '0')
			}
		}
		k, ok := seen[string(key)]
		if !ok {
			k = len(sets)
			seen[string(key)] = k
			sets = append(sets, y)
		}
		of[i] = k
	}
	return sets, of
}

// jointQ serves rows of Q_ij = K_ψ(y_i, y_j)·K_φ(x_i, x_j): the input-kernel
// row (kernel.QMatrix) times the output-kernel table G of the distinct label
// sets, so an output kernel costs one multiplication per entry.
type jointQ struct {
	kx   *kernel.QMatrix
	g    []float64 // u×u K_ψ between distinct sets
	u    int
	set  []int
	diag []float64
}

func newJointQ(kx *kernel.QMatrix, g []float64, u int, set []int) *jointQ {
	n := kx.Size()
	q := &jointQ{kx: kx, g: g, u: u, set: set, diag: make([]float64, n)}
	for i := 0; i < n; i++ {
		s := set[i]
		q.diag[i] = kx.Diag(i) * g[s*u+s]
	}
	return q
}

func (q *jointQ) Size() int          { return q.kx.Size() }
func (q *jointQ) Diag(i int) float64 { return q.diag[i] }
func (q *jointQ) Row(i int, dst []float64) {
	q.kx.Row(i, dst)
	gi := q.g[q.set[i]*q.u : (q.set[i]+1)*q.u]
	for j := range dst {
		dst[j] *= gi[q.set[j]]
	}
}
func (q *jointQ) SubRow(i int, idx []int, dst []float64) {
	q.kx.SubRow(i, idx, dst)
	gi := q.g[q.set[i]*q.u : (q.set[i]+1)*q.u]
	for t, j := range idx {
		dst[t] *= gi[q.set[j]]
	}
}

// Train fits the joint SVM to inputs X (n×d) and tags (n×T, 0/1). tagNames
// may be nil.
func Train(ctx context.Context, X, tags *mat.Dense, tagNames []string, p Params, opt model.Options) (*Model, error) {
	start := time.Now()
	ds := &data.Dataset{X: X, Tags: tags, TagNames: tagNames, Kind: data.KindMultiLabel}
	if tags == nil {
		return nil, errors.New("joint: the dataset has no tags: the tag models need a multi-label dataset")
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("joint: %w", err)
	}
	if err := checkTags(ds); err != nil {
		return nil, err
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return nil, fmt.Errorf("joint: C must be positive and finite, got %v", p.C)
	}
	if err := p.Kernel.Validate(); err != nil {
		return nil, err
	}
	if p.Predict == "" {
		p.Predict = PredictTrainSets
	}
	_, t := tags.Dims()
	switch p.Predict {
	case PredictTrainSets:
	case PredictExhaustive:
		if t > MaxExhaustiveTags {
			return nil, fmt.Errorf("joint: exhaustive prediction enumerates 2^T label vectors; T = %d exceeds %d (use %q)", t, MaxExhaustiveTags, PredictTrainSets)
		}
	default:
		return nil, fmt.Errorf("joint: unknown prediction rule %q", p.Predict)
	}
	Y := signs(tags)
	out, err := NewOutputKernel(p.Output, Y)
	if err != nil {
		return nil, err
	}
	sets, setOf := distinct(Y)
	u := len(sets)
	G := out.Table(sets, sets)
	kx, err := kernel.NewQIn(opt.Workspace, p.Kernel, X, nil, 0)
	if err != nil {
		return nil, err
	}
	n := len(Y)
	Q := newJointQ(kx, G, u, setOf)
	upper := make([]float64, n)
	pl := make([]float64, n)
	for i := range upper {
		upper[i] = p.C
		pl[i] = -1
	}
	// The paper's (10) reads max Σα − ΣΣ αᵢαⱼK_ψK_φ, without the ½ of the SVM
	// dual (5). We keep the ½ (it is what the primal (9) gives, and what makes
	// one tag with K_ψ = yy' the standard bias-free SVM). The two differ only
	// by a scaling: α_paper = α/2 (with C halved), and every prediction
	// (11)-(13) is invariant to a positive scaling of α.
	prob := &smo.Problem{Q: Q, P: pl, Upper: upper}
	sopt := smo.Options{Eps: p.Eps, MaxIter: p.MaxIter, Shrinking: true, ProgressEvery: 50}
	last := time.Now()
	sopt.Progress = func(iter int, viol float64) {
		if opt.Progress != nil && time.Since(last) > 5*time.Millisecond {
			last = time.Now()
			opt.Report(model.Progress{Fraction: -1, Stage: "SMO", Iter: iter, Message: fmt.Sprintf("KKT violation %.3g", viol)})
		}
	}
	opt.Report(model.Progress{Fraction: 0, Stage: "SMO"})
	res, err := smo.Solve(ctx, prob, sopt)
	if err != nil {
		return nil, fmt.Errorf("joint: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := &Model{kern: p.Kernel, out: out, tags: append([]string(nil), tagNames...), predict: p.Predict, sets: sets}
	rep := &model.Report{Model: "jointsvm", NTrain: n, Converged: res.Converged, Iterations: res.Iter,
		Extras: map[string]float64{}, Diagnostics: map[string][]float64{"alpha": append([]float64(nil), res.Alpha...)}}
	rep.Objective = res.Obj // ½αᵀQα − 1ᵀα
	d := X.RawMatrix().Cols
	var svRows []int
	for i, a := range res.Alpha {
		if math.IsNaN(a) {
			return nil, errors.New("joint: the solver returned NaN multipliers")
		}
		if a > 0 {
			svRows = append(svRows, i)
		}
	}
	if len(svRows) == 0 {
		return nil, errors.New("joint: no support vectors (all α = 0)")
	}
	m.svX = mat.NewDense(len(svRows), d, nil)
	for k, i := range svRows {
		m.svX.SetRow(k, X.RawRowView(i))
		m.alpha = append(m.alpha, res.Alpha[i])
		m.svSet = append(m.svSet, setOf[i])
	}
	rep.Support = svRows
	rep.NSupport = len(svRows)
	if !res.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("SMO did not converge in %d iterations", res.Iter))
	}
	m.buildGamma(G)
	rep.Extras["tags"] = float64(t)
	rep.Extras["label_sets"] = float64(u)
	rep.Extras["gamma_rows"] = float64(len(m.gRows))
	rep.Extras["gamma_table_bytes"] = float64(8 * len(m.gamma))
	rep.TrainSeconds = time.Since(start).Seconds()
	m.report = rep
	opt.Report(model.Progress{Fraction: 1, Stage: "done", Iter: res.Iter})
	return m, nil
}

// buildGamma fills the γ table of eq (13): γ[r][c] = K_ψ(set gRows[r], set c)
// for every set that carries a support vector (rows) and every candidate
// (columns). G, when not nil, is the full sets×sets table already computed
// for training; its rows are reused.
func (m *Model) buildGamma(G []float64) {
	m.gRowOf = make([]int, len(m.sets))
	for i := range m.gRowOf {
		m.gRowOf[i] = -1
	}
	m.gRows = m.gRows[:0]
	for _, s := range m.svSet {
		if m.gRowOf[s] < 0 {
			m.gRowOf[s] = len(m.gRows)
			m.gRows = append(m.gRows, s)
		}
	}
	sort.Ints(m.gRows)
	for r, s := range m.gRows {
		m.gRowOf[s] = r
	}
	m.gamma = nil
	u := len(m.sets)
	if len(m.gRows)*u <= MaxGammaEntries && G != nil {
		m.gamma = make([]float64, len(m.gRows)*u)
		for r, s := range m.gRows {
			copy(m.gamma[r*u:(r+1)*u], G[s*u:(s+1)*u])
		}
	} else if len(m.gRows)*u <= MaxGammaEntries {
		rows := make([][]float64, len(m.gRows))
		for r, s := range m.gRows {
			rows[r] = m.sets[s]
		}
		m.gamma = m.out.Table(rows, m.sets)
	}
}
