package twin

// MPWTSVM (paper 001, Xu & Wang 2022).
//
// Graphs per view (eqs (7)-(9)): within-class weights dⱼᵗ and between-class
// indicators fⱼᵗ, t ∈ {A, B}, computed in each view's input space (also for
// kernels, as in WLTSVM). Problem (10) finds the positive-class planes of
// both views; written with the other class's augmented rows x̃ⱼ (x̃ = (x, 1) or
// (K(x, Cᵗ), 1), eqs (36)-(39)):
//
//	min ½Σdᴬ(wᴬ·x̃ᴬ⁺)² + ½γΣdᴮ(wᴮ·x̃ᴮ⁺)² + C_AΣξᴬ + C_BΣξᴮ + CΣξᴬξᴮ
//	s.t. −fᴬ(wᴬ·x̃ᴬ⁻) + ξᴬ ≥ fᴬ,  −fᴮ(wᴮ·x̃ᴮ⁻) + ξᴮ ≥ fᴮ,
//	     ξᴬ ≥ −fᴮ(wᴮ·x̃ᴮ⁻),       ξᴮ ≥ −fᴬ(wᴬ·x̃ᴬ⁻),  ξ ≥ 0.
//
// Reading taken (re-derived from the Lagrangian (12); the extracted text of
// (12)-(13) swaps some superscripts): the multiplier λᴬ belongs to the
// constraint on ξᴬ and λᴮ to the one on ξᴮ, so that (25)-(28)
//
//	wᴬ = −(X̃₊ᴬᵀDᴬX̃₊ᴬ + εI)⁻¹ X̃₋ᴬᵀFᴬ(αᴬ − λᴮ)
//	wᴮ = −(γX̃₊ᴮᵀDᴮX̃₊ᴮ + εI)⁻¹ X̃₋ᴮᵀFᴮ(αᴮ − λᴬ)
//
// and the dual (30)/(31) in π = (αᴬ, αᴮ, λᴬ, λᴮ, ξᴬ, ξᴮ) is
//
//	min ½(αᴬ−λᴮ)ᵀH₁(αᴬ−λᴮ) + ½(αᴮ−λᴬ)ᵀH₂(αᴮ−λᴬ) − fᴬ·αᴬ − fᴮ·αᴮ + C ξᴬ·ξᴮ
//	s.t. αᴬⱼ + λᴬⱼ − Cξᴮⱼ ≤ C_A,  αᴮⱼ + λᴮⱼ − Cξᴬⱼ ≤ C_B,  π ≥ 0.
//
// H₁ = FᴬX̃₋ᴬ(X̃₊ᴬᵀDᴬX̃₊ᴬ+εI)⁻¹X̃₋ᴬᵀFᴬ, H₂ = FᴮX̃₋ᴮ(γX̃₊ᴮᵀDᴮX̃₊ᴮ+εI)⁻¹X̃₋ᴮᵀFᴮ
// (the ridge is relative, see newSystem). Problem (11)/(32) is the same with
// the classes swapped and the signs of the other class's rows flipped; we use
// one set C_A2 = C_A, C_B2 = C_B, C_2 = C (the paper's experiments tie them too).
//
// The non-convex QP — what we solve and why. The ξ block C·[[0, I], [I, 0]]
// of H in (31) is indefinite (eigenvalues ±C), so (31) is not convex despite
// the paper's claim. Worse, for C > 0 it is unbounded below whenever H₁ or H₂
// is singular (always for linear kernels once a view keeps more than
// features + 1 constraints): take v with H₁v = 0 and mixed signs, put
// αᴬ = t·v⁺ and λᴮ = t·v⁻ (so uᴬ = tv), ξᴮ = t‖v⁺‖∞/C on v⁺'s support and
// ξᴬ = t‖v⁻‖∞/C on v⁻'s; the boxes hold, ξᴬ·ξᴮ = 0 because the supports are
// disjoint, and the objective is −t·fᴬ·v⁺ → −∞ (TestDual31Unbounded). (31)
// is a Wolfe dual, and a Wolfe dual of a non-convex primal has no weak duality.
// The primal (10) is bounded below by 0, so we solve the primal:
//
//  1. At C = 0, (10) is convex and (31) is its exact dual: solved by block
//     coordinate descent (models/solver/ncqp.Solve; groups (αᴬⱼ, λᴬⱼ) and
//     (αᴮⱼ, λᴮⱼ)), to a natural-residual tolerance, interleaved with exact
//     steps along the directions that leave the planes unchanged
//     (pushValleys), which coordinate descent alone crawls along.
//  2. For C > 0, majorisation–minimisation from that point: the bilinear
//     term is replaced by its tight convex upper bound at the current slacks
//     (see soft), whose dual — (31) with soft boxes — is a smooth convex
//     problem solved by coordinate descent (ncqp.SolveSoft, warm-started).
//     Each step cannot increase (10); the iteration stops when the slacks
//     are a fixed point (ξ* = ξ⁰), where the step's KKT conditions are
//     exactly those of (10).
//
// The returned point is a KKT point of (10) (equivalently of (31): the same
// α, λ, ξ), checked by kkt() — primal and dual feasibility, complementarity,
// stationarity in w by construction — and reported as kkt_residual_10/11.
// It is a local solution reached from the C = 0 solution, not a certified
// global minimum (an NP-hard question for indefinite QPs in general). We
// preferred this to a convexification (e.g. dropping the coupling) because it
// keeps the paper's model and its coupling intact.
//
// Dropped constraints: a row with fⱼᴬ = 0 has a zero row in H₁ and a zero
// linear term, so αᴬⱼ and λᴮⱼ stay 0; H₁ is formed only on the kept rows,
// which is where the cost is saved.
//
// Decision rules (33)-(35), with dᵣᵗ(x) = |wᵣᵗ·x̃ᵗ|/‖ωᵣᵗ‖: view A d₋ᴬ − d₊ᴬ,
// view B d₋ᴮ − d₊ᴮ, both ½(d₋ᴬ + d₋ᴮ) − ½(d₊ᴬ + d₊ᴮ); > 0 ⇒ +1.

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/ncqp"
)

func init() {
	fit, load := model.WrapBinary("mpwtsvm", fitMPBinary, loadMP)
	model.Register("mpwtsvm", fit, load)
}

// mpConfig holds MPWTSVM's hyper-parameters.
type mpConfig struct {
	CA, CB, C, GammaB, Eps float64
	K                      int
	Kernel                 kernel.Kernel
	Correcting             bool
	Rule                   string
	Solver                 mpSolverOptions
}

