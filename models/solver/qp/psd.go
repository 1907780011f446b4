package qp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CheckPSD reports whether the symmetric matrix P is positive semidefinite up
// to a relative tolerance: it returns nil when λ_min(P) ≥ −tol·‖P‖∞ and an
// error wrapping ErrNotPSD (with the offending eigenvalue) otherwise. tol ≤ 0
// selects the default 1e-9. NaN/Inf entries give an error wrapping ErrInput.
//
// The test is one Cholesky factorisation of P + tol·‖P‖∞·I, which succeeds
// exactly when λ_min(P) > −tol·‖P‖∞ (Cholesky is backward stable, so rounding
// moves the threshold by only O(n·ε·‖P‖)). ‖P‖∞ (max absolute row sum) bounds
// the spectral norm from above. Only when the factorisation fails is the
// smallest eigenvalue computed (gonum's symmetric eigensolver), to put it in
// the error message.
func CheckPSD(P *mat.SymDense, tol float64) error {
	if tol <= 0 {
		tol = 1e-9
	}
	if P == nil {
		return nil
	}
	n := P.SymmetricDim()
	data := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := P.At(i, j)
			if !finite(v) {
				return fmt.Errorf("%w: P[%d,%d] = %v", ErrInput, i, j, v)
			}
			data[i*n+j] = v
			data[j*n+i] = v
		}
	}
	return checkPSD(data, n, tol, nil, 1, nil)
}

// checkPSD is CheckPSD on a full row-major copy p of the matrix (not
// modified), with tick passed to the factorisation. p may be a scaled copy
// of the user's P; unscale converts numbers in the message back (P = unscale·p).
// buf (n², may be nil) is used as scratch.
func checkPSD(p []float64, n int, tol float64, tick func() error, unscale float64, buf []float64) error {
	if n == 0 {
		return nil
	}
	norm := 0.0
	for i := 0; i < n; i++ {
		row := 0.0
		for _, v := range p[i*n : (i+1)*n] {
			row += math.Abs(v)
		}
		norm = math.Max(norm, row)
	}
	if norm == 0 {
		return nil
	}
	shift := tol * norm
	data := buf
	if len(data) < n*n {
		data = make([]float64, n*n)
	}
	data = data[:n*n]
	copy(data, p)
	for i := 0; i < n; i++ {
		data[i*n+i] += shift
	}
	ok, err := cholUpper(data, n, tick)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, append([]float64(nil), p...)), false) {
		return fmt.Errorf("%w: Cholesky of P + %.3g·I failed and the eigen-decomposition did not converge", ErrNotPSD, shift*unscale)
	}
	vals := eig.Values(nil)
	lmin := vals[0]
	if lmin >= -shift {
		// Borderline: the factorisation failed by rounding only.
		return nil
	}
	neg := 0
	for _, v := range vals {
		if v < -shift {
			neg++
		}
	}
	return fmt.Errorf("%w: smallest eigenvalue %.6g < −%.3g (= −%.3g·‖P‖∞, ‖P‖∞ = %.6g), %d of %d eigenvalues negative; the QP is not convex",
		ErrNotPSD, lmin*unscale, shift*unscale, tol, norm*unscale, neg, n)
}
