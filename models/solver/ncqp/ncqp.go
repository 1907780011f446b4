// Package ncqp finds KKT points of possibly non-convex quadratic programs
//
//	min  Φ(x) = ½ xᵀHx + pᵀx
//	s.t. x ≥ 0,   Σ_{i∈G_g} a_i x_i ≤ b_g   for each group g,
//
// where the groups G_g partition the variables (a variable in no group is
// only bounded below by 0) and H restricted to a group is diagonal with
// non-negative entries. H itself may be indefinite: the non-convexity lives
// only in the couplings between groups. MPWTSVM's dual (31) (paper 001) has
// exactly this shape — groups (αᴬⱼ, λᴬⱼ, ξᴮⱼ) with αᴬⱼ + λᴬⱼ − Cξᴮⱼ ≤ C_A and
// the indefinite C·ξᴬᵀξᴮ between groups — but (31) turns out to be unbounded
// below for C > 0 (see models/twin), so models/twin uses Solve on its convex
// C = 0 case and SolveSoft (soft.go) for the majorisation steps of the primal.
//
// Method: block coordinate descent (Gauss–Seidel) over the groups. Each
// group sub-problem is a convex separable QP with one linear constraint,
// solved exactly through its one-dimensional dual (a piecewise-linear root
// search). Every step therefore decreases Φ monotonically (Φ is bounded below
// on the feasible set for the problems we pose), and the method stops only when
// the natural KKT residual
//
//	r(x) = ‖x − P_Ω(x − ∇Φ(x))‖∞
//
// (P_Ω the Euclidean projection onto the feasible set, a product of the
// group sets) is below tolerance: r(x) = 0 holds exactly at first-order KKT
// points of the non-convex QP. This is a local method: it returns a KKT point
// (typically a local minimum, since every block is at its exact minimum),
// not a certified global minimum, which for an indefinite QP would be NP-hard
// in general. A convex-only solver (interior point) cannot be used because H
// is indefinite.
package ncqp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/internal/scratch"
)

// Operator is the symmetric Hessian H, accessed by columns.
type Operator interface {
	// Dim is the number of variables.
	Dim() int
	// At returns H[i][j].
	At(i, j int) float64
	// AddColumn adds s·H[:,j] to y.
	AddColumn(j int, s float64, y []float64)
}

// Problem is the QP described in the package comment.
type Problem struct {
	H Operator
	P []float64
	// Groups lists the variable indices of each group; Coef the matching
	// constraint coefficients a_i; Bound the right-hand sides b_g ≥ 0 (so that
	// x = 0 is feasible).
	Groups [][]int
	Coef   [][]float64
	Bound  []float64
	// X0 is an optional starting point; it is projected onto the feasible
	// set first (warm starts from a neighbouring problem).
	X0 []float64
}

// Options control Solve.
type Options struct {
	// Tol bounds the natural KKT residual, relative to max(1, ‖p‖∞). Default 1e-7.
	Tol float64
	// MaxSweeps bounds the number of passes over all groups. Default 20000.
	MaxSweeps int
	// Progress, when set, is called after every sweep that took a while
	// (about every 10 ms of work) with the sweep count and the residual.
	Progress func(sweep int, residual float64)
}

// Result is a KKT point (when Converged) of the Problem.
type Result struct {
	X         []float64
	Grad      []float64 // ∇Φ(X) = HX + p
	Obj       float64
	Sweeps    int
	Residual  float64 // natural KKT residual at X (absolute)
	Converged bool
	Polished  int // accepted active-set polish steps
}

// Errors returned by Solve.
var (
	ErrInput     = errors.New("ncqp: invalid problem")
	ErrUnbounded = errors.New("ncqp: a block sub-problem is unbounded below")
)

type group struct {
	idx  []int
	coef []float64
	b    float64
}

// project writes the Euclidean projection of z onto the feasible set into x.
func project(z []float64, groups []group, x []float64) {
	for _, gr := range groups {
		k := len(gr.idx)
		h, q, v := make([]float64, k), make([]float64, k), make([]float64, k)
		for t, i := range gr.idx {
			h[t], q[t] = 1, -z[i]
		}
		_ = minBlock(h, q, gr.coef, gr.b, v) // strictly convex: never fails
		for t, i := range gr.idx {
			x[i] = v[t]
		}
	}
}