func mpConfigOf(v model.Values) (mpConfig, error) {
	cfg := mpConfig{CA: v.Float("C_A"), CB: v.Float("C_B"), C: v.Float("coupling"), GammaB: v.Float("view_weight"), Eps: v.Float("eps"),
		K: v.Int("k"), Correcting: v.Bool("correcting"), Rule: v.String("rule")}
	var err error
	if cfg.Kernel, err = kernFromValues(v); err != nil {
		return cfg, err
	}
	switch {
	case !(cfg.CA > 0) || !(cfg.CB > 0) || math.IsInf(cfg.CA+cfg.CB, 0):
		return cfg, fmt.Errorf("C_A and C_B must be > 0, got %v and %v", cfg.CA, cfg.CB)
	case !(cfg.C >= 0) || math.IsInf(cfg.C, 0):
		return cfg, fmt.Errorf("the coupling must be ≥ 0, got %v", cfg.C)
	case !(cfg.GammaB > 0) || math.IsInf(cfg.GammaB, 0):
		return cfg, fmt.Errorf("the view weight must be > 0, got %v", cfg.GammaB)
	case !(cfg.Eps > 0):
		return cfg, fmt.Errorf("the ridge eps must be > 0, got %v", cfg.Eps)
	case cfg.K < 1:
		return cfg, fmt.Errorf("k must be ≥ 1, got %d", cfg.K)
	}
	switch cfg.Rule {
	case "A", "B", "both":
	default:
		return cfg, fmt.Errorf("unknown decision rule %q (A, B or both)", cfg.Rule)
	}
	return cfg, nil
}

// mpModel is a fitted binary MPWTSVM.
type mpModel struct {
	FeatA *features     `json:"features_a"`
	FeatB *features     `json:"features_b"`
	APos  plane         `json:"a_pos"`
	ANeg  plane         `json:"a_neg"`
	BPos  plane         `json:"b_pos"`
	BNeg  plane         `json:"b_neg"`
	Rule  string        `json:"rule"`
	Rep   *model.Report `json:"report"`
}

// Report implements model.BinaryModel.
func (m *mpModel) Report() *model.Report { return m.Rep }

// PlaneValues implements Planes: keys "A+", "A-", "B+", "B-" ("A+" and "A-"
// alone without view B, under rule A).
func (m *mpModel) PlaneValues(ds *data.Dataset) (map[string][]float64, error) {
	if ds == nil || ds.X == nil {
		return nil, data.ErrNoData
	}
	augA, err := m.FeatA.augment(ds.X)
	if err != nil {
		return nil, fmt.Errorf("view A: %w", err)
	}
	if ds.Z == nil {
		if m.Rule != "A" {
			return nil, fmt.Errorf("mpwtsvm needs view B (Z) at prediction time")
		}
		// rule A reads view A only: its planes are all there is
		return map[string][]float64{"A+": m.APos.signed(augA), "A-": m.ANeg.signed(augA)}, nil
	}
	augB, err := m.FeatB.augment(ds.Z)
	if err != nil {
		return nil, fmt.Errorf("view B: %w", err)
	}
	return map[string][]float64{"A+": m.APos.signed(augA), "A-": m.ANeg.signed(augA), "B+": m.BPos.signed(augB), "B-": m.BNeg.signed(augB)}, nil
}

// viewA is rule (33), d₋ᴬ − d₊ᴬ, from view A alone.
func (m *mpModel) viewA(ds *data.Dataset) ([]float64, error) {
	if ds == nil || ds.X == nil {
		return nil, data.ErrNoData
	}
	augA, err := m.FeatA.augment(ds.X)
	if err != nil {
		return nil, fmt.Errorf("view A: %w", err)
	}
	pos, neg := m.APos.signed(augA), m.ANeg.signed(augA)
	out := make([]float64, len(pos))
	for i := range out {
		out[i] = math.Abs(neg[i]) - math.Abs(pos[i])
	}
	return out, nil
}

// ViewDecisions implements model.MultiView: rules (33) and (34). Under
// rule A without view B, the map holds "A" alone.
func (m *mpModel) ViewDecisions(ds *data.Dataset) (map[string][]float64, error) {
	if m.Rule == "A" && ds != nil && ds.Z == nil {
		a, err := m.viewA(ds)
		if err != nil {
			return nil, err
		}
		return map[string][]float64{"A": a}, nil
	}
	pv, err := m.PlaneValues(ds)
	if err != nil {
		return nil, err
	}
	n := len(pv["A+"])
	a, b := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		a[i] = math.Abs(pv["A-"][i]) - math.Abs(pv["A+"][i])
		b[i] = math.Abs(pv["B-"][i]) - math.Abs(pv["B+"][i])
	}
	return map[string][]float64{"A": a, "B": b}, nil
}

// Decision implements model.BinaryModel with the configured rule. Rule A
// (33) reads view A only, so it needs no Z (on LUPI data Z is known only
// while training).
func (m *mpModel) Decision(ds *data.Dataset) ([]float64, error) {
	if m.Rule == "A" {
		return m.viewA(ds)
	}
	v, err := m.ViewDecisions(ds)
	if err != nil {
		return nil, err
	}
	switch m.Rule {
	case "A":
		return v["A"], nil
	case "B":
		return v["B"], nil
	}
	out := make([]float64, len(v["A"]))
	for i := range out { // (35): ½(d₋ᴬ+d₋ᴮ) − ½(d₊ᴬ+d₊ᴮ)
		out[i] = 0.5 * (v["A"][i] + v["B"][i])
	}
	return out, nil
}

// Variable blocks of π in (31).
const (
	blkAlphaA = iota
	blkAlphaB
	blkLambdaA
	blkLambdaB
	blkXiA
	blkXiB
	numBlk
)

// mpOperator is H of (31) without forming it: H₁, H₂ compact on the kept
// rows of each view, the ξ coupling C.
type mpOperator struct {
	m      int
	off    [numBlk]int // offset of each block, −1 when absent (λ without correcting constraints)
	dim    int
	h1, h2 *mat.SymDense
	keptA  []int // rows j with fᴬⱼ = 1 (index into H₁ = position)
	keptB  []int
	posA   []int // j → position in H₁ or −1
	posB   []int
	c      float64
	// Lookup tables (prepare): block and row of each variable, both views.
	blkOf, rowOf []int
	v1, v2       *opView
}

func (o *mpOperator) Dim() int { return o.dim }

func (o *mpOperator) decode(i int) (blk, j int) {
	for b := numBlk - 1; b >= 0; b-- {
		if o.off[b] >= 0 && i >= o.off[b] {
			return b, i - o.off[b]
		}
	}
	return -1, -1
}

func (o *mpOperator) idx(blk, j int) int {
	if o.off[blk] < 0 {
		return -1
	}
	return o.off[blk] + j
}

// opView is one view's part of mpOperator in the layout the inner loops
// want: H of the view with both triangles filled (row a contiguous), and for
// each kept row a the indices of its variables in the two blocks of the view
// (minus −1 when the block is absent).
type opView struct {
	n           int
	full        []float64
	plus, minus []int
}

