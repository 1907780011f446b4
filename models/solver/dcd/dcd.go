// Package dcd solves box-constrained convex quadratic programs
//
//	min ½ xᵀQx + pᵀx   s.t.  lᵢ ≤ xᵢ ≤ uᵢ
//
// by dual coordinate descent with greedy ("clipping") coordinate selection —
// the ClipDCD scheme of Peng, Chen & Kong (2014) used for twin-SVM duals —
// followed by an optional active-set polish: once the bound pattern has
// settled, the free variables are obtained from one Cholesky solve of Q_FF and
// the result is kept only when it satisfies the KKT conditions at least as
// well as the coordinate-descent iterate.
//
// Q must be symmetric positive semidefinite (a negative diagonal entry is
// reported as ErrNotConvex). Coordinate descent needs no factorisation and
// touches one column of Q per step, which suits the twin-SVM duals whose only
// constraints are boxes (no equality: the bias is inside the plane vector).
package dcd

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Problem is min ½xᵀQx + pᵀx subject to Lower ≤ x ≤ Upper.
type Problem struct {
	Q *mat.SymDense // n×n, positive semidefinite
	P []float64     // length n
	// Lower and Upper bound every variable; nil Lower means 0, nil Upper
	// means +Inf. Entries may be ±Inf.
	Lower, Upper []float64
	// X0 is an optional starting point (clipped into the box).
	X0 []float64
}

// Options control Solve.
type Options struct {
	// Tol is the stopping tolerance on the largest projected-gradient
	// component, relative to max(1, ‖p‖∞). Default 1e-8.
	Tol float64
	// MaxIter bounds the number of coordinate steps. Default 200·n + 10000.
	MaxIter int
	// NoPolish disables the active-set polish step.
	NoPolish bool
	// Progress, when set, is called about every 1000 steps with the current
	// iteration count and KKT violation.
	Progress func(iter int, violation float64)
}

// Result is the solution of a Problem.
type Result struct {
	X         []float64 // the minimiser
	Grad      []float64 // Qx + p at X
	Obj       float64   // ½xᵀQx + pᵀx
	Iter      int       // coordinate steps taken
	Violation float64   // largest projected-gradient component at X (absolute)
	Converged bool      // Violation ≤ Tol·max(1,‖p‖∞)
	Polished  bool      // the active-set polish step was accepted
}

// Errors returned by Solve.
var (
	ErrNotConvex = errors.New("dcd: Q has a negative diagonal entry (not positive semidefinite)")
	ErrUnbounded = errors.New("dcd: the problem is unbounded below (zero curvature along a descent direction with an infinite bound)")
	ErrInput     = errors.New("dcd: invalid problem")
)

// Violation returns the largest projected-gradient component: for each i,
// |gᵢ| if lᵢ < xᵢ < uᵢ, max(0,−gᵢ) at the lower bound, max(0,gᵢ) at the
// upper bound. It is zero exactly at a KKT point of the box QP.
func Violation(x, g, lower, upper []float64) float64 {
	v := 0.0
	for i := range x {
		lo, hi := bound(lower, i, 0), bound(upper, i, math.Inf(1))
		v = math.Max(v, projGrad(x[i], g[i], lo, hi))
	}
	return v
}

func projGrad(x, g, lo, hi float64) float64 {
	switch {
	case x <= lo && x >= hi:
		return 0
	case x <= lo:
		return math.Max(0, -g)
	case x >= hi:
		return math.Max(0, g)
	default:
		return math.Abs(g)
	}
}

func bound(b []float64, i int, def float64) float64 {
	if b == nil {
		return def
	}
	return b[i]
}

// Solve minimises the box-constrained QP. It returns ctx.Err() when the
// context is cancelled; non-convergence within MaxIter is not an error
// (Result.Converged is false).
func Solve(ctx context.Context, p *Problem, opt Options) (*Result, error) {
	lo, hi, pmax, err := checkProblem(p)
	if err != nil {
		return nil, err
	}
	n := len(p.P)
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-8
	}
	tol *= pmax
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 200*n + 10000
	}
	// Dense full copy of Q for fast column access.
	raw := p.Q.RawSymmetric()
	q := make([][]float64, n)
	for i := range q {
		r := make([]float64, n) // row i of Q (= column i); upper storage
		for j := 0; j < n; j++ {
			if j >= i {
				r[j] = raw.Data[i*raw.Stride+j]
			} else {
				r[j] = raw.Data[j*raw.Stride+i]
			}
		}
		q[i] = r
	}
	x := make([]float64, n)
	for i := range x {
		if p.X0 != nil {
			x[i] = math.Min(hi[i], math.Max(lo[i], p.X0[i]))
		} else {
			x[i] = math.Min(hi[i], math.Max(lo[i], 0))
		}
		if math.IsInf(x[i], 0) {
			return nil, fmt.Errorf("%w: no finite start for variable %d", ErrInput, i)
		}
	}
	g := gradient(q, p.P, x)
	res := &Result{}
	iter := 0
	for ; iter < maxIter; iter++ {
		best, step, viol, err := clipStep(q, x, g, lo, hi)
		if err != nil {
			return nil, err
		}
		res.Violation = viol
		if viol <= tol || best < 0 {
			break
		}
		if iter%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if opt.Progress != nil {
				opt.Progress(iter, viol)
			}
		}
		x[best] += step
		for i, v := range q[best] {
			g[i] += v * step
		}
	}
	res.Iter = iter
	res.X, res.Grad = x, g
	res.Violation = Violation(x, g, lo, hi)
	if !opt.NoPolish {
		if xp, gp, ok := polish(q, p.P, x, lo, hi); ok {
			if v := Violation(xp, gp, lo, hi); v <= res.Violation {
				res.X, res.Grad, res.Violation, res.Polished = xp, gp, v, true
			}
		}
	}
	res.Converged = res.Violation <= tol
	res.Obj = objective(res.X, res.Grad, p.P)
	return res, nil
}