// Solve runs block coordinate descent from x = 0 (or the projection of X0).
func Solve(ctx context.Context, pr *Problem, opt Options) (*Result, error) {
	groups, tol, err := checkProblem(pr, opt)
	if err != nil {
		return nil, err
	}
	n := pr.H.Dim()
	maxSweeps := opt.MaxSweeps
	if maxSweeps <= 0 {
		maxSweeps = 20000
	}
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = pr.H.At(i, i)
	}
	x := make([]float64, n)
	if pr.X0 != nil {
		project(pr.X0, groups, x)
	}
	g := gradientOf(pr.H, pr.P, x)
	res := &Result{}
	sched := schedule{maxSweeps: maxSweeps, tol: tol, firstPolish: 20, polishEvery: 200, refreshWork: n * n}
	sweep, _, err := sched.run(ctx, opt, n, moves{
		sweep:    func() (int, error) { return sweepGroups(pr, groups, diag, x, g) },
		refresh:  func() { g = gradientOf(pr.H, pr.P, x) },
		residual: func() float64 { return residual(x, g, groups) },
		polish: func(r float64, tick func()) (float64, int) {
			var w int
			x, g, r, w = tryPolish(pr, groups, x, g, r, res, tick)
			return r, w
		},
	})
	if err != nil {
		return nil, err
	}
	res.Sweeps = sweep
	g = gradientOf(pr.H, pr.P, x)
	res.X, res.Grad = x, g
	res.Residual = residual(x, g, groups)
	res.Converged = res.Residual <= tol
	res.Obj = objective(x, g, pr.P)
	return res, nil
}

// checkProblem checks pr's shapes and data and returns its groups and the
// absolute tolerance (opt.Tol relative to max(1, ‖p‖∞)).
func checkProblem(pr *Problem, opt Options) ([]group, float64, error) {
	if pr == nil || pr.H == nil {
		return nil, 0, fmt.Errorf("%w: no Hessian", ErrInput)
	}
	n := pr.H.Dim()
	if len(pr.P) != n || len(pr.Coef) != len(pr.Groups) || len(pr.Bound) != len(pr.Groups) {
		return nil, 0, fmt.Errorf("%w: dimensions disagree", ErrInput)
	}
	groups, err := buildGroups(pr, n)
	if err != nil {
		return nil, 0, err
	}
	pmax := 1.0
	for _, v := range pr.P {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("%w: p has a non-finite entry", ErrInput)
		}
		pmax = math.Max(pmax, math.Abs(v))
	}
	if pr.X0 != nil && len(pr.X0) != n {
		return nil, 0, fmt.Errorf("%w: X0 has %d entries for %d variables", ErrInput, len(pr.X0), n)
	}
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-7
	}
	return groups, tol * pmax, nil
}

// sweepGroups is one Gauss–Seidel sweep: each group's block minimised
// exactly with the others fixed (minBlock), the gradient kept in step. It
// returns the work done (multiply–adds, about).
func sweepGroups(pr *Problem, groups []group, diag, x, g []float64) (int, error) {
	n := len(x)
	work := 0
	var h, q, v [3]float64
	for _, gr := range groups {
		k := len(gr.idx)
		var hs, qs, vs []float64
		if k > 3 {
			hs, qs, vs = make([]float64, 0, k), make([]float64, 0, k), make([]float64, k)
		} else {
			hs, qs, vs = h[:0], q[:0], v[:k]
		}
		for _, i := range gr.idx {
			hs = append(hs, diag[i])
			qs = append(qs, g[i]-diag[i]*x[i])
		}
		if err := minBlock(hs, qs, gr.coef, gr.b, vs); err != nil {
			return work, fmt.Errorf("%w (group %v: h %v q %v a %v b %v)", err, gr.idx, hs, qs, gr.coef, gr.b)
		}
		for t, i := range gr.idx {
			if d := vs[t] - x[i]; d != 0 {
				x[i] = vs[t]
				pr.H.AddColumn(i, d, g)
				work += n
			}
		}
	}
	return work, nil
}

// tryPolish runs the active-set polish from x (gradient g, residual r)
// and returns its point when it lowers the residual without raising the
// objective (res.Polished counts it), else x itself; and the work it cost.
func tryPolish(pr *Problem, groups []group, x, g []float64, r float64, res *Result, tick func()) ([]float64, []float64, float64, int) {
	nf := 0
	for _, v := range x {
		if v > 0 {
			nf++
		}
	}
	work := nf*nf*nf/3 + len(x)*nf // the dense LU and the new gradient
	if xp, gp, ok := polish(pr, groups, x, tick); ok {
		if rp := residual(xp, gp, groups); rp < r && objective(xp, gp, pr.P) <= objective(x, g, pr.P)+1e-12*(1+math.Abs(objective(x, g, pr.P))) {
			res.Polished++
			return xp, gp, rp, work
		}
	}
	return x, g, r, work
}

