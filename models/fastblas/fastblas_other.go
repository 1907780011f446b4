//go:build !wasm

package fastblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Dot returns Σ a[t]·b[t] over len(a) entries (len(b) ≥ len(a)).
func Dot(a, b []float64) float64 { return floats.Dot(a, b[:len(a)]) }

// MulVec sets y[:m] = A·x for the m×n row-major A with stride lda.
func MulVec(m, n int, a []float64, lda int, x, y []float64) {
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: lda, Data: a},
		blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: m, Inc: 1, Data: y})
}

// GramUpper sets the upper triangle of the m×m row-major C (stride ldc) to
// A·Aᵀ for the m×k row-major A (stride lda); the lower triangle is not
// touched.
func GramUpper(m, k int, a []float64, lda int, c []float64, ldc int) {
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: m, Cols: k, Stride: lda, Data: a},
		0, blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: ldc, Data: c})
}

// AddABt adds B·Aᵀ to C (row-major: B is r×m, A is w×m, C is r×w).
func AddABt(b, a, c []float64, r, m, w int) {
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: r, Cols: m, Stride: m, Data: b},
		blas64.General{Rows: w, Cols: m, Stride: m, Data: a},
		1, blas64.General{Rows: r, Cols: w, Stride: w, Data: c})
}

// GemmAcc adds α·op(A)·B to C, op(A) = Aᵀ when transA (C m×n, B k×n).
func GemmAcc(transA bool, alpha float64, a, b, c blas64.General) {
	t := blas.NoTrans
	if transA {
		t = blas.Trans
	}
	blas64.Gemm(t, blas.NoTrans, alpha, a, b, 1, c)
}

// TrsmLeft overwrites B with op(T)⁻¹B (op(T) = Tᵀ when trans).
func TrsmLeft(t blas64.Triangular, trans bool, b blas64.General) {
	tr := blas.NoTrans
	if trans {
		tr = blas.Trans
	}
	blas64.Trsm(blas.Left, tr, 1, t, b)
}

// AddMulT adds Pᵀ·x to y[:n] for the k×n row-major P with stride ldp.
func AddMulT(k, n int, p []float64, ldp int, x, y []float64) {
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: k, Cols: n, Stride: ldp, Data: p},
		blas64.Vector{N: k, Inc: 1, Data: x}, 1, blas64.Vector{N: n, Inc: 1, Data: y})
}

// SyrkTUpper adds α·VᵀV to the upper triangle of S (V is k×n, S n×n).
func SyrkTUpper(alpha float64, v blas64.General, s blas64.Symmetric) {
	s.Uplo = blas.Upper
	blas64.Syrk(blas.Trans, alpha, v, 1, s)
}

// Potrf is lapack64.Potrf (the Cholesky factor in place; false when a is
// not positive definite).
func Potrf(a blas64.Symmetric) (blas64.Triangular, bool) { return lapack64.Potrf(a) }

// TrsvUpper overwrites x with U⁻¹x, or U⁻ᵀx when trans (U upper
// triangular, non-unit).
func TrsvUpper(u blas64.Triangular, trans bool, x []float64) {
	tr := blas.NoTrans
	if trans {
		tr = blas.Trans
	}
	blas64.Trsv(tr, u, blas64.Vector{N: u.N, Inc: 1, Data: x})
}
