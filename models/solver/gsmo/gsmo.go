// Package gsmo is a generalised SMO solver for the dual of SVM+ with the
// hinge loss (SVM1+), paper 000 eq (2) (Vapnik & Vashist 2009):
//
//	min_{α,β}  ½(α∘y)ᵀK(α∘y) + (1/2λ)(α+β−C1)ᵀK̃(α+β−C1) − 1ᵀα
//	s.t.       Σᵢ(αᵢ + βᵢ − C) = 0,  yᵀα = 0,  α ≥ 0,  β ≥ 0,
//
// a 2n-variable problem with two equality constraints. Following Pechyony,
// Izmailov, Vashist & Vapnik (2010) it moves along the three kinds of sparse
// direction that keep both equalities:
//
//	(I)   βᵢ += t, βⱼ −= t;
//	(II)  αᵢ += t, αⱼ −= t with yᵢ = yⱼ;
//	(III) αᵢ += t, αⱼ += t with yᵢ ≠ yⱼ and βₖ −= 2t (or the opposite sign).
//
// These are the extreme rays of the cone of feasible directions, so the
// largest first-order violation over them is a complete KKT test. Every
// iteration picks the most violating index of each kind, the partner index
// (types I and II) by the largest second-order gain as in LIBSVM's WSS2, and
// executes the kind whose exact line-search gain is largest.
//
// Two further kinds, sums of the three above, are also tried:
//
//	(IV)  αᵢ += t, βᵢ −= t, αⱼ −= t, βⱼ += t with yᵢ = yⱼ;
//	(V)   αᵢ += t, βᵢ −= t, αⱼ += t, βⱼ −= t with yᵢ ≠ yⱼ (or the opposite sign).
//
// They keep α + β fixed, so their curvature has no K̃/λ term: when λ is small
// K̃/λ dominates the Hessian and steps of kinds I–III are tiny, while these
// move α like the C-SVM's SMO with βᵢ as the room left for αᵢ (as λ → 0 with
// K̃ = I, SVM1+ becomes the C-SVM, α + β = C). The stopping test stays the
// complete one over kinds I–III.
//
// The start α = 0, β = C1 is feasible.
//
// The loop, the row caches and the Newton polish are the decomposition
// engine's (lupilab/models/solver/decomp, shared with the SVM duals' SMO
// of lupilab/models/solver/smo); this package is its policy for dual (2):
// the five kinds of direction that keep both equalities, the offsets, and
// the polish schedule.
package gsmo

import (
	"context"
	"errors"
	"fmt"
	"math"

	"lupilab/models/solver/decomp"
)

// Matrix gives access to a symmetric positive semi-definite n×n matrix by
// rows (a kernel matrix): the engine's interface, which kernel.QMatrix
// implements.
type Matrix = decomp.Matrix

// Dense is a Matrix over a row-major n×n slice.
type Dense = decomp.RowMajor

// Problem is an SVM1+ dual (paper 000 eq 2).
type Problem struct {
	K      Matrix    // decision-space kernel matrix K (n×n)
	KT     Matrix    // privileged kernel matrix K̃ (n×n), without an added constant
	Y      []float64 // labels ±1
	C      float64   // C > 0
	Lambda float64   // λ > 0, the privileged-space regularisation
}

// Options tune the solver.
type Options struct {
	Eps     float64 // stopping tolerance on the maximal KKT violation (default 1e-3)
	MaxIter int     // default max(10⁷, 100n)
	CacheMB float64 // row cache per matrix, default 100
	// Polish enables Newton steps on the free set between iterations
	// (polish.go); the stopping rule is unchanged.
	Polish   bool
	Progress func(iter int, violation float64)
	// noWiden switches off the polish's widening rounds (tests measure
	// what they save).
	noWiden bool
}

