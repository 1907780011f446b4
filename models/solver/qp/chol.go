package qp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholBlock is the block size of cholUpper (gonum's Ilaenv value for DPOTRF).
const cholBlock = 64

// cholUpper overwrites the upper triangle of the n×n row-major matrix a
// (stride n) with U such that a = UᵀU. It is gonum's blocked left-looking
// Dpotrf (upper variant: Dsyrk, unblocked factor of the diagonal block,
// Dgemm, Dtrsm per block column — the same calls and flops), split open so
// that tick runs after every block column: the solver uses it to report
// progress and honour cancellation during the O(n³) factorisation, which at
// n ≈ 1000 takes long enough to matter in a browser tab. tick may be nil; a
// non-nil error from tick aborts the factorisation and is returned.
// ok is false if a is not (numerically) positive definite.
func cholUpper(a []float64, n int, tick func() error) (ok bool, err error) {
	if n <= cholBlock || tick == nil {
		_, ok = lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper})
		return ok, nil
	}
	bi := blas64.Implementation()
	for j := 0; j < n; j += cholBlock {
		jb := min(cholBlock, n-j)
		if j > 0 {
			bi.Dsyrk(blas.Upper, blas.Trans, jb, j, -1, a[j:], n, 1, a[j*n+j:], n)
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: jb, Stride: n, Data: a[j*n+j:], Uplo: blas.Upper}); !ok {
			return false, nil
		}
		// The block row right of the diagonal, in column chunks of
		// cholChunk (one chunk natively; narrow chunks under wasm, where a
		// block row of a 1000-variable problem is ~100 ms of work).
		for c0 := j + jb; c0 < n; c0 += cholChunk {
			c1 := min(c0+cholChunk, n)
			if j > 0 {
				bi.Dgemm(blas.Trans, blas.NoTrans, jb, c1-c0, j, -1, a[j:], n, a[c0:], n, 1, a[j*n+c0:], n)
			}
			bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, jb, c1-c0, 1, a[j*n+j:], n, a[j*n+c0:], n)
			if c1 < n {
				if err := tick(); err != nil {
					return false, err
				}
			}
		}
		if err := tick(); err != nil {
			return false, err
		}
	}
	return true, nil
}