func objective(x, g, p []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * (g[i] + p[i])
	}
	return s / 2
}

// polish guesses the active set from x (variables > 0 are free, groups
// whose constraint is tight are equalities) and solves the equality-
// constrained QP on it through its dense KKT system
//
//	[H_FF A_Fᵀ; A_F 0] (x_F, θ) = (−p_F, b_A)
//
// by LU (luTick: tick between panels). ok is false when the system is singular or the result is
// infeasible or has a negative multiplier; the caller keeps it only when it
// lowers both the KKT residual and the objective (so descent is preserved).
// Coordinate descent identifies the active set long before it converges on
// ill-conditioned problems (kernel twin SVMs), which is when this pays off.
func polish(pr *Problem, groups []group, x []float64, tick func()) (xp, gp []float64, ok bool) {
	var free []int
	for i, v := range x {
		if v > 0 {
			free = append(free, i)
		}
	}
	pos := make(map[int]int, len(free))
	for a, i := range free {
		pos[i] = a
	}
	var active []group
	for _, gr := range groups {
		s, hasFree, scale := 0.0, false, gr.b
		for t, i := range gr.idx {
			s += gr.coef[t] * x[i]
			scale = math.Max(scale, math.Abs(gr.coef[t]*x[i]))
			if x[i] > 0 {
				hasFree = true
			}
		}
		if hasFree && gr.coef != nil && math.Abs(s-gr.b) <= 1e-9*(1+scale) {
			active = append(active, gr)
		}
	}
	nf, na := len(free), len(active)
	if nf == 0 || nf+na > 600 { // bounded: one dense LU must stay short (the browser waits on it)
		return nil, nil, false
	}
	nk := nf + na
	kd := scratch.Floats(nk * nk) // the LU's matrix, given back below (polish runs once per solve, often thousands of times a fit)
	defer scratch.Put(kd)
	rhs := make([]float64, nk)
	for a, i := range free {
		for b, j := range free {
			kd[a*nk+b] = pr.H.At(i, j)
		}
		rhs[a] = -pr.P[i]
	}
	for r, gr := range active {
		for t, i := range gr.idx {
			if c, ok := pos[i]; ok {
				kd[(nf+r)*nk+c] = gr.coef[t]
				kd[c*nk+nf+r] = gr.coef[t]
			}
		}
		rhs[nf+r] = gr.b
	}
	ipiv := make([]int, nk)
	if !luTick(kd, nk, ipiv, tick) {
		return nil, nil, false
	}
	luSolve(kd, nk, ipiv, rhs)
	sol := mat.NewVecDense(nk, rhs)
	xp = make([]float64, len(x))
	for a, i := range free {
		v := sol.AtVec(a)
		if !(v >= 0) {
			return nil, nil, false
		}
		xp[i] = v
	}
	for r := 0; r < na; r++ {
		if !(sol.AtVec(nf+r) >= 0) {
			return nil, nil, false
		}
	}
	for _, gr := range groups {
		s := 0.0
		for t, i := range gr.idx {
			s += gr.coef[t] * xp[i]
		}
		if s > gr.b+1e-9*(1+gr.b) {
			return nil, nil, false
		}
	}
	return xp, gradientOf(pr.H, pr.P, xp), true
}

