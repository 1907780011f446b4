package ep

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// anderson is Anderson acceleration (type II, Walker & Ni 2011, "Anderson
// acceleration for fixed-point iterations", SIAM J. Numer. Anal. 49(4)) of
// the EP sweep map x ↦ G(x) on the flattened site parameters (τ̃, ν̃ of every
// block): with the residuals f_j = G(x_j) − x_j of the last m+1 sweeps,
//
//	γ = argmin ‖f_k − ΔF γ‖₂,   x_{k+1} = G(x_k) − ΔG γ,
//
// ΔF, ΔG the differences of consecutive residuals and images. For a linearly
// converging map (GPC+: the f–g coupling contracts the site changes by a
// near-constant factor per sweep) it removes the slow modes; its fixed point
// is that of G, so the EP solution is unchanged.
type anderson struct {
	m      int
	prevF  []float64 // f_{k−1}
	prevG  []float64 // G(x_{k−1})
	dF, dG [][]float64
	fk, w  []float64
}

// restart forgets the last iterate but keeps the secant pairs (ΔF, ΔG):
// a Run warm-started at nearby hyper-parameters (Options.Accel) begins with
// the previous run's picture of the sweep map's slow modes.
func (a *anderson) restart(n int) {
	a.prevF, a.prevG = nil, nil
	if len(a.dF) > 0 && len(a.dF[0]) != n {
		a.dF, a.dG = a.dF[:0], a.dG[:0]
	}
}

func (a *anderson) reset() {
	a.prevF, a.prevG = nil, nil
	a.dF, a.dG = a.dF[:0], a.dG[:0]
}

// step records the pair (x, g = G(x)) and writes the accelerated point into
// out; it returns false (out untouched) until two pairs are known or when
// the least-squares problem is degenerate.
func (a *anderson) step(x, g, out []float64) bool {
	n := len(x)
	if len(a.fk) != n {
		a.fk = make([]float64, n)
	}
	for i := range x {
		a.fk[i] = g[i] - x[i]
	}
	if a.prevF != nil {
		df, dg := make([]float64, n), make([]float64, n)
		for i := range df {
			df[i] = a.fk[i] - a.prevF[i]
			dg[i] = g[i] - a.prevG[i]
		}
		if len(a.dF) == a.m {
			a.dF, a.dG = a.dF[1:], a.dG[1:]
		}
		a.dF, a.dG = append(a.dF, df), append(a.dG, dg)
	}
	a.prevF = append(a.prevF[:0], a.fk...)
	a.prevG = append(a.prevG[:0], g...)
	k := len(a.dF)
	if k == 0 {
		return false
	}
	// Normal equations (ΔFᵀΔF + λI) γ = ΔFᵀ f_k with a relative ridge λ:
	// k ≤ m is tiny, and the ridge keeps nearly parallel differences (a
	// single slow mode) from producing huge coefficients.
	// Each coordinate is weighted by 1/(1+|G(x)ᵢ|)² (the relative site
	// change that Run's convergence test measures).
	if len(a.w) != n {
		a.w = make([]float64, n)
	}
	for i, v := range g {
		a.w[i] = 1 / ((1 + math.Abs(v)) * (1 + math.Abs(v)))
	}
	A := mat.NewSymDense(k, nil)
	rhs := mat.NewVecDense(k, nil)
	var tr float64
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			A.SetSym(i, j, wdot(a.w, a.dF[i], a.dF[j]))
		}
		tr += A.At(i, i)
		rhs.SetVec(i, wdot(a.w, a.dF[i], a.fk))
	}
	if !(tr > 0) {
		return false
	}
	for i := 0; i < k; i++ {
		A.SetSym(i, i, A.At(i, i)+1e-10*tr)
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		return false
	}
	var gam mat.VecDense
	if err := ch.SolveVecTo(&gam, rhs); err != nil {
		return false
	}
	copy(out, g)
	for j := 0; j < k; j++ {
		c := gam.AtVec(j)
		for i, v := range a.dG[j] {
			out[i] -= c * v
		}
	}
	return true
}

func wdot(w, a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += w[i] * v * b[i]
	}
	return s
}
