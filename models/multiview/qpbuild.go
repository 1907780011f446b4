package multiview

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/solver/qp"
)

// qpBuilder assembles the dual QPs of this package in a vector of variables
// π (blocks of multipliers laid end to end):
//
//	min ½πᵀPπ + qᵀπ  s.t.  Aπ ≤ b,  Eπ = d,  lower ≤ π ≤ upper.
//
// The quadratic terms of every dual here have the form Σ_t s_t·g_tᵀ G_t g_t
// with g_t = S_t π a linear image of π (the expansion coefficients of one
// view) and G_t a kernel-type PSD matrix, so P = Σ_t s_t S_tᵀ G_t S_t.
type qpBuilder struct {
	n            int
	P            *mat.SymDense
	q            []float64
	lower, upper []float64
	aRows        [][]float64
	b            []float64
	eRows        [][]float64
	d            []float64
}

func newQP(n int) *qpBuilder {
	return &qpBuilder{n: n, P: mat.NewSymDense(n, nil), q: make([]float64, n),
		lower: make([]float64, n), upper: make([]float64, n)}
}

// bounds sets lower ≤ π_i ≤ upper for i in [off, off+len).
func (b *qpBuilder) bounds(off, length int, lo, hi float64) {
	for i := off; i < off+length; i++ {
		b.lower[i], b.upper[i] = lo, hi
	}
}

// linear sets q_i = c for i in [off, off+len).
func (b *qpBuilder) linear(off, length int, c float64) {
	for i := off; i < off+length; i++ {
		b.q[i] = c
	}
}

// ineq adds the row Σ_k coef_k π_{idx_k} ≤ rhs.
func (b *qpBuilder) ineq(idx []int, coef []float64, rhs float64) {
	row := make([]float64, b.n)
	for k, i := range idx {
		row[i] += coef[k]
	}
	b.aRows = append(b.aRows, row)
	b.b = append(b.b, rhs)
}

// eq adds the row rowᵀπ = rhs (row has length n).
func (b *qpBuilder) eq(row []float64, rhs float64) {
	b.eRows = append(b.eRows, row)
	b.d = append(b.d, rhs)
}

// addQuad adds s·SᵀGS to P (S is m×n, G is m×m symmetric PSD). S is a
// selector here (a few non-zeros per row), so the sum runs over pairs of
// non-zeros of S: O(nnz(S)²) instead of dense products, with G symmetrised
// as ½(G + Gᵀ).
func (b *qpBuilder) addQuad(S *mat.Dense, G mat.Matrix, s float64) {
	type nz struct {
		row, col int
		v        float64
	}
	var nzs []nz
	m, n := S.Dims()
	for i := 0; i < m; i++ {
		row := S.RawRowView(i)
		for j := 0; j < n; j++ {
			if row[j] != 0 {
				nzs = append(nzs, nz{i, j, row[j]})
			}
		}
	}
	raw := b.P.RawSymmetric()
	// A symmetric G is read from its storage: G.At through the interface
	// was most of the assembly's time in the browser.
	at := func(i, j int) float64 { return 0.5 * (G.At(i, j) + G.At(j, i)) }
	if sg, ok := G.(*mat.SymDense); ok {
		g := sg.RawSymmetric()
		at = func(i, j int) float64 {
			if i > j {
				i, j = j, i
			}
			return g.Data[i*g.Stride+j]
		}
	}
	for _, p := range nzs {
		for _, q := range nzs {
			if q.col < p.col {
				continue
			}
			v := at(p.row, q.row) * p.v * q.v
			if v != 0 {
				raw.Data[p.col*raw.Stride+q.col] += s * v
			}
		}
	}
}

