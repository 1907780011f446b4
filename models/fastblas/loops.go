package fastblas

import "gonum.org/v1/gonum/blas/blas64"

// dotLoop is Σ a[t]·b[t] over len(a) entries with four accumulators.
func dotLoop(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	t := 0
	for ; t+4 <= len(a); t += 4 {
		s0 += a[t] * b[t]
		s1 += a[t+1] * b[t+1]
		s2 += a[t+2] * b[t+2]
		s3 += a[t+3] * b[t+3]
	}
	for ; t < len(a); t++ {
		s0 += a[t] * b[t]
	}
	return (s0 + s1) + (s2 + s3)
}

// mulVecLoop sets y = A·x for the m×n row-major A (stride lda).
func mulVecLoop(m, n int, a []float64, lda int, x, y []float64) {
	x = x[:n]
	for i := range y[:m] {
		y[i] = dotLoop(a[i*lda:i*lda+n], x)
	}
}

// gramUpperLoop sets the upper triangle of the m×m C (stride ldc) to A·Aᵀ
// for the m×k row-major A (stride lda).
func gramUpperLoop(m, k int, a []float64, lda int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+k]
		for j := i; j < m; j++ {
			c[i*ldc+j] = dotLoop(ai, a[j*lda:j*lda+k])
		}
	}
}

// addABtLoop adds B·Aᵀ to C (row-major: B is r×m, A is w×m, C is r×w).
func addABtLoop(b, a, c []float64, r, m, w int) {
	for j := 0; j < r; j++ {
		br := b[j*m : (j+1)*m]
		cr := c[j*w : (j+1)*w]
		for i := range cr {
			cr[i] += dotLoop(br, a[i*m:(i+1)*m])
		}
	}
}

// gemmAccLoop adds α·op(A)·B to C (op(A) = Aᵀ when transA): C is m×n,
// B is k×n, A is m×k or, transposed, k×m; each row of C is updated by
// four rows of B at a time.
func gemmAccLoop(transA bool, alpha float64, a, b, c blas64.General) {
	m, n, k := c.Rows, c.Cols, b.Rows
	for i := 0; i < m; i++ {
		ci := c.Data[i*c.Stride : i*c.Stride+n]
		at := func(r int) float64 { return a.Data[i*a.Stride+r] }
		if transA {
			at = func(r int) float64 { return a.Data[r*a.Stride+i] }
		}
		r := 0
		for ; r+4 <= k; r += 4 {
			a0, a1, a2, a3 := alpha*at(r), alpha*at(r+1), alpha*at(r+2), alpha*at(r+3)
			b0 := b.Data[r*b.Stride : r*b.Stride+n]
			b1 := b.Data[(r+1)*b.Stride : (r+1)*b.Stride+n]
			b2 := b.Data[(r+2)*b.Stride : (r+2)*b.Stride+n]
			b3 := b.Data[(r+3)*b.Stride : (r+3)*b.Stride+n]
			for j := range ci {
				ci[j] += a0*b0[j] + a1*b1[j] + a2*b2[j] + a3*b3[j]
			}
		}
		for ; r < k; r++ {
			ar := alpha * at(r)
			br := b.Data[r*b.Stride : r*b.Stride+n]
			for j := range ci {
				ci[j] += ar * br[j]
			}
		}
	}
}