// prepare fills the lookup tables of AddColumn and At (after off and dim are
// set): the block and row of every variable, and both views' opView. Pure
// re-indexing: the values computed are those of the symmetric storage.
func (o *mpOperator) prepare() {
	o.blkOf, o.rowOf = make([]int, o.dim), make([]int, o.dim)
	for i := 0; i < o.dim; i++ {
		o.blkOf[i], o.rowOf[i] = o.decode(i)
	}
	mk := func(h *mat.SymDense, kept []int, plus, minus int) *opView {
		raw := h.RawSymmetric()
		nk := len(kept)
		v := &opView{n: nk, full: make([]float64, nk*nk), plus: make([]int, nk), minus: make([]int, nk)}
		for a := 0; a < nk; a++ {
			for b := a; b < nk; b++ {
				x := raw.Data[a*raw.Stride+b]
				v.full[a*nk+b], v.full[b*nk+a] = x, x
			}
			v.plus[a], v.minus[a] = o.idx(plus, kept[a]), o.idx(minus, kept[a])
		}
		return v
	}
	o.v1 = mk(o.h1, o.keptA, blkAlphaA, blkLambdaB)
	o.v2 = mk(o.h2, o.keptB, blkAlphaB, blkLambdaA)
}

// viewData returns the opView, positions and sign of a block of multipliers.
func (o *mpOperator) viewData(blk int) (v *opView, pos []int, sign float64) {
	switch blk {
	case blkAlphaA:
		return o.v1, o.posA, 1
	case blkLambdaB:
		return o.v1, o.posA, -1
	case blkAlphaB:
		return o.v2, o.posB, 1
	case blkLambdaA:
		return o.v2, o.posB, -1
	}
	return nil, nil, 0
}

func (o *mpOperator) At(i, j int) float64 {
	bi, ri := o.blkOf[i], o.rowOf[i]
	bj, rj := o.blkOf[j], o.rowOf[j]
	if bi >= blkXiA {
		if bj >= blkXiA && bi != bj && ri == rj {
			return o.c
		}
		return 0
	}
	vi, pos, si := o.viewData(bi)
	vj, _, sj := o.viewData(bj)
	if vi != vj {
		return 0
	}
	a, b := pos[ri], pos[rj]
	if a < 0 || b < 0 {
		return 0
	}
	return si * sj * vi.full[a*vi.n+b]
}

func (o *mpOperator) AddColumn(j int, s float64, y []float64) {
	bj, rj := o.blkOf[j], o.rowOf[j]
	if bj >= blkXiA {
		other := blkXiB
		if bj == blkXiB {
			other = blkXiA
		}
		y[o.idx(other, rj)] += s * o.c
		return
	}
	v, pos, sj := o.viewData(bj)
	b := pos[rj]
	if b < 0 || v.n == 0 {
		return
	}
	ss := s * sj
	col := v.full[b*v.n : (b+1)*v.n]
	plus := v.plus[:len(col)]
	if v.minus[0] < 0 {
		for a, h := range col {
			y[plus[a]] += h * ss
		}
		return
	}
	minus := v.minus[:len(col)]
	for a, h := range col {
		h *= ss
		y[plus[a]] += h
		y[minus[a]] -= h
	}
}

// mpProblem is one of (10)/(11) with its matrices formed.
type mpProblem struct {
	op         *mpOperator // blocks αᴬ, αᴮ, λᴬ, λᴮ (λ absent without correcting constraints)
	sysA, sysB *system
	fA, fB     []float64
	m          int
	cfg        mpConfig
	cache      *ncqp.SoftCache // polish factorisation, shared by the majorisation steps (same H, groups, ρ)
}

// newMP forms the matrices of problem (10) (sign = −1: planes of the own =
// +1 class) or (11) (sign = +1) from augmented rows of both views.
func newMP(augA, augB *mat.Dense, own []int, dA, dB []float64, other []int, fA, fB []float64, sign float64, cfg mpConfig) (*mpProblem, error) {
	return newMPTick(augA, augB, own, dA, dB, other, fA, fB, sign, cfg, nil)
}

// newMPTick is newMP with tick called during the dense products (see
// newSystemTick).
func newMPTick(augA, augB *mat.Dense, own []int, dA, dB []float64, other []int, fA, fB []float64, sign float64, cfg mpConfig, tick func() error) (*mpProblem, error) {
	m := len(other)
	keep := func(f []float64) (kept, pos []int, rows []int) {
		pos = make([]int, m)
		for j := range pos {
			pos[j] = -1
			if f[j] > 0 {
				pos[j] = len(kept)
				kept = append(kept, j)
				rows = append(rows, other[j])
			}
		}
		return
	}
	keptA, posA, rowsA := keep(fA)
	keptB, posB, rowsB := keep(fB)
	sysA, err := newSystemTick(rowsOf(augA, own, 1), dA, rowsOf(augA, rowsA, sign), cfg.Eps, tick)
	if err != nil {
		return nil, fmt.Errorf("view A: %w", err)
	}
	wB := make([]float64, len(dB))
	for i, d := range dB {
		wB[i] = cfg.GammaB * d
	}
	sysB, err := newSystemTick(rowsOf(augB, own, 1), wB, rowsOf(augB, rowsB, sign), cfg.Eps, tick)
	if err != nil {
		return nil, fmt.Errorf("view B: %w", err)
	}
	op := &mpOperator{m: m, h1: sysA.H, h2: sysB.H, keptA: keptA, keptB: keptB, posA: posA, posB: posB, c: cfg.C}
	off := 0
	for b := 0; b < numBlk; b++ {
		if b == blkXiA || b == blkXiB || (!cfg.Correcting && (b == blkLambdaA || b == blkLambdaB)) {
			op.off[b] = -1
			continue
		}
		op.off[b] = off
		off += m
	}
	op.dim = off
	op.prepare()
	return &mpProblem{op: op, sysA: sysA, sysB: sysB, fA: fA, fB: fB, m: m, cfg: cfg, cache: &ncqp.SoftCache{}}, nil
}

// dualC0 returns (31) at C = 0, the exact convex dual of (10) then:
//
//	min ½uᴬᵀH₁uᴬ + ½uᴮᵀH₂uᴮ − fᴬ·αᴬ − fᴮ·αᴮ
//	s.t. αᴬⱼ + λᴬⱼ ≤ C_A,  αᴮⱼ + λᴮⱼ ≤ C_B,  α, λ ≥ 0,
//
// uᴬ = αᴬ − λᴮ, uᴮ = αᴮ − λᴬ (the ξ variables of (31) drop out at C = 0).
func (pb *mpProblem) dualC0() *ncqp.Problem {
	op := pb.op
	p := make([]float64, op.dim)
	qp := &ncqp.Problem{H: op, P: p}
	for j := 0; j < pb.m; j++ {
		p[op.idx(blkAlphaA, j)] = -pb.fA[j]
		p[op.idx(blkAlphaB, j)] = -pb.fB[j]
		for _, g := range []struct {
			alpha, lambda int
			bound         float64
		}{{blkAlphaA, blkLambdaA, pb.cfg.CA}, {blkAlphaB, blkLambdaB, pb.cfg.CB}} {
			idx, coef := []int{op.idx(g.alpha, j)}, []float64{1}
			if i := op.idx(g.lambda, j); i >= 0 {
				idx, coef = append(idx, i), append(coef, 1)
			}
			qp.Groups, qp.Coef, qp.Bound = append(qp.Groups, idx), append(qp.Coef, coef), append(qp.Bound, g.bound)
		}
	}
	return qp
}