// Result is the solution.
type Result struct {
	Alpha, Beta []float64
	// Obj is the dual objective in minimisation form (as above).
	Obj float64
	// B is the offset of the decision function f(x) = Σ αᵢyᵢK(xᵢ,x) + B.
	B float64
	// Rho is the offset of the correcting function
	// g(z) = (1/λ)Σ(αᵢ+βᵢ−C)K̃(zᵢ,z) + Rho (paper 000 eq 1's ρ).
	Rho float64
	// Slack holds ξᵢ = g(zᵢ) at the training points.
	Slack []float64
	// GradAlpha and GradBeta are the objective's gradients.
	GradAlpha, GradBeta []float64
	Iter                int
	Converged           bool
	// Polishes counts the Newton polishing rounds (Options.Polish).
	Polishes int
	// Violation is the final maximal KKT violation.
	Violation float64
}

const tau = 1e-12

// Solve solves the problem.
func Solve(ctx context.Context, p *Problem, opt Options) (*Result, error) {
	if err := checkProblem(p); err != nil {
		return nil, err
	}
	n := p.K.Size()
	if opt.Eps <= 0 {
		opt.Eps = 1e-3
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = max(10_000_000, 100*n)
	}
	if opt.CacheMB <= 0 {
		opt.CacheMB = 100
	}
	s := &state{
		n: n, y: p.Y, C: p.C, il: 1 / p.Lambda, eps: opt.Eps, opt: opt,
		// K rows: at most two held at once (a pair step); K̃ rows: three
		// (kind III).
		kc: decomp.NewRows(p.K, opt.CacheMB, 2), tc: decomp.NewRows(p.KT, opt.CacheMB, 3),
		a: make([]float64, n), b: make([]float64, n), G: make([]float64, n), F: make([]float64, n),
		kd: make([]float64, n), td: make([]float64, n),
	}
	for i := 0; i < n; i++ {
		s.b[i] = p.C
		s.kd[i] = p.K.Diag(i)
		s.td[i] = p.KT.Diag(i)
		if math.IsNaN(s.kd[i]) || math.IsInf(s.kd[i], 0) || math.IsNaN(s.td[i]) || math.IsInf(s.td[i], 0) {
			return nil, fmt.Errorf("gsmo: kernel diagonal %d is not finite", i)
		}
		s.G[i], s.F[i] = 0, 0 // α = 0 and α+β−C = 0
	}
	cfg := decomp.Config{MaxIter: opt.MaxIter, Progress: opt.Progress, ProgressEvery: 256}
	if opt.Polish {
		cfg.Polish = decomp.NewPolisher(decomp.PolishOptions{Eqs: 2, MinFace: 3, MaxFace: polishMaxFree, Widen: !opt.noWiden, ExactSteps: true})
		defer cfg.Polish.Release()
		s.base = max(n, 200)
		s.gap, s.mult = s.base, 1
		s.nextPolish = max(5*n, 1000)
		s.lastObj = s.objective()
	}
	out, err := decomp.Run(ctx, s, cfg)
	if err != nil {
		return nil, err
	}
	res := &Result{Iter: out.Iter, Converged: out.Converged, Violation: out.Violation, Polishes: out.Polishes}
	res.Alpha, res.Beta = s.a, s.b
	res.GradAlpha, res.GradBeta = make([]float64, n), make([]float64, n)
	var obj float64
	for i := 0; i < n; i++ {
		res.GradAlpha[i] = s.G[i] + s.F[i] - 1
		res.GradBeta[i] = s.F[i]
		obj += 0.5*s.a[i]*s.G[i] + 0.5*(s.a[i]+s.b[i]-s.C)*s.F[i] - s.a[i]
	}
	res.Obj = obj
	res.B, res.Rho = s.offsets(res.GradAlpha, res.GradBeta)
	res.Slack = make([]float64, n)
	for i := range res.Slack {
		res.Slack[i] = s.F[i] + res.Rho
	}
	if math.IsNaN(obj) || math.IsNaN(res.B) || math.IsNaN(res.Rho) {
		return nil, errors.New("gsmo: the solution is NaN (check the kernels for NaN/Inf)")
	}
	return res, nil
}

