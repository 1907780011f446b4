// Package lowrank holds the greedy pivoted Cholesky factorisation of a
// positive semi-definite kernel matrix, K ≈ LLᵀ with L of n×r: the low-rank
// paths of SVM2+'s Qλ (models/svmplus) and of EP on numerically low-rank
// Gram matrices (models/solver/ep) use it. gonum has no pivoted or
// incomplete Cholesky (its Cholesky factorises the whole matrix), hence this
// hand-written one.
package lowrank

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// PivotedCholesky returns L (n×r) with K ≈ LLᵀ by the greedy pivoted
// (incomplete) Cholesky factorisation of a positive semi-definite matrix
// given through its diagonal and its columns (Fine & Scheinberg, JMLR 2001;
// Harbrecht, Peters & Schneider, Appl. Numer. Math. 2012): step k takes the
// largest residual diagonal entry p as pivot, computes column k of L from
// column p of K minus the part already explained, l = (K[:,p] − L·L[p,:]ᵀ)/√d_p,
// and updates the residual diagonal d ← d − l∘l. The residual K − LLᵀ is
// positive semi-definite with trace Σd, so the factorisation stops when
// Σd ≤ tolAbs. It returns ok = false, and no factor, when that needs more
// than maxRank columns (or, by extrapolation, would: see below) or when the
// matrix turns out not to be positive semi-definite. col(p, dst) writes
// column p of K into dst; tick (if not nil) is called once per step. Each
// step costs O(n·k) plus one column of K, n·r²/2 flops and r columns in all.
func PivotedCholesky(ctx context.Context, diag []float64, col func(p int, dst []float64), tolAbs float64, maxRank int, tick func()) (*mat.Dense, bool, error) {
	n := len(diag)
	if maxRank > n {
		maxRank = n
	}
	if maxRank < 1 {
		return nil, false, nil
	}
	d := append([]float64(nil), diag...)
	done := make([]bool, n)
	st := maxRank
	l := make([]float64, n*st)
	buf := make([]float64, n)
	r := 0
	var trHalf float64 // residual trace at the last power-of-two step
	// Residual diagonal entries below −neg mean K is not positive
	// semi-definite (rounding makes them only slightly negative).
	neg := tolAbs
	for _, v := range diag {
		neg = math.Max(neg, 1e-10*math.Abs(v))
	}
	for {
		var tr, best float64
		p := -1
		for i, v := range d {
			if done[i] {
				continue
			}
			if v < -neg {
				return nil, false, nil
			}
			if v > 0 {
				tr += v
			}
			if p < 0 || v > best {
				p, best = i, v
			}
		}
		if tr <= tolAbs || p < 0 {
			break
		}
		if r == maxRank {
			return nil, false, nil
		}
		// Early abort: at r = 32, 64, 128, … extrapolate the decay of the
		// residual trace over the last r/2 steps geometrically; when even
		// that reaches tolAbs only beyond maxRank, give up now instead of
		// spending n·maxRank²/2 flops to find out. Kernel spectra decay
		// sub-geometrically (RBF: like exp(−c·k^(1/dim))), so the
		// extrapolation is optimistic and aborts only hopeless runs, except
		// when the trace plunges at an exact rank after a slow start (then
		// the dense path is taken, exact and merely slower).
		if r >= 16 && r&(r-1) == 0 {
			if trHalf > 0 {
				rate := math.Log(trHalf / tr)
				if !(rate > 0) || float64(r)+float64(r/2)*math.Log(tr/tolAbs)/rate > float64(maxRank) {
					return nil, false, nil
				}
			}
			trHalf = tr
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if tick != nil {
			tick()
		}
		col(p, buf)
		if r > 0 {
			// buf −= L[:, :r]·L[p, :r]ᵀ
			blas64.Gemv(blas.NoTrans, -1,
				blas64.General{Rows: n, Cols: r, Stride: st, Data: l},
				blas64.Vector{N: r, Inc: 1, Data: l[p*st : p*st+r]},
				1, blas64.Vector{N: n, Inc: 1, Data: buf})
		}
		dp := buf[p] // = d[p] up to rounding, computed afresh
		if math.IsNaN(dp) || math.IsInf(dp, 0) {
			return nil, false, errors.New("lowrank: the matrix has non-finite entries")
		}
		if !(dp > 0) {
			// The residual is not numerically positive semi-definite
			// while its trace is still above tolAbs: give up (the dense
			// path handles or reports it).
			return nil, false, nil
		}
		s := math.Sqrt(dp)
		for i := 0; i < n; i++ {
			if done[i] {
				continue
			}
			v := buf[i] / s
			l[i*st+r] = v
			d[i] -= v * v
		}
		l[p*st+r] = s
		d[p], done[p] = 0, true
		r++
	}
	out := mat.NewDense(n, max(r, 1), nil)
	if r > 0 {
		out.Copy(mat.NewDense(n, st, l).Slice(0, n, 0, r))
	}
	return out, true, nil
}