// block returns block blk of π (zeros when absent).
func (pb *mpProblem) block(x []float64, blk int) []float64 {
	out := make([]float64, pb.m)
	if pb.op.off[blk] >= 0 {
		copy(out, x[pb.op.off[blk]:pb.op.off[blk]+pb.m])
	}
	return out
}

// planes recovers (25)-(28): uᴬ = Yᴬ(αᴬ − λᴮ) and uᴮ = Yᴮ(αᴮ − λᴬ) on the
// kept rows (the sign of the other class's rows is inside Y).
func (pb *mpProblem) planes(x []float64) (uA, uB []float64) {
	aA, aB := pb.block(x, blkAlphaA), pb.block(x, blkAlphaB)
	lA, lB := pb.block(x, blkLambdaA), pb.block(x, blkLambdaB)
	cA := make([]float64, len(pb.op.keptA))
	for a, j := range pb.op.keptA {
		cA[a] = aA[j] - lB[j]
	}
	cB := make([]float64, len(pb.op.keptB))
	for a, j := range pb.op.keptB {
		cB[a] = aB[j] - lA[j]
	}
	return pb.sysA.planeFrom(cA), pb.sysB.planeFrom(cB)
}

// slacks returns the smallest feasible ξᴬ, ξᴮ of (10) for given planes:
// ξᴬⱼ = max(0, fᴬⱼ(1 − wᴬ·x̃'ᴬⱼ), fᴮⱼ wᴮ·x̃'ᴮⱼ) (x̃' the signed rows), and
// symmetrically ξᴮ (without correcting constraints the last term is absent).
func (pb *mpProblem) slacks(uA, uB []float64) (xiA, xiB []float64) {
	mA, mB := make([]float64, pb.m), make([]float64, pb.m)
	for a, v := range pb.sysA.margins(uA) {
		mA[pb.op.keptA[a]] = v
	}
	for a, v := range pb.sysB.margins(uB) {
		mB[pb.op.keptB[a]] = v
	}
	xiA, xiB = make([]float64, pb.m), make([]float64, pb.m)
	for j := 0; j < pb.m; j++ {
		xiA[j] = math.Max(0, pb.fA[j]*(1-mA[j]))
		xiB[j] = math.Max(0, pb.fB[j]*(1-mB[j]))
		if pb.cfg.Correcting {
			xiA[j] = math.Max(xiA[j], pb.fB[j]*mB[j])
			xiB[j] = math.Max(xiB[j], pb.fA[j]*mA[j])
		}
	}
	return xiA, xiB
}

// primal returns the objective of (10) (with the ridge of (27)-(28)).
func (pb *mpProblem) primal(uA, uB, xiA, xiB []float64) float64 {
	j := pb.sysA.quad(uA) + pb.sysB.quad(uB)
	for i := range xiA {
		j += pb.cfg.CA*xiA[i] + pb.cfg.CB*xiB[i] + pb.cfg.C*xiA[i]*xiB[i]
	}
	return j
}

// soft returns the dual of the majorised problem at (ξᴬ⁰, ξᴮ⁰): the coupling
// Cξᴬ·ξᴮ gets its upper bound C(ξᴬ⁰ξᴮ + ξᴮ⁰ξᴬ − ξᴬ⁰ξᴮ⁰) + (C/2)(‖ξᴬ−ξᴬ⁰‖² + ‖ξᴮ−ξᴮ⁰‖²)
// (exact since ξᴬξᴮ − linearisation = ΔᴬΔᴮ ≤ ½(Δᴬ² + Δᴮ²)), which is
// convex; its dual, from the same Lagrangian (12), is
//
//	min ½uᴬᵀH₁uᴬ + ½uᴮᵀH₂uᴮ − fᴬ·αᴬ − fᴮ·αᴮ
//	    + Σⱼ ψ(αᴬⱼ + λᴬⱼ − C_A − Cξᴮ⁰ⱼ; ξᴬ⁰ⱼ) + Σⱼ ψ(αᴮⱼ + λᴮⱼ − C_B − Cξᴬ⁰ⱼ; ξᴮ⁰ⱼ)
//
// over α, λ ≥ 0, ψ(s; ξ⁰) = max_{ξ≥0} sξ − (C/2)(ξ − ξ⁰)² (ncqp.SoftProblem):
// the boxes of (31) become soft, and ψ' is the new slack.
func (pb *mpProblem) soft(xiA, xiB, warm []float64) *ncqp.SoftProblem {
	op := pb.op
	sp := &ncqp.SoftProblem{H: op, P: make([]float64, op.dim), Rho: pb.cfg.C, X0: warm, Cache: pb.cache}
	for j := 0; j < pb.m; j++ {
		sp.P[op.idx(blkAlphaA, j)] = -pb.fA[j]
		sp.P[op.idx(blkAlphaB, j)] = -pb.fB[j]
		for _, g := range []struct {
			alpha, lambda int
			c, xi0        float64
		}{{blkAlphaA, blkLambdaA, pb.cfg.CA + pb.cfg.C*xiB[j], xiA[j]}, {blkAlphaB, blkLambdaB, pb.cfg.CB + pb.cfg.C*xiA[j], xiB[j]}} {
			idx := []int{op.idx(g.alpha, j)}
			if i := op.idx(g.lambda, j); i >= 0 {
				idx = append(idx, i)
			}
			sp.Groups, sp.C, sp.Xi0 = append(sp.Groups, idx), append(sp.C, g.c), append(sp.Xi0, g.xi0)
		}
	}
	return sp
}