// checkProblem checks p's sizes, labels, C and λ.
func checkProblem(p *Problem) error {
	if p == nil || p.K == nil || p.KT == nil {
		return errors.New("gsmo: nil problem or matrix")
	}
	n := p.K.Size()
	if n < 2 || p.KT.Size() != n || len(p.Y) != n {
		return fmt.Errorf("gsmo: inconsistent sizes (K %d, K̃ %d, y %d; need ≥ 2)", n, p.KT.Size(), len(p.Y))
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return fmt.Errorf("gsmo: C = %v must be positive and finite", p.C)
	}
	if !(p.Lambda > 0) || math.IsInf(p.Lambda, 0) {
		return fmt.Errorf("gsmo: λ = %v must be positive and finite", p.Lambda)
	}
	npos, nneg := 0, 0
	for i, y := range p.Y {
		switch y {
		case 1:
			npos++
		case -1:
			nneg++
		default:
			return fmt.Errorf("gsmo: label %d is %v, not ±1", i, y)
		}
	}
	if npos == 0 || nneg == 0 {
		return errors.New("gsmo: both classes are needed")
	}
	return nil
}

// state is the iterate and the engine's policy (decomp.Policy).
type state struct {
	n      int
	y      []float64
	C, il  float64 // il = 1/λ
	eps    float64
	opt    Options
	kc, tc *decomp.Rows // rows of K and K̃
	a, b   []float64    // α, β
	G      []float64    // Gᵢ = yᵢ (K(α∘y))ᵢ
	F      []float64    // Fᵢ = (1/λ)(K̃(α+β−C))ᵢ
	kd, td []float64    // diagonals
	iter   int
	viol   float64 // the maximal KKT violation at the last selection
	// The polish schedule (see PolishDue): the iteration of the next
	// check, the interval base and current gap, the budget multiplier,
	// the objective after the previous polish and before the current one,
	// the iteration of the current one.
	nextPolish, base, gap int
	mult                  float64
	lastObj, before       float64
	polishIter            int
}

// step is one move: kind 1 (β pair), 2 (α pair, same class), 3 (α pair
// across classes against one β), 4 and 5 (α+β fixed, see the package
// comment); i, j, k its indices; t the step length along the direction
//
//	kind 1: +e(βi) − e(βj);  kind 2: +e(αi) − e(αj);
//	kind 3: sgn·(e(αi) + e(αj) − 2e(βk)).
type step struct {
	kind    int
	i, j, k int
	sgn     float64
	t, gain float64
}

// nPositive counts the positive variables of (α, β).
func (s *state) nPositive() int {
	c := 0
	for i := 0; i < s.n; i++ {
		if s.a[i] > 0 {
			c++
		}
		if s.b[i] > 0 {
			c++
		}
	}
	return c
}

// objective is the dual objective (min form) at the current iterate.
func (s *state) objective() float64 {
	var obj float64
	for i := 0; i < s.n; i++ {
		obj += 0.5*s.a[i]*s.G[i] + 0.5*(s.a[i]+s.b[i]-s.C)*s.F[i] - s.a[i]
	}
	return obj
}

func (s *state) ga(i int) float64 { return s.G[i] + s.F[i] - 1 }

// Step implements decomp.Policy: the best step of the five kinds, unless
// the complete test over kinds I–III finds the iterate optimal.
func (s *state) Step() (decomp.Step, error) {
	st, viol := s.select_()
	s.viol = viol
	switch {
	case viol <= s.eps:
		return decomp.Optimal, nil
	case st.kind == 0:
		return decomp.Stuck, nil
	}
	s.apply(st)
	s.iter++
	return decomp.Moved, nil
}

// Shrink implements decomp.Policy (this dual is not shrunk).
func (s *state) Shrink() {}

// Unshrink implements decomp.Policy.
func (s *state) Unshrink() bool { return false }

