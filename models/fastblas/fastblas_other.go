//go:build !wasm

package fastblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
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