func buildGroups(pr *Problem, n int) ([]group, error) {
	seen := make([]bool, n)
	var out []group
	for gi, idx := range pr.Groups {
		if len(pr.Coef[gi]) != len(idx) {
			return nil, fmt.Errorf("%w: group %d has %d coefficients for %d variables", ErrInput, gi, len(pr.Coef[gi]), len(idx))
		}
		if !(pr.Bound[gi] >= 0) || math.IsInf(pr.Bound[gi], 0) {
			return nil, fmt.Errorf("%w: group %d bound %v must be finite and ≥ 0", ErrInput, gi, pr.Bound[gi])
		}
		for _, i := range idx {
			if i < 0 || i >= n || seen[i] {
				return nil, fmt.Errorf("%w: variable %d repeated or out of range in group %d", ErrInput, i, gi)
			}
			seen[i] = true
		}
		for a := 0; a < len(idx); a++ {
			if d := pr.H.At(idx[a], idx[a]); d < 0 || math.IsNaN(d) {
				return nil, fmt.Errorf("%w: H[%d][%d] = %v < 0 (block sub-problems must be convex)", ErrInput, idx[a], idx[a], d)
			}
			for b := a + 1; b < len(idx); b++ {
				if pr.H.At(idx[a], idx[b]) != 0 {
					return nil, fmt.Errorf("%w: H is not diagonal inside group %d", ErrInput, gi)
				}
			}
		}
		out = append(out, group{idx: idx, coef: pr.Coef[gi], b: pr.Bound[gi]})
	}
	for i := 0; i < n; i++ { // ungrouped variables: x ≥ 0 only
		if !seen[i] {
			if d := pr.H.At(i, i); d < 0 || math.IsNaN(d) {
				return nil, fmt.Errorf("%w: H[%d][%d] = %v < 0", ErrInput, i, i, d)
			}
			out = append(out, group{idx: []int{i}, coef: []float64{0}, b: 0})
		}
	}
	return out, nil
}

// residual returns ‖x − P(x − g)‖∞ over all groups.
func residual(x, g []float64, groups []group) float64 {
	r := 0.0
	ones := [3]float64{1, 1, 1}
	var z, v [3]float64
	for _, gr := range groups {
		k := len(gr.idx)
		hs, zs, vs := ones[:k:k], z[:k], v[:k]
		if k > 3 {
			hs, zs, vs = make([]float64, k), make([]float64, k), make([]float64, k)
			for t := range hs {
				hs[t] = 1
			}
		}
		for t, i := range gr.idx {
			zs[t] = -(x[i] - g[i]) // q = −z for ½‖v − z‖²
		}
		_ = minBlock(hs, zs, gr.coef, gr.b, vs) // strictly convex: never fails
		for t, i := range gr.idx {
			r = math.Max(r, math.Abs(x[i]-vs[t]))
		}
	}
	return r
}

// minBlock solves min Σ ½hᵢvᵢ² + qᵢvᵢ s.t. v ≥ 0, Σ aᵢvᵢ ≤ b exactly (hᵢ ≥ 0,
// b ≥ 0), writing the minimiser into v. With multiplier θ ≥ 0 for the sum
// constraint, a quadratic variable is vᵢ(θ) = max(0, −(qᵢ+θaᵢ)/hᵢ); a linear
// one (hᵢ = 0) is 0 if qᵢ+θaᵢ > 0 and free if = 0, which confines θ to
// [θlo, θhi]. r(θ) = Σ aᵢvᵢ(θ) over the quadratic variables is continuous,
// piecewise linear and non-increasing, so θ is found by scanning its
// breakpoints; linear variables then fill any remaining gap. Among several
// minimisers (linear variables), the one with the smallest linear variables
// is returned.
func minBlock(h, q, a []float64, b float64, v []float64) error {
	// Gradients are updated incrementally; a linear variable's coefficient
	// that is zero in exact arithmetic may come out as −1e-16. Treat such
	// round-off as zero rather than as an unbounded direction.
	tiny := 0.0
	for _, qi := range q {
		tiny = math.Max(tiny, math.Abs(qi))
	}
	tiny = 1e-12 * (1 + tiny)
	for i := range q {
		if h[i] == 0 && q[i] < 0 && q[i] > -tiny {
			q[i] = 0
		}
	}
	thLo, thHi, posLin, negLin, err := linearRange(h, q, a)
	if err != nil {
		return err
	}
	r := func(th float64) float64 {
		s := 0.0
		for i := range h {
			if h[i] > 0 {
				if vi := -(q[i] + th*a[i]) / h[i]; vi > 0 {
					s += a[i] * vi
				}
			}
		}
		return s
	}
	var th float64
	fill := 0.0 // Σ aᵢvᵢ the linear variables must contribute
	switch rlo := r(thLo); {
	case rlo <= b:
		th = thLo
		if th > 0 && posLin >= 0 {
			fill = b - rlo // constraint active: the a>0 linear variable takes the slack
		}
	case !math.IsInf(thHi, 1) && r(thHi) >= b:
		th = thHi
		fill = b - r(thHi) // ≤ 0: the a<0 linear variable absorbs the excess
	default:
		if th, err = rootOf(r, h, q, a, b, thLo, thHi); err != nil {
			return err
		}
	}
	for i := range h {
		if h[i] > 0 {
			v[i] = math.Max(0, -(q[i]+th*a[i])/h[i])
		} else {
			v[i] = 0
		}
	}
	switch {
	case fill > 0 && posLin >= 0:
		v[posLin] = fill / a[posLin]
	case fill < 0 && negLin >= 0:
		v[negLin] = fill / a[negLin]
	}
	return nil
}