// Optimal implements decomp.Policy.
func (s *state) Optimal() (float64, bool) {
	_, s.viol = s.select_()
	return s.viol, s.viol <= s.eps
}

// Violation implements decomp.Policy.
func (s *state) Violation() float64 { return s.viol }

// IterWork implements decomp.Policy: about 6n flops an iteration.
func (s *state) IterWork() float64 { return 6 * float64(s.n) }

// PolishDue implements decomp.Policy. The first polish comes after 5n
// iterations (well-conditioned problems are done by then), then one every
// n iterations while polishing lowers the objective more than the
// iterations since the previous polish did; otherwise the interval
// doubles (a polish costs at most the work since the previous one, so
// unhelpful polishes cost little in all). A polish waits until the work
// since the last one pays for one factorisation and a few dozen passes.
func (s *state) PolishDue(iter int, work float64) (float64, bool) {
	if iter < s.nextPolish {
		return 0, false
	}
	s.nextPolish = iter + s.base
	nf := float64(s.nPositive())
	if nf > polishMaxFree || nf*nf*nf/6+100*nf*nf+2*nf*float64(s.n) > work {
		return 0, false
	}
	s.before, s.polishIter = s.objective(), iter
	return s.mult * work, true
}

// Polished implements decomp.Policy. A polish cut short by its budget
// doubles the next one's (up to 8×: the active set is far from the
// optimal one; let the next polish go further).
func (s *state) Polished(_ float64, unfinished bool) {
	after := s.objective()
	if s.before-after < s.lastObj-s.before {
		s.gap *= 2
	} else {
		s.gap = s.base
	}
	if unfinished {
		s.mult = min(2*s.mult, 8)
	} else {
		s.mult = 1
	}
	s.lastObj = after
	s.nextPolish = s.polishIter + s.gap
}

// extremes are the first-order extremes a selection starts from: argmin
// ∇β over all, argmax ∇β over β > 0, and per class (0: y = +1, 1: y = −1)
// argmin ∇α over all, argmax ∇α over α > 0 and argmin G over β > 0 (kinds
// IV, V); −1 when there is none.
type extremes struct {
	bmin, bmaxP        int
	amin, amaxP, gminB [2]int
}

func (s *state) extremes() extremes {
	e := extremes{bmin: -1, bmaxP: -1, amin: [2]int{-1, -1}, amaxP: [2]int{-1, -1}, gminB: [2]int{-1, -1}}
	for i := 0; i < s.n; i++ {
		gb := s.F[i]
		if e.bmin < 0 || gb < s.F[e.bmin] {
			e.bmin = i
		}
		if s.b[i] > 0 && (e.bmaxP < 0 || gb > s.F[e.bmaxP]) {
			e.bmaxP = i
		}
		c := cls(s.y[i])
		g := s.ga(i)
		if e.amin[c] < 0 || g < s.ga(e.amin[c]) {
			e.amin[c] = i
		}
		if s.a[i] > 0 && (e.amaxP[c] < 0 || g > s.ga(e.amaxP[c])) {
			e.amaxP[c] = i
		}
		if s.b[i] > 0 && (e.gminB[c] < 0 || s.G[i] < s.G[e.gminB[c]]) {
			e.gminB[c] = i
		}
	}
	return e
}