func dense(rows [][]float64, n int) *mat.Dense {
	if len(rows) == 0 {
		return nil
	}
	m := mat.NewDense(len(rows), n, nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// problem returns the assembled qp.Problem.
func (b *qpBuilder) problem() *qp.Problem {
	return &qp.Problem{P: b.P, Q: b.q, A: dense(b.aRows, b.n), B: b.b, E: dense(b.eRows, b.n), D: b.d,
		Lower: b.lower, Upper: b.upper}
}

// solveQP runs the interior-point solver, forwarding its iterations to the
// fit's progress callback. A run that ends without convergence is returned
// (with its residuals) and flagged by the caller in the report.
//
// tol is the solver's relative tolerance (0: its default, 1e-8).
func solveQP(ctx context.Context, p *qp.Problem, opt model.Options, stage string, tol float64) (*qp.Result, error) {
	res, err := qp.Solve(ctx, p, qp.Options{Tol: tol, Progress: func(iter int) {
		opt.Report(model.Progress{Fraction: -1, Stage: stage, Iter: iter})
	}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stage, err)
	}
	return res, nil
}

// selector returns an m×n matrix S with S[i, off+i] = c_i: the block of π
// starting at off, scaled row-wise by c (nil c means 1).
func selector(S *mat.Dense, off int, c []float64, m int, scale float64) {
	for i := 0; i < m; i++ {
		v := scale
		if c != nil {
			v *= c[i]
		}
		S.Set(i, off+i, S.At(i, off+i)+v)
	}
}

// finishReport fills the common fields of a report from a QP result.
func finishReport(rep *model.Report, res *qp.Result) {
	rep.Iterations += res.Iter
	rep.Objective += res.Obj
	if !res.Converged {
		rep.Converged = false
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("QP solver stopped after %d iterations (%s, relative residuals %.2g / %.2g / %.2g)",
			res.Iter, res.Status, res.RelPrimalRes, res.RelDualRes, res.RelGap))
	}
}

// polishBox refines an interior-point solution res of a problem with bounds
// and inequality rows only (no equalities) by solving its KKT system on the
// active set exactly: a variable is fixed at a bound when the solver's
// multiplier of that bound exceeds its distance to it, the others (F) solve
// P_FF x_F = −(q_F + P_FB x_B); a free variable that leaves its box is then
// fixed and a fixed one whose reduced gradient has the wrong sign is freed,
// a few times over. The result is returned only when it is a certified
// optimum — inside the bounds and the rows (to 1e-12 relative), every fixed
// variable's reduced gradient of the right sign (to 1e-9 relative) —
// otherwise ok is false and res.X should be kept.
//
// Why: where the planes are (EᵀE + rI)⁻¹h (MvTSVM), an error δ in the
// multipliers becomes up to δ/r in the planes; interior-point accuracy
// (~1e-10) left ~1e-2 in the planes' values at the default r = 1e-4 against
// an exact solution (testdata/ref_mvtsvm.json), while the active set it
// finds is right. (The rows of MvTSVM, λ⁺ + λ⁻ ≤ D, are only checked: at its
// optimum with ε > 0 at most one of λ⁺ᵢ, λ⁻ᵢ is non-zero.)
func (b *qpBuilder) polishBox(res *qp.Result) (out []float64, obj float64, ok bool) {
	n := b.n
	x := res.X
	if len(b.eRows) > 0 || len(x) != n || len(res.ZLower) != n || len(res.ZUpper) != n {
		return nil, 0, false
	}
	scale, gmax := 1.0, 1.0
	for i := 0; i < n; i++ {
		for _, v := range []float64{b.lower[i], b.upper[i]} {
			if !math.IsInf(v, 0) {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		gmax = math.Max(gmax, math.Abs(b.q[i]))
	}
	state := make([]boxState, n)
	for i, v := range x {
		switch {
		case res.ZLower[i] > v-b.lower[i]:
			state[i] = atLower
		case res.ZUpper[i] > b.upper[i]-v:
			state[i] = atUpper
		}
	}
	feas := 1e-12 * scale
	for round := 0; round < 20; round++ {
		out, ok = b.solveFree(state)
		if !ok {
			return nil, 0, false
		}
		g := make([]float64, n)
		for i := 0; i < n; i++ {
			s := b.q[i]
			for j := 0; j < n; j++ {
				s += b.P.At(i, j) * out[j]
			}
			g[i] = s
		}
		if b.updateActive(state, out, g, feas, 1e-9*gmax) {
			continue
		}
		for k, row := range b.aRows {
			s := 0.0
			for j, c := range row {
				s += c * out[j]
			}
			if s > b.b[k]+feas {
				return nil, 0, false
			}
		}
		for i := 0; i < n; i++ {
			obj += out[i] * (0.5*(g[i]-b.q[i]) + b.q[i])
		}
		return out, obj, true
	}
	return nil, 0, false
}

// boxState is where polishBox holds a variable: free or fixed at a bound.
type boxState int

const (
	free boxState = iota
	atLower
	atUpper
)

// solveFree fixes the variables state holds at their bounds and solves
// P_FF x_F = −(q_F + P_FB x_B) for the free ones.
func (b *qpBuilder) solveFree(state []boxState) ([]float64, bool) {
	n := b.n
	out := make([]float64, n)
	var fr []int
	for i := range out {
		switch state[i] {
		case atLower:
			out[i] = b.lower[i]
		case atUpper:
			out[i] = b.upper[i]
		default:
			fr = append(fr, i)
		}
	}
	nf := len(fr)
	if nf == 0 {
		return out, true
	}
	pff := mat.NewSymDense(nf, nil)
	rhs := mat.NewVecDense(nf, nil)
	for a, i := range fr {
		s := -b.q[i]
		for j := 0; j < n; j++ {
			if state[j] != free && out[j] != 0 {
				s -= b.P.At(i, j) * out[j]
			}
		}
		rhs.SetVec(a, s)
		for c := a; c < nf; c++ {
			pff.SetSym(a, c, b.P.At(i, fr[c]))
		}
	}
	xf, ok := solveSymPSD(pff, rhs)
	if !ok {
		return nil, false
	}
	for a, i := range fr {
		out[i] = xf.AtVec(a)
	}
	return out, true
}

// updateActive fixes a free variable that left its box (by more than feas)
// at the bound it crossed and frees a fixed one whose reduced gradient g has
// the wrong sign (beyond gtol); it reports whether any state changed.
func (b *qpBuilder) updateActive(state []boxState, out, g []float64, feas, gtol float64) bool {
	changed := false
	for i, v := range out {
		switch {
		case state[i] == free && v < b.lower[i]-feas:
			state[i], changed = atLower, true
		case state[i] == free && v > b.upper[i]+feas:
			state[i], changed = atUpper, true
		case state[i] == atLower && g[i] < -gtol, state[i] == atUpper && g[i] > gtol:
			state[i], changed = free, true
		}
	}
	return changed
}

// solveSymPSD solves A x = r for a symmetric PSD A: by Cholesky, or, when A
// is singular (free multipliers whose columns of the selector coincide),
// by the SVD pseudo-inverse (singular values below 1e-12·σ_max dropped) —
// then any solution gives the same planes and polishBox's certification
// decides whether the one found is feasible.
func solveSymPSD(A *mat.SymDense, r *mat.VecDense) (*mat.VecDense, bool) {
	var x mat.VecDense
	var ch mat.Cholesky
	if ch.Factorize(A) {
		if err := ch.SolveVecTo(&x, r); err == nil {
			return &x, true
		}
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, false
	}
	vals := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	var ur mat.VecDense
	ur.MulVec(u.T(), r)
	for i, s := range vals {
		if s > 1e-12*vals[0] {
			ur.SetVec(i, ur.AtVec(i)/s)
		} else {
			ur.SetVec(i, 0)
		}
	}
	x.MulVec(&v, &ur)
	return &x, true
}
