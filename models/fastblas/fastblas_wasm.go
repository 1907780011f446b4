//go:build wasm

package fastblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Dot returns Σ a[t]·b[t] over len(a) entries (len(b) ≥ len(a)).
func Dot(a, b []float64) float64 { return dotLoop(a, b) }

// MulVec sets y[:m] = A·x for the m×n row-major A with stride lda.
func MulVec(m, n int, a []float64, lda int, x, y []float64) { mulVecLoop(m, n, a, lda, x, y) }

// GramUpper sets the upper triangle of the m×m row-major C (stride ldc) to
// A·Aᵀ for the m×k row-major A (stride lda); the lower triangle is not
// touched.
func GramUpper(m, k int, a []float64, lda int, c []float64, ldc int) {
	gramUpperLoop(m, k, a, lda, c, ldc)
}

// AddABt adds B·Aᵀ to C (row-major: B is r×m, A is w×m, C is r×w).
func AddABt(b, a, c []float64, r, m, w int) { addABtLoop(b, a, c, r, m, w) }

// GemmAcc adds α·op(A)·B to C, op(A) = Aᵀ when transA (C m×n, B k×n).
func GemmAcc(transA bool, alpha float64, a, b, c blas64.General) { gemmAccLoop(transA, alpha, a, b, c) }

// TrsmLeft overwrites B with op(T)⁻¹B (op(T) = Tᵀ when trans).
func TrsmLeft(t blas64.Triangular, trans bool, b blas64.General) { trsmLeftLoop(t, trans, b) }

// AddMulT adds Pᵀ·x to y[:n] for the k×n row-major P with stride ldp.
func AddMulT(k, n int, p []float64, ldp int, x, y []float64) { addMulTLoop(k, n, p, ldp, x, y) }

// SyrkTUpper adds α·VᵀV to the upper triangle of S (V is k×n, S n×n).
func SyrkTUpper(alpha float64, v blas64.General, s blas64.Symmetric) { syrkTUpperLoop(alpha, v, s) }

// Potrf is lapack64.Potrf (the Cholesky factor in place; false when a is
// not positive definite), for the upper triangle by potrfLoop.
func Potrf(a blas64.Symmetric) (blas64.Triangular, bool) {
	if a.Uplo != blas.Upper {
		return lapack64.Potrf(a)
	}
	ok := potrfLoop(a.N, a.Data, a.Stride)
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: a.N, Stride: a.Stride, Data: a.Data}, ok
}

// TrsvUpper overwrites x with U⁻¹x, or U⁻ᵀx when trans (U upper
// triangular, non-unit).
func TrsvUpper(u blas64.Triangular, trans bool, x []float64) {
	if u.Uplo != blas.Upper || u.Diag != blas.NonUnit {
		tr := blas.NoTrans
		if trans {
			tr = blas.Trans
		}
		blas64.Trsv(tr, u, blas64.Vector{N: u.N, Inc: 1, Data: x})
		return
	}
	trsvUpperLoop(u, trans, x)
}