// select_ returns the best step and the maximal KKT violation: the
// complete first-order test over kinds I–III, and the step of largest
// gain over all five kinds.
func (s *state) select_() (step, float64) {
	e := s.extremes()
	viol := 0.0
	best := step{}
	consider := func(st step, v float64) {
		if v > viol {
			viol = v
		}
		if st.kind != 0 && st.gain > best.gain {
			best = st
		}
	}
	// Type I.
	if e.bmaxP >= 0 {
		consider(s.bestI(e.bmin), s.F[e.bmaxP]-s.F[e.bmin])
	}
	// Type II, per class.
	for c := 0; c < 2; c++ {
		if e.amaxP[c] >= 0 {
			consider(s.bestII(e.amin[c], c), s.ga(e.amaxP[c])-s.ga(e.amin[c]))
		}
	}
	// Type III, increasing the α pair, then decreasing it.
	if e.bmaxP >= 0 {
		d := s.ga(e.amin[0]) + s.ga(e.amin[1]) - 2*s.F[e.bmaxP]
		consider(s.stepIII(e.amin[0], e.amin[1], e.bmaxP, 1, d), -d/2)
	}
	if e.amaxP[0] >= 0 && e.amaxP[1] >= 0 {
		d := -(s.ga(e.amaxP[0]) + s.ga(e.amaxP[1])) + 2*s.F[e.bmin]
		consider(s.stepIII(e.amaxP[0], e.amaxP[1], e.bmin, -1, d), -d/2)
	}
	// Kind IV (same class, α+β fixed).
	for c := 0; c < 2; c++ {
		if e.gminB[c] >= 0 {
			consider(s.bestIV(e.gminB[c], c), 0)
		}
	}
	// Kind V (across classes, α+β fixed), both signs; amaxP has α > 0.
	if e.gminB[0] >= 0 && e.gminB[1] >= 0 {
		p, q := e.gminB[0], e.gminB[1]
		consider(s.stepV(p, q, 1, s.G[p]+s.G[q]-2), 0)
	}
	if e.amaxP[0] >= 0 && e.amaxP[1] >= 0 {
		p, q := e.amaxP[0], e.amaxP[1]
		consider(s.stepV(p, q, -1, -(s.G[p]+s.G[q]-2)), 0)
	}
	return best, viol
}

// bestIV picks j (α_j > 0, class c) for αᵢ += t, βᵢ −= t, αⱼ −= t, βⱼ += t;
// the directional derivative is Gᵢ − Gⱼ (the K̃ terms cancel).
func (s *state) bestIV(i, c int) step {
	ki := s.kc.Row(i)
	best := step{}
	for j := 0; j < s.n; j++ {
		if s.a[j] <= 0 || j == i || cls(s.y[j]) != c {
			continue
		}
		d := s.G[i] - s.G[j]
		if d >= 0 {
			continue
		}
		h := curv(s.kd[i] + s.kd[j] - 2*ki[j])
		if g := d * d / h; g > best.gain {
			best = step{kind: 4, i: i, j: j, t: -d / h, gain: g}
		}
	}
	if best.kind != 0 {
		best.t = math.Min(best.t, math.Min(s.b[best.i], s.a[best.j]))
		best.gain = realGain(best.t, -(s.G[best.i] - s.G[best.j]), best.gain)
	}
	return best
}

// stepV builds sgn·(e(αp) − e(βp) + e(αq) − e(βq)), p in class +1 and q in
// class −1, with directional derivative d (no step unless d < 0).
func (s *state) stepV(p, q int, sgn, d float64) step {
	if !(d < 0) {
		return step{}
	}
	kp := s.kc.Row(p)
	h := curv(s.kd[p] + s.kd[q] - 2*kp[q])
	t := -d / h
	if sgn > 0 {
		t = math.Min(t, math.Min(s.b[p], s.b[q]))
	} else {
		t = math.Min(t, math.Min(s.a[p], s.a[q]))
	}
	return step{kind: 5, i: p, j: q, sgn: sgn, t: t, gain: realGain(t, -d, d*d/h)}
}

func cls(y float64) int {
	if y > 0 {
		return 0
	}
	return 1
}

func curv(h float64) float64 {
	if h <= tau {
		return tau
	}
	return h
}