// checkProblem checks p and returns its bounds (defaults filled in) and
// max(1, ‖p‖∞).
func checkProblem(p *Problem) (lo, hi []float64, pmax float64, err error) {
	if p == nil || p.Q == nil {
		return nil, nil, 0, fmt.Errorf("%w: no matrix", ErrInput)
	}
	n := p.Q.SymmetricDim()
	if len(p.P) != n || (p.Lower != nil && len(p.Lower) != n) || (p.Upper != nil && len(p.Upper) != n) || (p.X0 != nil && len(p.X0) != n) {
		return nil, nil, 0, fmt.Errorf("%w: dimensions disagree with Q (%d)", ErrInput, n)
	}
	lo = make([]float64, n)
	hi = make([]float64, n)
	pmax = 1.0
	for i := 0; i < n; i++ {
		lo[i], hi[i] = bound(p.Lower, i, 0), bound(p.Upper, i, math.Inf(1))
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || lo[i] > hi[i] || math.IsInf(lo[i], 1) || math.IsInf(hi[i], -1) {
			return nil, nil, 0, fmt.Errorf("%w: bounds of variable %d are [%v, %v]", ErrInput, i, lo[i], hi[i])
		}
		if math.IsNaN(p.P[i]) || math.IsInf(p.P[i], 0) {
			return nil, nil, 0, fmt.Errorf("%w: p[%d] = %v", ErrInput, i, p.P[i])
		}
		pmax = math.Max(pmax, math.Abs(p.P[i]))
		d := p.Q.At(i, i)
		if math.IsNaN(d) || d < 0 {
			return nil, nil, 0, ErrNotConvex
		}
	}
	return lo, hi, pmax, nil
}

// clipStep is ClipDCD's greedy choice: the coordinate whose clipped Newton
// step decreases the objective most (zero-curvature coordinates move to
// the bound their gradient points at), its step, and the largest
// projected-gradient component; best is −1 when no coordinate can move.
func clipStep(q [][]float64, x, g, lo, hi []float64) (best int, bestStep, viol float64, err error) {
	best = -1
	bestGain := 0.0
	for i := range x {
		pg := projGrad(x[i], g[i], lo[i], hi[i])
		if pg == 0 {
			continue
		}
		viol = math.Max(viol, pg)
		d := q[i][i]
		var step, gain float64
		if d > 0 {
			t := math.Min(hi[i], math.Max(lo[i], x[i]-g[i]/d))
			step = t - x[i]
			gain = -(g[i]*step + 0.5*d*step*step)
		} else {
			t := lo[i]
			if g[i] < 0 {
				t = hi[i]
			}
			if math.IsInf(t, 0) {
				return -1, 0, viol, ErrUnbounded
			}
			step = t - x[i]
			gain = -g[i] * step
		}
		if gain > bestGain {
			best, bestGain, bestStep = i, gain, step
		}
	}
	return best, bestStep, viol, nil
}

// gradient is Qx + p (q: the rows of Q).
func gradient(q [][]float64, p, x []float64) []float64 {
	g := append([]float64(nil), p...)
	for j, xj := range x {
		if xj != 0 {
			for i, v := range q[j] {
				g[i] += v * xj
			}
		}
	}
	return g
}

// objective returns ½xᵀQx + pᵀx = ½xᵀ(g + p) with g = Qx + p.
func objective(x, g, p []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * (g[i] + p[i])
	}
	return s / 2
}

// polish fixes the variables at bounds and solves Q_FF x_F = −p_F − Q_FB x_B
// for the free ones by Cholesky. It fails (ok = false) when Q_FF is not
// positive definite or the solution leaves the box.
func polish(q [][]float64, p, x0, lo, hi []float64) (x, g []float64, ok bool) {
	n := len(x0)
	var free []int
	for i := 0; i < n; i++ {
		if x0[i] > lo[i] && x0[i] < hi[i] {
			free = append(free, i)
		}
	}
	x = append([]float64(nil), x0...)
	if len(free) > 0 {
		m := len(free)
		a := mat.NewSymDense(m, nil)
		rhs := mat.NewVecDense(m, nil)
		for r, i := range free {
			for c := r; c < m; c++ {
				a.SetSym(r, c, q[i][free[c]])
			}
			s := -p[i]
			for j := 0; j < n; j++ {
				if x0[j] != 0 && !(x0[j] > lo[j] && x0[j] < hi[j]) {
					s -= q[i][j] * x0[j]
				}
			}
			rhs.SetVec(r, s)
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			return nil, nil, false
		}
		var sol mat.VecDense
		if err := ch.SolveVecTo(&sol, rhs); err != nil {
			return nil, nil, false
		}
		for r, i := range free {
			v := sol.AtVec(r)
			if math.IsNaN(v) || v < lo[i] || v > hi[i] {
				return nil, nil, false
			}
			x[i] = v
		}
	}
	return x, gradient(q, p, x), true
}
