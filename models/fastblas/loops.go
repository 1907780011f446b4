package fastblas

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

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

// dots4 returns the dot products of x with four vectors of its length,
// each load of x serving four multiply–adds.
func dots4(x, a0, a1, a2, a3 []float64) (s0, s1, s2, s3 float64) {
	a0, a1, a2, a3 = a0[:len(x)], a1[:len(x)], a2[:len(x)], a3[:len(x)]
	for t, v := range x {
		s0 += a0[t] * v
		s1 += a1[t] * v
		s2 += a2[t] * v
		s3 += a3[t] * v
	}
	return
}

// mulVecLoop sets y = A·x for the m×n row-major A (stride lda), four rows
// at a time.
func mulVecLoop(m, n int, a []float64, lda int, x, y []float64) {
	x = x[:n]
	i := 0
	for ; i+4 <= m; i += 4 {
		y[i], y[i+1], y[i+2], y[i+3] = dots4(x, a[i*lda:i*lda+n], a[(i+1)*lda:(i+1)*lda+n],
			a[(i+2)*lda:(i+2)*lda+n], a[(i+3)*lda:(i+3)*lda+n])
	}
	for ; i < m; i++ {
		y[i] = dotLoop(a[i*lda:i*lda+n], x)
	}
}

// gramUpperLoop sets the upper triangle of the m×m C (stride ldc) to A·Aᵀ
// for the m×k row-major A (stride lda), four entries of a row at a time.
func gramUpperLoop(m, k int, a []float64, lda int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+k]
		ci := c[i*ldc : i*ldc+m]
		j := i
		for ; j+4 <= m; j += 4 {
			ci[j], ci[j+1], ci[j+2], ci[j+3] = dots4(ai, a[j*lda:j*lda+k], a[(j+1)*lda:(j+1)*lda+k],
				a[(j+2)*lda:(j+2)*lda+k], a[(j+3)*lda:(j+3)*lda+k])
		}
		for ; j < m; j++ {
			ci[j] = dotLoop(ai, a[j*lda:j*lda+k])
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
// B is k×n, A is m×k or, transposed, k×m. Four rows of C are updated
// together from four rows of B at a time (each load of B serves sixteen
// multiply–adds), with α·op(A)'s rows gathered first.
func gemmAccLoop(transA bool, alpha float64, a, b, c blas64.General) {
	m, n, k := c.Rows, c.Cols, b.Rows
	av := make([]float64, 4*k)
	row := func(i int, dst []float64) {
		if transA {
			for r := range dst {
				dst[r] = alpha * a.Data[r*a.Stride+i]
			}
			return
		}
		for r, v := range a.Data[i*a.Stride : i*a.Stride+k] {
			dst[r] = alpha * v
		}
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		x, y, z, u := av[:k], av[k:2*k], av[2*k:3*k], av[3*k:4*k]
		row(i, x)
		row(i+1, y)
		row(i+2, z)
		row(i+3, u)
		c0 := c.Data[i*c.Stride : i*c.Stride+n]
		c1 := c.Data[(i+1)*c.Stride : (i+1)*c.Stride+n]
		c2 := c.Data[(i+2)*c.Stride : (i+2)*c.Stride+n]
		c3 := c.Data[(i+3)*c.Stride : (i+3)*c.Stride+n]
		c1, c2, c3 = c1[:len(c0)], c2[:len(c0)], c3[:len(c0)]
		r := 0
		for ; r+4 <= k; r += 4 {
			b0 := b.Data[r*b.Stride : r*b.Stride+n]
			b1 := b.Data[(r+1)*b.Stride : (r+1)*b.Stride+n]
			b2 := b.Data[(r+2)*b.Stride : (r+2)*b.Stride+n]
			b3 := b.Data[(r+3)*b.Stride : (r+3)*b.Stride+n]
			b0, b1, b2, b3 = b0[:len(c0)], b1[:len(c0)], b2[:len(c0)], b3[:len(c0)]
			x0, x1, x2, x3 := x[r], x[r+1], x[r+2], x[r+3]
			y0, y1, y2, y3 := y[r], y[r+1], y[r+2], y[r+3]
			z0, z1, z2, z3 := z[r], z[r+1], z[r+2], z[r+3]
			u0, u1, u2, u3 := u[r], u[r+1], u[r+2], u[r+3]
			for j := range c0 {
				v0, v1, v2, v3 := b0[j], b1[j], b2[j], b3[j]
				c0[j] += x0*v0 + x1*v1 + x2*v2 + x3*v3
				c1[j] += y0*v0 + y1*v1 + y2*v2 + y3*v3
				c2[j] += z0*v0 + z1*v1 + z2*v2 + z3*v3
				c3[j] += u0*v0 + u1*v1 + u2*v2 + u3*v3
			}
		}
		for ; r < k; r++ {
			br := b.Data[r*b.Stride : r*b.Stride+n]
			br = br[:len(c0)]
			x0, y0, z0, u0 := x[r], y[r], z[r], u[r]
			for j, v := range br {
				c0[j] += x0 * v
				c1[j] += y0 * v
				c2[j] += z0 * v
				c3[j] += u0 * v
			}
		}
	}
	for ; i < m; i++ {
		x := av[:k]
		row(i, x)
		addRows(c.Data[i*c.Stride:i*c.Stride+n], x, b.Data, b.Stride, 0, 0)
	}
}

// addRows adds Σ_r x[r]·M[r0+r][c0 : c0+len(y)] to y, M row-major with
// stride ld: four rows of M per pass over y, each load of y serving four
// multiply–adds. The loops below are built on it.
func addRows(y, x, m []float64, ld, r0, c0 int) {
	r := 0
	for ; r+4 <= len(x); r += 4 {
		o := (r0+r)*ld + c0
		b0 := m[o : o+len(y)]
		b1 := m[o+ld : o+ld+len(y)]
		b2 := m[o+2*ld : o+2*ld+len(y)]
		b3 := m[o+3*ld : o+3*ld+len(y)]
		b0, b1, b2, b3 = b0[:len(y)], b1[:len(y)], b2[:len(y)], b3[:len(y)] // no bounds checks below
		x0, x1, x2, x3 := x[r], x[r+1], x[r+2], x[r+3]
		for j := range y {
			y[j] += x0*b0[j] + x1*b1[j] + x2*b2[j] + x3*b3[j]
		}
	}
	for ; r < len(x); r++ {
		o := (r0+r)*ld + c0
		br := m[o : o+len(y)]
		br = br[:len(y)]
		xr := x[r]
		for j := range y {
			y[j] += xr * br[j]
		}
	}
}

// trsmLeftLoop overwrites B (h×w) with op(T)⁻¹B, T h×h triangular,
// op(T) = Tᵀ when trans: forward substitution when op(T) is lower
// triangular, backward otherwise, each row of B updated from the solved
// rows by addRows.
func trsmLeftLoop(t blas64.Triangular, trans bool, b blas64.General) {
	h, w := t.N, b.Cols
	lower := (t.Uplo == blas.Lower) != trans
	unit := t.Diag == blas.Unit
	op := func(i, r int) float64 {
		if trans {
			return t.Data[r*t.Stride+i]
		}
		return t.Data[i*t.Stride+r]
	}
	neg := make([]float64, h) // −op(T)[i][r] for the solved rows r
	solveRow := func(i, r0, r1 int) {
		bi := b.Data[i*b.Stride : i*b.Stride+w]
		for r := r0; r < r1; r++ {
			neg[r] = -op(i, r)
		}
		addRows(bi, neg[r0:r1], b.Data, b.Stride, r0, 0)
		if !unit {
			d := 1 / op(i, i)
			for j := range bi {
				bi[j] *= d
			}
		}
	}
	if lower {
		for i := 0; i < h; i++ {
			solveRow(i, 0, i)
		}
		return
	}
	for i := h - 1; i >= 0; i-- {
		solveRow(i, i+1, h)
	}
}

// addMulTLoop adds Pᵀ·x to y for the k×n row-major P (stride ldp).
func addMulTLoop(k, n int, p []float64, ldp int, x, y []float64) {
	addRows(y[:n], x[:k], p, ldp, 0, 0)
}

// syrkTUpperLoop adds α·VᵀV to the upper triangle of the n×n S (V is k×n):
// row i of S from column i on, by addRows.
func syrkTUpperLoop(alpha float64, v blas64.General, s blas64.Symmetric) {
	n, k := s.N, v.Rows
	x := make([]float64, k)
	for i := 0; i < n; i++ {
		for r := range x {
			x[r] = alpha * v.Data[r*v.Stride+i]
		}
		addRows(s.Data[i*s.Stride+i:i*s.Stride+n], x, v.Data, v.Stride, 0, i)
	}
}

// potrfLoop overwrites the upper triangle of the n×n row-major a (stride
// lda) with its Cholesky factor U (a = UᵀU), right-looking by rows: after
// row k of U is known, the trailing rows are updated by contiguous axpys.
// False when a is not positive definite (a pivot ≤ 0 or NaN).
func potrfLoop(n int, a []float64, lda int) bool {
	for k := 0; k < n; k++ {
		rk := a[k*lda : k*lda+n]
		d := rk[k]
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rk[k] = d
		inv := 1 / d
		for j := k + 1; j < n; j++ {
			rk[j] *= inv
		}
		for i := k + 1; i < n; i++ {
			if f := rk[i]; f != 0 {
				axpyLoop(-f, rk[i:n], a[i*lda+i:i*lda+n])
			}
		}
	}
	return true
}

// axpyLoop adds f·x to y (len(y) ≥ len(x)), four entries per pass.
func axpyLoop(f float64, x, y []float64) {
	y = y[:len(x)]
	t := 0
	for ; t+4 <= len(x); t += 4 {
		y[t] += f * x[t]
		y[t+1] += f * x[t+1]
		y[t+2] += f * x[t+2]
		y[t+3] += f * x[t+3]
	}
	for ; t < len(x); t++ {
		y[t] += f * x[t]
	}
}

// trsvUpperLoop overwrites x with U⁻¹x, or U⁻ᵀx when trans, for the upper
// triangular non-unit U (row-major): Uᵀ by forward substitution with
// axpys along U's rows, U by backward substitution with dot products.
func trsvUpperLoop(u blas64.Triangular, trans bool, x []float64) {
	n, ld := u.N, u.Stride
	x = x[:n]
	if trans {
		for i := 0; i < n; i++ {
			xi := x[i] / u.Data[i*ld+i]
			x[i] = xi
			if xi != 0 {
				axpyLoop(-xi, u.Data[i*ld+i+1:i*ld+n], x[i+1:])
			}
		}
		return
	}
	for i := n - 1; i >= 0; i-- {
		x[i] = (x[i] - dotLoop(u.Data[i*ld+i+1:i*ld+n], x[i+1:])) / u.Data[i*ld+i]
	}
}