// linearRange confines θ by the linear variables (hᵢ = 0) of minBlock's
// block: [θlo, θhi], and a linear variable with a > 0 (posLin) and with
// a < 0 (negLin) that may fill the gap (−1: none); ErrUnbounded when a
// linear variable can decrease the objective without limit.
func linearRange(h, q, a []float64) (thLo, thHi float64, posLin, negLin int, err error) {
	thLo, thHi = 0.0, math.Inf(1)
	posLin, negLin = -1, -1
	for i := range h {
		if h[i] > 0 {
			continue
		}
		switch {
		case a[i] > 0:
			if t := -q[i] / a[i]; t >= thLo {
				thLo, posLin = t, i
			}
		case a[i] < 0:
			if t := q[i] / -a[i]; t <= thHi {
				thHi, negLin = t, i
			}
		default:
			if q[i] < 0 {
				return 0, 0, -1, -1, ErrUnbounded
			}
		}
	}
	if thLo > thHi {
		return 0, 0, -1, -1, ErrUnbounded
	}
	return thLo, thHi, posLin, negLin, nil
}

// rootOf is the root of r(θ) = b in (θlo, θhi) for minBlock: r is linear
// between the breakpoints of its quadratic variables.
func rootOf(r func(float64) float64, h, q, a []float64, b, thLo, thHi float64) (float64, error) {
	// The breakpoints, on the stack for blocks of up to 62 variables (the
	// heap allocations of this slice were a third of what an MPWTSVM
	// experiment allocated).
	var buf [64]float64
	bps := buf[:0]
	if len(h)+2 > len(buf) {
		bps = make([]float64, 0, len(h)+2)
	}
	bps = append(bps, thLo)
	if !math.IsInf(thHi, 1) {
		bps = append(bps, thHi)
	}
	for i := range h {
		if h[i] > 0 && a[i] != 0 {
			if t := -q[i] / a[i]; t > thLo && t < thHi {
				bps = append(bps, t)
			}
		}
	}
	slices.Sort(bps)
	lo := thLo
	for _, t := range bps[1:] {
		if r(t) <= b {
			return solveLinear(r, lo, t, b), nil
		}
		lo = t
	}
	// beyond the last breakpoint r is linear with slope −Σ aᵢ²/hᵢ
	// over the active quadratic variables.
	slope := 0.0
	for i := range h {
		if h[i] > 0 && -(q[i]+(lo+1)*a[i])/h[i] > 0 {
			slope -= a[i] * a[i] / h[i]
		}
	}
	if slope >= 0 {
		return 0, ErrUnbounded
	}
	return lo + (b-r(lo))/slope, nil
}

// solveLinear returns θ in [lo, hi] with r(θ) = b, r linear there and
// r(lo) > b ≥ r(hi).
func solveLinear(r func(float64) float64, lo, hi, b float64) float64 {
	rl, rh := r(lo), r(hi)
	if rl == rh {
		return hi
	}
	return lo + (rl-b)*(hi-lo)/(rl-rh)
}

// Residual returns the natural KKT residual ‖x − P_Ω(x − g)‖∞ of x for the
// problem's constraints, g the gradient HX + p. It is zero exactly at
// first-order KKT points; tests and callers use it to check a solution.
func Residual(pr *Problem, x, g []float64) (float64, error) {
	groups, err := buildGroups(pr, len(x))
	if err != nil {
		return 0, err
	}
	return residual(x, g, groups), nil
}

// Feasibility returns the largest constraint violation of x (negative
// entries and group sums above their bounds).
func Feasibility(pr *Problem, x []float64) float64 {
	v := 0.0
	for _, xi := range x {
		v = math.Max(v, -xi)
	}
	for gi, idx := range pr.Groups {
		s := 0.0
		for t, i := range idx {
			s += pr.Coef[gi][t] * x[i]
		}
		v = math.Max(v, s-pr.Bound[gi])
	}
	return v
}