// bestI picks j (β_j > 0) for the type-I step that raises β_i.
func (s *state) bestI(i int) step {
	ti := s.tc.Row(i)
	gi := s.F[i]
	best := step{}
	for j := 0; j < s.n; j++ {
		if s.b[j] <= 0 || j == i {
			continue
		}
		d := gi - s.F[j] // directional derivative
		if d >= 0 {
			continue
		}
		h := curv(s.il * (s.td[i] + s.td[j] - 2*ti[j]))
		if g := d * d / h; g > best.gain {
			best = step{kind: 1, i: i, j: j, t: -d / h, gain: g}
		}
	}
	if best.kind != 0 {
		best.t = math.Min(best.t, s.b[best.j])
		best.gain = realGain(best.t, -(s.F[best.i] - s.F[best.j]), best.gain)
	}
	return best
}

// bestII picks j (α_j > 0, same class c) for the type-II step raising α_i.
func (s *state) bestII(i, c int) step {
	ki := s.kc.Row(i)
	ti := s.tc.Row(i)
	gi := s.ga(i)
	best := step{}
	for j := 0; j < s.n; j++ {
		if s.a[j] <= 0 || j == i || cls(s.y[j]) != c {
			continue
		}
		d := gi - s.ga(j)
		if d >= 0 {
			continue
		}
		h := curv(s.kd[i] + s.kd[j] - 2*ki[j] + s.il*(s.td[i]+s.td[j]-2*ti[j]))
		if g := d * d / h; g > best.gain {
			best = step{kind: 2, i: i, j: j, t: -d / h, gain: g}
		}
	}
	if best.kind != 0 {
		best.t = math.Min(best.t, s.a[best.j])
		best.gain = realGain(best.t, -(s.ga(best.i) - s.ga(best.j)), best.gain)
	}
	return best
}

// stepIII builds the type-III step along sgn·(e(αp)+e(αq)−2e(βk)) with
// directional derivative d (no step unless d < 0).
func (s *state) stepIII(p, q, k int, sgn, d float64) step {
	if !(d < 0) {
		return step{}
	}
	kp := s.kc.Row(p)
	tp := s.tc.Row(p)
	tq := s.tc.Row(q)
	// α part: (ep+eq)ᵀ(yyᵀ∘K)(ep+eq) with yp yq = −1; K̃ part on u = ep+eq−2ek.
	h := s.kd[p] + s.kd[q] - 2*kp[q] +
		s.il*(s.td[p]+s.td[q]+4*s.td[k]+2*tp[q]-4*tp[k]-4*tq[k])
	h = curv(h)
	t := -d / h
	if sgn > 0 {
		t = math.Min(t, s.b[k]/2)
	} else {
		t = math.Min(t, math.Min(s.a[p], s.a[q]))
	}
	return step{kind: 3, i: p, j: q, k: k, sgn: sgn, t: t, gain: realGain(t, -d, d*d/h)}
}

// realGain is the decrease −(t·d + ½t²h) of a clipped step, where md = −d and
// the unclipped gain d²/h; it ranks steps by what they actually achieve.
func realGain(t, md, full float64) float64 {
	// With t* = md/h: decrease(t) = t·md − ½t²h = t·md − ½t²·md/t*.
	if full <= 0 || md <= 0 {
		return 0
	}
	h := md * md / full
	return t*md - 0.5*t*t*h
}