// kkt returns the largest violation of the KKT conditions of (10) at planes
// (uᴬ, uᴮ), slacks ξ and multipliers x = (αᴬ, αᴮ, λᴬ, λᴮ) — the stationarity
// in w holds by construction (25)-(28):
//
//	feasibility of the four constraint sets and ξ ≥ 0;
//	βᴬ = C_A + Cξᴮ − αᴬ − λᴬ ≥ 0, βᴮ = C_B + Cξᴬ − αᴮ − λᴮ ≥ 0;
//	complementarity: every multiplier times its constraint's slack, βξ.
//
// Each term is scaled by max(1, C_A, C_B) so the value is dimensionless.
func (pb *mpProblem) kkt(x, uA, uB, xiA, xiB []float64) float64 {
	mA, mB := make([]float64, pb.m), make([]float64, pb.m)
	for a, v := range pb.sysA.margins(uA) {
		mA[pb.op.keptA[a]] = v
	}
	for a, v := range pb.sysB.margins(uB) {
		mB[pb.op.keptB[a]] = v
	}
	aA, aB := pb.block(x, blkAlphaA), pb.block(x, blkAlphaB)
	lA, lB := pb.block(x, blkLambdaA), pb.block(x, blkLambdaB)
	scale := math.Max(1, math.Max(pb.cfg.CA, pb.cfg.CB))
	v := 0.0
	for j := 0; j < pb.m; j++ {
		cons := []struct{ mult, slack float64 }{
			{aA[j], xiA[j] - pb.fA[j]*(1-mA[j])},
			{aB[j], xiB[j] - pb.fB[j]*(1-mB[j])},
		}
		if pb.cfg.Correcting {
			cons = append(cons, struct{ mult, slack float64 }{lA[j], xiA[j] - pb.fB[j]*mB[j]},
				struct{ mult, slack float64 }{lB[j], xiB[j] - pb.fA[j]*mA[j]})
		}
		bA := pb.cfg.CA + pb.cfg.C*xiB[j] - aA[j] - lA[j]
		bB := pb.cfg.CB + pb.cfg.C*xiA[j] - aB[j] - lB[j]
		cons = append(cons, struct{ mult, slack float64 }{bA, xiA[j]}, struct{ mult, slack float64 }{bB, xiB[j]})
		for _, c := range cons {
			v = math.Max(v, math.Max(0, -c.slack))          // primal feasibility
			v = math.Max(v, math.Max(0, -c.mult)/scale)     // dual feasibility
			v = math.Max(v, math.Abs(c.mult*c.slack)/scale) // complementarity
		}
	}
	return v
}

// mpSolved is one solved problem (10) or (11).
type mpSolved struct {
	pb       *mpProblem
	x        []float64 // multipliers (αᴬ, αᴮ, λᴬ, λᴮ)
	uA, uB   []float64 // planes
	xiA, xiB []float64 // slacks
	history  []float64 // primal objective (10) after each step
	rounds   int       // majorisation steps
	kkt      float64   // KKT violation of (10) at the returned point
	conv     bool
	// c0A, c0B are the planes of the C = 0 solution majorise started from
	// (the coupling's effect on each view is measured against them).
	c0A, c0B []float64
}

// solveMP finds a KKT point of (10)/(11): first (31) at C = 0 (then a convex
// QP, solved exactly by ncqp), then, for C > 0, majorisation–minimisation
// steps (see soft) from there until the slacks stop moving.
func solveMP(ctx context.Context, pb *mpProblem, opt model.Options, stage string) (*mpSolved, error) {
	s, err := solveC0(ctx, pb, opt, stage)
	if err != nil || pb.cfg.C == 0 {
		return s, err
	}
	return s, majorise(ctx, s, opt, stage)
}

// solveC0 solves (31) at C = 0, the exact dual of the convex (10) without
// the coupling.
func solveC0(ctx context.Context, pb *mpProblem, opt model.Options, stage string) (*mpSolved, error) {
	so := pb.cfg.Solver.withDefaults()
	s := &mpSolved{pb: pb, conv: true}
	qp := pb.dualC0()
	chunk := so.MaxSweeps
	if pb.cfg.Correcting {
		chunk = min(chunk, valleySweeps)
	}
	var res *ncqp.Result
	for done := 0; ; {
		var err error
		res, err = ncqp.Solve(ctx, qp, ncqp.Options{MaxSweeps: min(chunk, so.MaxSweeps-done), Progress: s.progress(opt, stage)})
		if err != nil {
			return nil, err
		}
		done += max(1, res.Sweeps)
		if res.Converged || done >= so.MaxSweeps {
			break
		}
		pb.pushValleys(res.X)
		qp.X0 = res.X
	}
	s.conv = res.Converged
	s.x = res.X
	s.uA, s.uB = pb.planes(res.X)
	s.xiA, s.xiB = pb.slacks(s.uA, s.uB)
	s.history = append(s.history, pb.primal(s.uA, s.uB, s.xiA, s.xiB))
	s.kkt = pb.kkt(s.x, s.uA, s.uB, s.xiA, s.xiB)
	s.c0A, s.c0B = s.uA, s.uB
	return s, nil
}

// valleySweeps is the number of coordinate-descent sweeps between two
// pushValleys moves in solveC0.
const valleySweeps = 100

// pushValleys moves the multipliers x of (31) at C = 0 (with the correcting
// constraints) along the directions that leave both planes unchanged and
// lowers the objective as far as the boxes allow; it reports whether
// anything moved.
//
// The planes depend on the multipliers only through uᴬ = αᴬ − λᴮ and
// uᴮ = αᴮ − λᴬ (25)-(28), so raising αᴬⱼ and λᴮⱼ together by t keeps the
// quadratic part (and the gradient) fixed and changes the objective by
// −fᴬⱼt; likewise αᴮⱼ and λᴬⱼ with −fᴮⱼt. Both raise the two group sums
// αᴬⱼ + λᴬⱼ ≤ C_A and αᴮⱼ + λᴮⱼ ≤ C_B of row j by t, so the best step is
// the smaller of their slacks, and at the optimum one of the two boxes of
// every row with fⱼ = 1 is tight. Coordinate descent cannot take these
// steps (αᴬⱼ and λᴮⱼ lie in different groups): it crawls along them by
// about 1/H_jj per sweep, which stalls when the ridge ε is small and H is
// large (1e-6 left (11) 17 % above its optimum after 5000 sweeps,
// TestMPWTSVMAgainstIndependentReference). In the primal this is the kink
// of the row's piecewise-linear slack cost: its subgradient is an interval
// of (uᴬⱼ, uᴮⱼ) values reached by many (α, λ).
func (pb *mpProblem) pushValleys(x []float64) bool {
	if !pb.cfg.Correcting {
		return false
	}
	op, moved := pb.op, false
	for j := 0; j < pb.m; j++ {
		aA, aB := op.idx(blkAlphaA, j), op.idx(blkAlphaB, j)
		lA, lB := op.idx(blkLambdaA, j), op.idx(blkLambdaB, j)
		t := math.Min(pb.cfg.CA-x[aA]-x[lA], pb.cfg.CB-x[aB]-x[lB])
		if !(t > 0) {
			continue
		}
		switch {
		case pb.fA[j] > 0:
			x[aA] += t
			x[lB] += t
		case pb.fB[j] > 0:
			x[aB] += t
			x[lA] += t
		default:
			continue
		}
		moved = true
	}
	return moved
}

