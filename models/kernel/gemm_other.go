//go:build !wasm

package kernel

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// addABt adds B·Aᵀ to C (row-major: B is r×m, A is w×m, C is r×w) with
// gonum's Dgemm (assembly kernels on amd64/arm64).
func addABt(b, a, c []float64, r, m, w int) {
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: r, Cols: m, Stride: m, Data: b},
		blas64.General{Rows: w, Cols: m, Stride: m, Data: a},
		1, blas64.General{Rows: r, Cols: w, Stride: w, Data: c})
}
