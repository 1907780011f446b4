package multiview

import (
	"context"
	"fmt"

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