// progress returns the inner solvers' progress callback.
func (s *mpSolved) progress(opt model.Options, stage string) func(sweep int, r float64) {
	return func(sweep int, r float64) {
		opt.Report(model.Progress{Fraction: -1, Stage: stage, Iter: sweep, Message: fmt.Sprintf("step %d, residual %.2g", s.rounds, r)})
	}
}

// majorise runs majorisation–minimisation steps on (10) from the state s
// (multipliers x as the inner solver's warm start, slacks ξ, objective
// history) until the slacks are a fixed point (ξ* = ξ⁰), where the step's
// KKT conditions are exactly those of (10). Each accepted step lowers (10).
func majorise(ctx context.Context, s *mpSolved, opt model.Options, stage string) error {
	pb := s.pb
	so := pb.cfg.Solver.withDefaults()
	progress := s.progress(opt, stage)
	innerTol := 1e-3 // inexact early steps: the inner tolerance follows the slack movement
	for s.rounds = 1; ; s.rounds++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		opt.Report(model.Progress{Fraction: -1, Stage: stage, Iter: s.rounds, Message: fmt.Sprintf("majorisation step %d", s.rounds)})
		sr, err := ncqp.SolveSoft(ctx, pb.soft(s.xiA, s.xiB, s.x), ncqp.Options{Tol: innerTol, MaxSweeps: so.StepSweeps, Progress: progress})
		if err != nil {
			return err
		}
		uA, uB := pb.planes(sr.X)
		starA, starB := make([]float64, pb.m), make([]float64, pb.m)
		move, size := 0.0, 1.0
		for j := 0; j < pb.m; j++ {
			starA[j], starB[j] = sr.Xi[2*j], sr.Xi[2*j+1]
			move = math.Max(move, math.Max(math.Abs(starA[j]-s.xiA[j]), math.Abs(starB[j]-s.xiB[j])))
			size = math.Max(size, math.Max(starA[j], starB[j]))
		}
		s.x, s.uA, s.uB = sr.X, uA, uB
		if so.Trace != nil {
			so.Trace(fmt.Sprintf("step %d: sweeps %d resid %.2g tol %.1g move %.3g size %.3g J %.8g kkt %.2g", s.rounds, sr.Sweeps, sr.Residual, innerTol, move, size, s.history[len(s.history)-1], pb.kkt(sr.X, uA, uB, starA, starB)))
		}
		if innerTol > 1e-7 && move <= 1e-2*size {
			innerTol = math.Max(1e-7, math.Min(innerTol, move/size)*1e-2)
			continue
		}
		kkt := pb.kkt(sr.X, uA, uB, starA, starB)
		if move <= 1e-7*size || kkt <= 0.1*so.KKTTol || s.rounds == so.MaxRounds {
			// Fixed point: ξ* = ξ⁰, so the subproblem's KKT conditions are
			// those of (10); keep ξ* with its multipliers.
			s.xiA, s.xiB = starA, starB
			s.history = append(s.history, pb.primal(uA, uB, starA, starB))
			s.kkt = kkt
			s.conv = kkt <= so.KKTTol
			return nil
		}
		// The smallest feasible slacks only lower (10). An inexact inner
		// solve may not: then the step is repeated from the same slacks
		// (warm-started, tighter), so the accepted objectives never increase.
		nA, nB := pb.slacks(uA, uB)
		j := pb.primal(uA, uB, nA, nB)
		if prev := s.history[len(s.history)-1]; j > prev+1e-9*math.Abs(prev) && innerTol > 1e-9 {
			innerTol = math.Max(1e-9, innerTol*0.1)
			continue
		}
		s.xiA, s.xiB = nA, nB
		s.history = append(s.history, j)
	}
}

func fitMPBinary(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	cfg, err := mpConfigOf(v)
	if err != nil {
		return nil, fmt.Errorf("mpwtsvm: %w", err)
	}
	rule, warn := data.LUPIViewRule(train, cfg.Rule)
	cfg.Rule = rule
	m, err := fitMP(ctx, train, y, cfg, opt)
	if err != nil {
		return nil, err
	}
	m.Rep.Params = v.Clone()
	if warn != "" {
		m.Rep.Warnings = append([]string{warn}, m.Rep.Warnings...)
	}
	return m, nil
}

func fitMP(ctx context.Context, train *data.Dataset, y []float64, cfg mpConfig, opt model.Options) (*mpModel, error) {
	return fitMPWith(ctx, train, y, cfg, opt, nil)
}

// fitMPWith fits MPWTSVM; inspect (tests) receives both solved problems.
func fitMPWith(ctx context.Context, train *data.Dataset, y []float64, cfg mpConfig, opt model.Options, inspect func(p1, p2 *mpSolved)) (*mpModel, error) {
	start := time.Now()
	su, err := prepareMP(ctx, train, y, cfg, opt)
	if err != nil {
		return nil, err
	}
	var solved [2]*mpSolved
	for k, stage := range []string{"problem (31): planes of the +1 class", "problem (32): planes of the −1 class"} {
		frac := 0.05 + 0.45*float64(k)
		opt.Report(model.Progress{Fraction: frac, Stage: stage, Message: "forming H₁, H₂"})
		pb, err := su.problem(k, cfg, func() error {
			opt.Report(model.Progress{Fraction: frac, Stage: stage, Message: "forming H₁, H₂"})
			return ctx.Err()
		})
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			solved[k], err = solveMP(ctx, pb, opt, stage)
		}
		if err != nil {
			return nil, fmt.Errorf("mpwtsvm: %w", err)
		}
	}
	if inspect != nil {
		inspect(solved[0], solved[1])
	}
	m, err := su.model(cfg, solved[0], solved[1])
	if err != nil {
		return nil, err
	}
	m.Rep.TrainSeconds = time.Since(start).Seconds()
	return m, nil
}

// mpSetup is what both problems (10) and (11) are built from: the
// training data's classes, both views' k-NN graphs (eqs 7-9) and
// augmented features.
type mpSetup struct {
	n          int
	y          []float64 // ±1 labels
	task       string    // "3 vs 5" / "3 vs rest" in a multi-class fit, else ""
	pos, neg   []int
	featA      *features
	featB      *features
	augA, augB *mat.Dense
	// graphs: within-class weights d of the plane's class and between-class
	// indicators f of the other class, per view; index 0 for problem (10)
	// (planes of the +1 class), 1 for (11).
	d, f     [2][2][]float64 // [problem][view]
	warnings []string
}