func (s *state) apply(st step) {
	t := st.t
	if t <= 0 {
		return
	}
	switch st.kind {
	case 1:
		ti, tj := s.tc.Row(st.i), s.tc.Row(st.j)
		s.b[st.i] += t
		s.b[st.j] = math.Max(0, s.b[st.j]-t)
		c := t * s.il
		for l := range s.F {
			s.F[l] += c * (ti[l] - tj[l])
		}
	case 2:
		ki, kj := s.kc.Row(st.i), s.kc.Row(st.j)
		s.a[st.i] += t
		s.a[st.j] = math.Max(0, s.a[st.j]-t)
		yc := s.y[st.i] * t
		for l := range s.G {
			s.G[l] += yc * s.y[l] * (ki[l] - kj[l])
		}
		ti, tj := s.tc.Row(st.i), s.tc.Row(st.j)
		c := t * s.il
		for l := range s.F {
			s.F[l] += c * (ti[l] - tj[l])
		}
	case 3:
		p, q, k := st.i, st.j, st.k
		dt := st.sgn * t
		s.a[p] = math.Max(0, s.a[p]+dt)
		s.a[q] = math.Max(0, s.a[q]+dt)
		s.b[k] = math.Max(0, s.b[k]-2*dt)
		kp, kq := s.kc.Row(p), s.kc.Row(q)
		for l := range s.G {
			s.G[l] += dt * s.y[l] * (kp[l] - kq[l]) // y_p = +1, y_q = −1
		}
		tp, tq, tk := s.tc.Row(p), s.tc.Row(q), s.tc.Row(k)
		c := dt * s.il
		for l := range s.F {
			s.F[l] += c * (tp[l] + tq[l] - 2*tk[l])
		}
	case 4:
		i, j := st.i, st.j
		s.a[i] += t
		s.b[i] = math.Max(0, s.b[i]-t)
		s.a[j] = math.Max(0, s.a[j]-t)
		s.b[j] += t
		ki, kj := s.kc.Row(i), s.kc.Row(j)
		yc := s.y[i] * t
		for l := range s.G {
			s.G[l] += yc * s.y[l] * (ki[l] - kj[l])
		}
	case 5:
		p, q := st.i, st.j
		dt := st.sgn * t
		s.a[p] = math.Max(0, s.a[p]+dt)
		s.a[q] = math.Max(0, s.a[q]+dt)
		s.b[p] = math.Max(0, s.b[p]-dt)
		s.b[q] = math.Max(0, s.b[q]-dt)
		kp, kq := s.kc.Row(p), s.kc.Row(q)
		for l := range s.G {
			s.G[l] += dt * s.y[l] * (kp[l] - kq[l])
		}
	}
}

// offsets returns the decision offset b and the correcting offset ρ, the
// multipliers of yᵀα = 0 and Σ(α+β−C) = 0 in the KKT conditions
//
//	∇αᵢ + ρ + b yᵢ ≥ 0 (= 0 if αᵢ > 0),  ∇βᵢ + ρ ≥ 0 (= 0 if βᵢ > 0),
//
// averaged over the free variables (no upper bounds, so every positive
// variable is free) as LIBSVM does for ν-SVC's two offsets; when a class
// has no free α its offset comes from the midpoint of its feasible interval.
func (s *state) offsets(ga, gb []float64) (b, rho float64) {
	var sb float64
	nb := 0
	for i := 0; i < s.n; i++ {
		if s.b[i] > 0 {
			sb += -gb[i]
			nb++
		}
	}
	var sc [2]float64
	var nc [2]int
	for i := 0; i < s.n; i++ {
		if s.a[i] > 0 {
			c := cls(s.y[i])
			sc[c] += -ga[i]
			nc[c]++
		}
	}
	switch {
	case nc[0] > 0 && nc[1] > 0:
		// r₊ = ρ + b, r₋ = ρ − b.
		rp, rm := sc[0]/float64(nc[0]), sc[1]/float64(nc[1])
		b = (rp - rm) / 2
		if nb > 0 {
			rho = sb / float64(nb)
		} else {
			rho = (rp + rm) / 2
		}
	default:
		// α = 0: ρ from the free β (all β > 0 here since Σβ = nC), b from the
		// α-bounds: yᵢ b ≥ −∇αᵢ − ρ.
		if nb > 0 {
			rho = sb / float64(nb)
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		for i := 0; i < s.n; i++ {
			r := -ga[i] - rho
			if s.y[i] > 0 {
				lo = math.Max(lo, r)
			} else {
				hi = math.Min(hi, -r)
			}
		}
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			b = (lo + hi) / 2
		case !math.IsInf(lo, 0):
			b = lo
		case !math.IsInf(hi, 0):
			b = hi
		}
	}
	return b, rho
}
