package qp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"lupilab/models/fastblas"
)

// cholBlock is the block size of cholUpper (gonum's Ilaenv value for DPOTRF).
const cholBlock = 64

// cholUpper overwrites the upper triangle of the n×n row-major matrix a
// (stride n) with U such that a = UᵀU. It is gonum's blocked left-looking
// Dpotrf (upper variant: Dsyrk, unblocked factor of the diagonal block,
// Dgemm, Dtrsm per block column — the same calls and flops, through
// fastblas: gonum natively, loops under wasm), split open so that tick (when
// not nil) runs after every block column: the solver uses it to report
// progress and honour cancellation during the O(n³) factorisation, which at
// n ≈ 1000 takes long enough to matter in a browser tab. tick may be nil; a
// non-nil error from tick aborts the factorisation and is returned.
// ok is false if a is not (numerically) positive definite.
func cholUpper(a []float64, n int, tick func() error) (ok bool, err error) {
	if n <= cholBlock {
		_, ok = lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper})
		return ok, nil
	}
	for j := 0; j < n; j += cholBlock {
		jb := min(cholBlock, n-j)
		if j > 0 {
			fastblas.SyrkTUpper(-1, blas64.General{Rows: j, Cols: jb, Stride: n, Data: a[j:]},
				blas64.Symmetric{Uplo: blas.Upper, N: jb, Stride: n, Data: a[j*n+j:]})
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: jb, Stride: n, Data: a[j*n+j:], Uplo: blas.Upper}); !ok {
			return false, nil
		}
		// The block row right of the diagonal, in column chunks of
		// cholChunk (one chunk natively; narrow chunks under wasm, where a
		// block row of a 1000-variable problem is ~100 ms of work).
		u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: jb, Stride: n, Data: a[j*n+j:]}
		for c0 := j + jb; c0 < n; c0 += cholChunk {
			c1 := min(c0+cholChunk, n)
			blk := blas64.General{Rows: jb, Cols: c1 - c0, Stride: n, Data: a[j*n+c0:]}
			if j > 0 {
				fastblas.GemmAcc(true, -1, blas64.General{Rows: j, Cols: jb, Stride: n, Data: a[j:]},
					blas64.General{Rows: j, Cols: c1 - c0, Stride: n, Data: a[c0:]}, blk)
			}
			fastblas.TrsmLeft(u, true, blk)
			if c1 < n && tick != nil {
				if err := tick(); err != nil {
					return false, err
				}
			}
		}
		if tick != nil {
			if err := tick(); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}