// prepareMP validates the data and computes the graphs and features.
func prepareMP(ctx context.Context, train *data.Dataset, y []float64, cfg mpConfig, opt model.Options) (*mpSetup, error) {
	if train == nil || train.X == nil {
		return nil, data.ErrNoData
	}
	if train.Z == nil {
		return nil, fmt.Errorf("mpwtsvm needs a second view Z (a two-view dataset)")
	}
	n := train.Rows()
	if len(y) != n {
		return nil, fmt.Errorf("mpwtsvm: %d labels for %d rows", len(y), n)
	}
	su := &mpSetup{n: n, y: y, task: taskName(train, y)}
	su.pos, su.neg = model.SplitClasses(y)
	if err := checkClasses(train, su.pos, su.neg, cfg.K, 2); err != nil {
		return nil, fmt.Errorf("mpwtsvm: %w", err)
	}
	for _, vw := range []struct {
		name string
		x    *mat.Dense
	}{{"A (X)", train.X}, {"B (Z)", train.Z}} {
		w, err := checkView(vw.name, vw.x)
		if err != nil {
			return nil, fmt.Errorf("mpwtsvm: %w", err)
		}
		if w != "" {
			su.warnings = append(su.warnings, w)
		}
	}
	k := cfg.K
	for v, x := range []*mat.Dense{train.X, train.Z} {
		opt.Report(model.Progress{Fraction: 0, Message: "k-nearest-neighbour graphs of both views"})
		dist := sqDist(x)
		// Problem (10): own = positives; (11): own = negatives.
		su.d[0][v], su.f[0][v] = withinWeights(dist, su.pos, k), betweenIndicators(dist, su.pos, su.neg, k)
		su.d[1][v], su.f[1][v] = withinWeights(dist, su.neg, k), betweenIndicators(dist, su.neg, su.pos, k)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	opt.Report(model.Progress{Fraction: 0, Message: "kernel features"})
	su.featA, su.featB = newFeatures(cfg.Kernel, train.X), newFeatures(cfg.Kernel, train.Z)
	var err error
	if su.augA, err = su.featA.augment(train.X); err != nil {
		return nil, err
	}
	opt.Report(model.Progress{Fraction: 0, Message: "kernel features"})
	if su.augB, err = su.featB.augment(train.Z); err != nil {
		return nil, err
	}
	return su, nil
}

// problem forms problem (10) (k = 0) or (11) (k = 1) with cfg's penalties.
func (su *mpSetup) problem(k int, cfg mpConfig, tick func() error) (*mpProblem, error) {
	own, other, sign := su.pos, su.neg, -1.0
	if k == 1 {
		own, other, sign = su.neg, su.pos, 1
	}
	return newMPTick(su.augA, su.augB, own, su.d[k][0], su.d[k][1], other, su.f[k][0], su.f[k][1], sign, cfg, tick)
}

// model builds the fitted model and its report from the solved (10) and
// (11).
func (su *mpSetup) model(cfg mpConfig, s1, s2 *mpSolved) (*mpModel, error) {
	rep := &model.Report{Model: "mpwtsvm", NTrain: su.n, Converged: true, Warnings: append([]string(nil), su.warnings...)}
	m := &mpModel{FeatA: su.featA, FeatB: su.featB, Rule: cfg.Rule, Rep: rep}
	for _, pl := range []struct {
		dst  *plane
		u    []float64
		name string
	}{{&m.APos, s1.uA, "A+"}, {&m.BPos, s1.uB, "B+"}, {&m.ANeg, s2.uA, "A−"}, {&m.BNeg, s2.uB, "B−"}} {
		var err error
		if *pl.dst, err = planeOf(pl.u); err != nil {
			return nil, fmt.Errorf("mpwtsvm: plane %s: %w", pl.name, err)
		}
	}
	dropped := su.diagnostics(rep, s1, s2)
	j1, j2 := s1.history[len(s1.history)-1], s2.history[len(s2.history)-1]
	rep.Objective = j1 + j2
	rep.Iterations = len(s1.history) + len(s2.history)
	kktTol := cfg.Solver.withDefaults().KKTTol
	rep.Converged = s1.conv && s2.conv && s1.kkt <= kktTol && s2.kkt <= kktTol
	if !rep.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("MPWTSVM stopped before convergence (steps %d and %d, KKT violations of (10)/(11) %.2g and %.2g)", s1.rounds, s2.rounds, s1.kkt, s2.kkt))
	}
	n := float64(su.n)
	vc := su.coupling(cfg, m, s1, s2)
	rep.Warnings = append(rep.Warnings, vc.warnings(cfg, su.task)...)
	rep.Extras = map[string]float64{
		"train_accuracy_A": vc.acc[0], "train_accuracy_B": vc.acc[1],
		"kkt_residual_10": s1.kkt, "kkt_residual_11": s2.kkt,
		"primal_objective_10": j1, "primal_objective_11": j2,
		"rounds_10": float64(s1.rounds), "rounds_11": float64(s2.rounds),
		"dropped_fraction_A": dropped[0] / n, "dropped_fraction_B": dropped[1] / n, "dropped_fraction": dropped[2] / n,
		"norm_A+": m.APos.norm(), "norm_A-": m.ANeg.norm(), "norm_B+": m.BPos.norm(), "norm_B-": m.BNeg.norm(),
		"ridge_A+": s1.pb.sysA.Ridge, "ridge_B+": s1.pb.sysB.Ridge, "ridge_A-": s2.pb.sysA.Ridge, "ridge_B-": s2.pb.sysB.Ridge,
	}
	if cfg.C > 0 {
		rep.Extras["train_accuracy_A_c0"], rep.Extras["train_accuracy_B_c0"] = vc.acc0[0], vc.acc0[1]
		rep.Extras["plane_shrink_A"], rep.Extras["plane_shrink_B"] = vc.shrink[0], vc.shrink[1]
	}
	return m, nil
}

// Detection of a view that gives way to the coupling (models/twin/RESULTS.md):
// its planes collapse when both ‖ω‖ fall below collapseShrink of their
// size at C = 0, and its own rule has degraded when its training accuracy
// is at least degradedDrop below that of the C = 0 solution.
const (
	collapseShrink = 1e-6
	degradedDrop   = 0.1
)

// viewCoupling compares each view of the fitted model with the C = 0
// solution its solver started from (index 0: view A, 1: view B).
type viewCoupling struct {
	acc, acc0 [2]float64 // training accuracy of the view's own rule (33)/(34): fitted, C = 0
	shrink    [2]float64 // largest ‖ω‖ / ‖ω at C = 0‖ of the view's two planes
	c         float64
}

// coupling measures the views of m (planes from s1, s2) against the C = 0
// solutions s1 and s2 started from.
func (su *mpSetup) coupling(cfg mpConfig, m *mpModel, s1, s2 *mpSolved) viewCoupling {
	vc := viewCoupling{c: cfg.C}
	fitted := [2][2]plane{{m.APos, m.ANeg}, {m.BPos, m.BNeg}}
	vc.acc = su.viewAccuracy(fitted)
	if cfg.C == 0 {
		vc.acc0, vc.shrink = vc.acc, [2]float64{1, 1}
		return vc
	}
	if s1.c0A == nil || s2.c0A == nil {
		// no C = 0 solution to compare with (a state built elsewhere)
		nan := math.NaN()
		vc.acc0, vc.shrink = [2]float64{nan, nan}, [2]float64{nan, nan}
		return vc
	}
	var c0 [2][2]plane
	for k, u := range [2][2][]float64{{s1.c0A, s2.c0A}, {s1.c0B, s2.c0B}} {
		for j := range u {
			c0[k][j], _ = planeOf(u[j]) // a zero C = 0 plane gives NaN accuracies, no warning
			vc.shrink[k] = math.Max(vc.shrink[k], fitted[k][j].norm()/c0[k][j].norm())
		}
	}
	vc.acc0 = su.viewAccuracy(c0)
	return vc
}

