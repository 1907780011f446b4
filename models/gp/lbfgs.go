package gp

import (
	"context"
	"math"
)

// lbfgsResult reports a minimisation.
type lbfgsResult struct {
	X         []float64
	F         float64
	Iter      int
	Converged bool
}

// lbfgs minimises fg (value and gradient) from x0 with limited-memory BFGS
// (Nocedal & Wright 2006, algorithm 7.4 two-loop recursion, memory 7) and a
// backtracking line search with the Armijo condition; a pair (s, y) with
// sᵀy ≤ 0 is not stored. It stops when ‖∇f‖∞ < gtol, when f decreases by less
// than ftol·(1+|f|) over 3 consecutive iterations, or after maxIter iterations
// (Converged = false). A non-finite f is treated as a rejected step.
//
// It stands in for gonum/optimize.LBFGS, whose package cannot be imported here
// until golang.org/x/tools (a dependency of gonum/stat/distmv, which
// gonum/optimize imports) is in the module's go.sum.
func lbfgs(ctx context.Context, fg func(x []float64) (float64, []float64), x0 []float64, maxIter int, gtol, ftol float64) (*lbfgsResult, error) {
	const mem = 7
	n := len(x0)
	x := append([]float64(nil), x0...)
	f, g := fg(x)
	res := &lbfgsResult{X: x, F: f}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return res, nil
	}
	var S, Y [][]float64
	var rho []float64
	small := 0
	d := make([]float64, n)
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if infNorm(g) < gtol {
			res.Converged = true
			break
		}
		// Two-loop recursion: d = −H g.
		q := append([]float64(nil), g...)
		alpha := make([]float64, len(S))
		for k := len(S) - 1; k >= 0; k-- {
			alpha[k] = rho[k] * dot(S[k], q)
			axpy(-alpha[k], Y[k], q)
		}
		gamma := 1.0
		if len(S) > 0 {
			k := len(S) - 1
			gamma = dot(S[k], Y[k]) / dot(Y[k], Y[k])
		} else {
			gamma = 1 / math.Max(1, infNorm(g))
		}
		for i := range q {
			q[i] *= gamma
		}
		for k := 0; k < len(S); k++ {
			b := rho[k] * dot(Y[k], q)
			axpy(alpha[k]-b, S[k], q)
		}
		for i := range d {
			d[i] = -q[i]
		}
		slope := dot(g, d)
		if slope >= 0 { // not a descent direction: restart from steepest descent
			S, Y, rho = nil, nil, nil
			for i := range d {
				d[i] = -g[i] / math.Max(1, infNorm(g))
			}
			slope = dot(g, d)
		}
		step := 1.0
		var xn []float64
		var fn float64
		var gn []float64
		accepted := false
		for ls := 0; ls < 30; ls++ {
			xn = append(xn[:0], x...)
			axpy(step, d, xn)
			fn, gn = fg(xn)
			if !math.IsNaN(fn) && !math.IsInf(fn, 0) && fn <= f+1e-4*step*slope {
				accepted = true
				break
			}
			step *= 0.5
		}
		res.Iter = it
		if !accepted {
			// No decrease along d: x is as good as this method gets.
			res.Converged = infNorm(g) < 1e3*gtol
			break
		}
		s := make([]float64, n)
		yv := make([]float64, n)
		for i := range s {
			s[i] = xn[i] - x[i]
			yv[i] = gn[i] - g[i]
		}
		if sy := dot(s, yv); sy > 1e-12 {
			S, Y, rho = append(S, s), append(Y, yv), append(rho, 1/sy)
			if len(S) > mem {
				S, Y, rho = S[1:], Y[1:], rho[1:]
			}
		}
		if f-fn < ftol*(1+math.Abs(f)) {
			small++
		} else {
			small = 0
		}
		x, f, g = append([]float64(nil), xn...), fn, gn
		res.X, res.F = x, f
		if small >= 3 {
			res.Converged = true
			break
		}
	}
	return res, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func infNorm(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
