package ncqp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	blasgonum "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// luBlock is the panel width of luTick.
const luBlock = 48

// tickWork is about how many multiply–adds the blocked factorisations do
// between two ticks (a few ms in the browser).
const tickWork = 1 << 20

// luTick is a dense LU factorisation with partial pivoting, PA = LU, of the
// row-major n×n matrix a (overwritten by L and U), computed by the usual
// right-looking blocked algorithm (Dgetrf on a panel, row swaps, Dtrsm,
// Dgemm update) with tick called between panels so that a browser caller can
// yield during a large factorisation. It returns false when the matrix is
// exactly singular or its estimated 1-norm condition number exceeds 1e16
// (the same rejections as mat.LU's Det() == 0 and mat.Condition).
func luTick(a []float64, n int, ipiv []int, tick func()) bool {
	return luTickEvery(a, n, ipiv, tick, tickWork)
}

// luTickEvery is luTick with a tick about every work multiply–adds.
func luTickEvery(a []float64, n int, ipiv []int, tick func(), work int) bool {
	impl := lapackgonum.Implementation{}
	bl := blasgonum.Implementation{}
	anorm := impl.Dlange(lapack.MaxColumnSum, n, n, a, n, make([]float64, n))
	ok := true
	for k0 := 0; k0 < n; k0 += luBlock {
		k1 := min(n, k0+luBlock)
		w := k1 - k0
		piv := ipiv[k0:k1]
		if !impl.Dgetrf(n-k0, w, a[k0*n+k0:], n, piv) {
			ok = false
		}
		if k0 > 0 {
			impl.Dlaswp(k0, a[k0*n:], n, 0, w-1, piv, 1)
		}
		if k1 < n {
			impl.Dlaswp(n-k1, a[k0*n+k1:], n, 0, w-1, piv, 1)
			bl.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.Unit, w, n-k1, 1, a[k0*n+k0:], n, a[k0*n+k1:], n)
			// Trailing update A22 −= L21·U12 in column chunks of about
			// work multiply–adds each, with a tick after each chunk.
			step := max(8, work/max(1, (n-k1)*w))
			for j0 := k1; j0 < n; j0 += step {
				j1 := min(n, j0+step)
				bl.Dgemm(blas.NoTrans, blas.NoTrans, n-k1, j1-j0, w, -1, a[k1*n+k0:], n, a[k0*n+j0:], n, 1, a[k1*n+j0:], n)
				if tick != nil && j1 < n {
					tick()
				}
			}
		}
		for i := range piv {
			piv[i] += k0
		}
		if tick != nil && n > luBlock {
			tick()
		}
	}
	if !ok {
		return false
	}
	rcond := impl.Dgecon(lapack.MaxColumnSum, n, a, n, anorm, make([]float64, 4*n), make([]int, n))
	return rcond > 0 && 1/rcond <= 1e16 && !math.IsNaN(rcond)
}

// luSolve solves (PA)x = b in place with luTick's factors.
func luSolve(a []float64, n int, ipiv []int, b []float64) {
	impl := lapackgonum.Implementation{}
	impl.Dgetrs(blas.NoTrans, n, 1, a, n, ipiv, b, 1)
}