// viewAccuracy returns the training accuracy of each view's rule (33)/(34)
// with planes p[view] = (+1 plane, −1 plane).
func (su *mpSetup) viewAccuracy(p [2][2]plane) [2]float64 {
	var out [2]float64
	for k, aug := range []*mat.Dense{su.augA, su.augB} {
		pos, neg := p[k][0].signed(aug), p[k][1].signed(aug)
		right := 0
		for i, y := range su.y {
			if d := math.Abs(neg[i]) - math.Abs(pos[i]); (d > 0) == (y > 0) {
				right++
			}
		}
		out[k] = float64(right) / float64(len(su.y))
	}
	return out
}

// warnings says which view gave way to the coupling, if one did.
func (vc viewCoupling) warnings(cfg mpConfig, task string) []string {
	if cfg.C == 0 {
		return nil
	}
	var w []string
	for k, name := range []string{"A", "B"} {
		collapsed := vc.shrink[k] < collapseShrink
		if !collapsed && !(vc.acc0[k]-vc.acc[k] >= degradedDrop) {
			continue
		}
		what := fmt.Sprintf("shrinks its planes to %.2g of their size", vc.shrink[k])
		if collapsed {
			what = fmt.Sprintf("collapses its planes (‖ω‖ to %.1g of their size", vc.shrink[k])
		}
		msg := fmt.Sprintf("view %s gives way to the coupling: C = %g %s without coupling (C = 0)%s and its own rule (%s) is right on %.0f%% of the training rows against %.0f%% at C = 0. "+
			"This is how the formulation trades the views, not a solver failure: its correcting constraints bound each view's slacks below by the other view's margins, "+
			"so the coupling CΣξᴬξᴮ is smallest when one view stops separating, and the lowest objective we found from many different starting points is such a point. "+
			"The combined rule (35) then rests on view %s; C = 0 keeps both views.",
			name, vc.c, what, map[bool]string{true: ")", false: ""}[collapsed], map[int]string{0: "33", 1: "34"}[k], 100*vc.acc[k], 100*vc.acc0[k], map[int]string{0: "B", 1: "A"}[k])
		if task != "" {
			msg = task + ": " + msg
		}
		w = append(w, msg)
	}
	return w
}

// taskName names the binary task of a multi-class fit ("3 vs 5", "3 vs
// rest"); "" for a two-class dataset.
func taskName(train *data.Dataset, y []float64) string {
	if len(train.Classes) <= 2 || len(train.Y) != len(y) {
		return ""
	}
	pos, neg := -1, -1
	for i, c := range train.Y {
		p := &neg
		if y[i] > 0 {
			p = &pos
		}
		switch {
		case *p == -1:
			*p = c
		case *p != c:
			*p = -2 // several classes
		}
	}
	name := func(c int) string {
		if c < 0 || c >= len(train.Classes) {
			return "rest"
		}
		return train.Classes[c]
	}
	return name(pos) + " vs " + name(neg)
}

// diagnostics fills the per-row diagnostics and the support set of rep
// (each training row is a constraint of the problem of the other class)
// and returns the numbers of rows dropped in view A, view B and both.
func (su *mpSetup) diagnostics(rep *model.Report, s1, s2 *mpSolved) [3]float64 {
	n := su.n
	diag := map[string][]float64{}
	for _, key := range []string{"alpha_A", "alpha_B", "lambda_A", "lambda_B", "xi_A", "xi_B", "dropped_A", "dropped_B", "dropped", "weight_A", "weight_B", "alpha"} {
		diag[key] = make([]float64, n)
	}
	var dropped [3]float64
	for k, s := range []*mpSolved{s1, s2} {
		rows, own := su.neg, su.pos
		if k == 1 {
			rows, own = su.pos, su.neg
		}
		fA, fB := su.f[k][0], su.f[k][1]
		x := s.x
		blocks := map[string][]float64{"alpha_A": s.pb.block(x, blkAlphaA), "alpha_B": s.pb.block(x, blkAlphaB),
			"lambda_A": s.pb.block(x, blkLambdaA), "lambda_B": s.pb.block(x, blkLambdaB),
			"xi_A": s.xiA, "xi_B": s.xiB}
		for j, i := range rows {
			for key, b := range blocks {
				diag[key][i] = b[j]
			}
			diag["alpha"][i] = blocks["alpha_A"][j] + blocks["alpha_B"][j]
			diag["dropped_A"][i], diag["dropped_B"][i] = 1-fA[j], 1-fB[j]
			dropped[0] += 1 - fA[j]
			dropped[1] += 1 - fB[j]
			if fA[j] == 0 && fB[j] == 0 {
				diag["dropped"][i] = 1
				dropped[2]++
			}
		}
		for a, i := range own {
			diag["weight_A"][i], diag["weight_B"][i] = su.d[k][0][a], su.d[k][1][a]
		}
	}
	amax := 0.0
	for i := 0; i < n; i++ {
		amax = math.Max(amax, diag["alpha"][i]+diag["lambda_A"][i]+diag["lambda_B"][i])
	}
	for i := 0; i < n; i++ {
		if diag["alpha"][i]+diag["lambda_A"][i]+diag["lambda_B"][i] > 1e-8*amax {
			rep.Support = append(rep.Support, i)
		}
	}
	rep.NSupport = len(rep.Support)
	rep.Diagnostics = diag
	return dropped
}

// mpSolverOptions tune the solver of (10)/(11); they are not model
// parameters. Zero values take the defaults (withDefaults).
type mpSolverOptions struct {
	MaxSweeps  int     // coordinate-descent sweeps of the C = 0 solve (default 5000)
	StepSweeps int     // sweeps of each warm-started majorisation step (default 2000; bounds the work)
	MaxRounds  int     // majorisation steps (default 200)
	KKTTol     float64 // KKT violation of (10)/(11) reported as converged (default 1e-4)
	// Trace, when set, receives one line per majorisation step.
	Trace func(line string)
}

func (o mpSolverOptions) withDefaults() mpSolverOptions {
	if o.MaxSweeps <= 0 {
		o.MaxSweeps = 5000
	}
	if o.StepSweeps <= 0 {
		o.StepSweeps = 2000
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 200
	}
	if o.KKTTol <= 0 {
		o.KKTTol = 1e-4
	}
	return o
}
