package ep

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"lupilab/models/fastblas"
)

// Tiled level-3 steps of recompute. The posterior recomputation is O(n³)
// and must report progress every few milliseconds (the browser yields in
// the callback). Cutting the right-hand sides into narrow column panels
// (one blas64.Trsm per panel) does that but makes every call stream the
// whole triangular factor for a few columns, which is memory-bound (3× slower
// at n = 800 with 4-column panels). Here the work is cut into tiles of
// tileRows × tileCols with one product per off-diagonal tile (fastblas.GemmAcc:
// gonum's Dgemm natively, plain loops under WebAssembly) and a small
// triangular solve (fastblas.TrsmLeft) or rank-k update (SyrkTUpper) per diagonal tile: every call has the arithmetic
// intensity of a 64-wide block and costs at most tileRows·tileCols·n
// multiply-adds (≈ 6.5·10⁶ at n = 800) between two ticks.
const (
	tileRows = 64
	tileCols = 128
)

// subGeneral returns the r×c block of a row-major matrix starting at (i, j).
func subGeneral(data []float64, stride, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: stride, Data: data[i*stride+j:]}
}

// solveLower overwrites B (n×m) with op(T)⁻¹B, where op(T) is lower
// triangular: T upper with trans = blas.Trans (Uᵀ of a Cholesky factor), or
// T lower with trans = blas.NoTrans (the unit L of an LU factorisation).
// Block forward substitution: for each column panel and row block I,
// B_I −= op(T)_{I,<I} X_{<I} (Gemm), then X_I = op(T)_{II}⁻¹ B_I (Trsm).
// tick is called after every tile; its error stops the solve.
func solveLower(t blas64.Triangular, trans blas.Transpose, b blas64.General, tick func() error) error {
	n, m := t.N, b.Cols
	for c0 := 0; c0 < m; c0 += tileCols {
		w := min(tileCols, m-c0)
		for r0 := 0; r0 < n; r0 += tileRows {
			h := min(tileRows, n-r0)
			bi := subGeneral(b.Data, b.Stride, r0, c0, h, w)
			if r0 > 0 {
				x := subGeneral(b.Data, b.Stride, 0, c0, r0, w)
				if trans == blas.Trans {
					fastblas.GemmAcc(true, -1, subGeneral(t.Data, t.Stride, 0, r0, r0, h), x, bi)
				} else {
					fastblas.GemmAcc(false, -1, subGeneral(t.Data, t.Stride, r0, 0, h, r0), x, bi)
				}
			}
			d := blas64.Triangular{N: h, Stride: t.Stride, Data: t.Data[r0*t.Stride+r0:], Uplo: t.Uplo, Diag: t.Diag}
			fastblas.TrsmLeft(d, trans == blas.Trans, bi)
			if tick != nil {
				if err := tick(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// solveUpper overwrites B (n×m) with T⁻¹B for T upper triangular (block
// backward substitution, tiled as solveLower).
func solveUpper(t blas64.Triangular, b blas64.General, tick func() error) error {
	n, m := t.N, b.Cols
	for c0 := 0; c0 < m; c0 += tileCols {
		w := min(tileCols, m-c0)
		for r1 := n; r1 > 0; r1 -= tileRows {
			r0 := max(0, r1-tileRows)
			h := r1 - r0
			bi := subGeneral(b.Data, b.Stride, r0, c0, h, w)
			if r1 < n {
				fastblas.GemmAcc(false, -1, subGeneral(t.Data, t.Stride, r0, r1, h, n-r1),
					subGeneral(b.Data, b.Stride, r1, c0, n-r1, w), bi)
			}
			d := blas64.Triangular{N: h, Stride: t.Stride, Data: t.Data[r0*t.Stride+r0:], Uplo: t.Uplo, Diag: t.Diag}
			fastblas.TrsmLeft(d, false, bi)
			if tick != nil {
				if err := tick(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// syrkUpper performs S ← S − VᵀV on the upper triangle of S (n×n) for V
// k×n, tile by tile: SyrkTUpper on the diagonal tiles, GemmAcc above them.
func syrkUpper(v blas64.General, s blas64.Symmetric, tick func() error) error {
	n := s.N
	const bs = tileRows
	for j0 := 0; j0 < n; j0 += bs {
		wj := min(bs, n-j0)
		vj := subGeneral(v.Data, v.Stride, 0, j0, v.Rows, wj)
		for i0 := 0; i0 < j0; i0 += bs {
			wi := min(bs, n-i0)
			fastblas.GemmAcc(true, -1, subGeneral(v.Data, v.Stride, 0, i0, v.Rows, wi), vj,
				subGeneral(s.Data, s.Stride, i0, j0, wi, wj))
			if tick != nil {
				if err := tick(); err != nil {
					return err
				}
			}
		}
		fastblas.SyrkTUpper(-1, vj, blas64.Symmetric{N: wj, Stride: s.Stride, Data: s.Data[j0*s.Stride+j0:], Uplo: blas.Upper})
		if tick != nil {
			if err := tick(); err != nil {
				return err
			}
		}
	}
	return nil
}

// luTiled is lapack64.Getrf (A = P L U with partial pivoting, LAPACK's
// ipiv convention: row i was interchanged with row ipiv[i], in order) by a
// right-looking blocked algorithm that calls tick between blocks: Getrf on
// each tileRows-wide column panel, the panel's row interchanges applied to
// the other columns, a Trsm for the block row of U, and the trailing update
// A₂₂ −= L₂₁U₁₂ in Gemm tiles. It reports false for an exactly singular
// matrix, like Getrf.
func luTiled(a blas64.General, ipiv []int, tick func() error) (bool, error) {
	n := a.Rows
	ok := true
	for k0 := 0; k0 < n; k0 += tileRows {
		k1 := min(n, k0+tileRows)
		w := k1 - k0
		panel := subGeneral(a.Data, a.Stride, k0, k0, n-k0, w)
		if !lapack64.Getrf(panel, ipiv[k0:k1]) {
			ok = false
		}
		for i := k0; i < k1; i++ {
			p := ipiv[i] + k0
			ipiv[i] = p
			if p != i {
				if k0 > 0 {
					blas64.Swap(blas64.Vector{N: k0, Inc: 1, Data: a.Data[i*a.Stride:]}, blas64.Vector{N: k0, Inc: 1, Data: a.Data[p*a.Stride:]})
				}
				if k1 < n {
					blas64.Swap(blas64.Vector{N: n - k1, Inc: 1, Data: a.Data[i*a.Stride+k1:]}, blas64.Vector{N: n - k1, Inc: 1, Data: a.Data[p*a.Stride+k1:]})
				}
			}
		}
		if k1 < n {
			l11 := blas64.Triangular{N: w, Stride: a.Stride, Data: a.Data[k0*a.Stride+k0:], Uplo: blas.Lower, Diag: blas.Unit}
			u12 := subGeneral(a.Data, a.Stride, k0, k1, w, n-k1)
			fastblas.TrsmLeft(l11, false, u12)
			l21 := subGeneral(a.Data, a.Stride, k1, k0, n-k1, w)
			for c0 := k1; c0 < n; c0 += tileCols {
				c := min(tileCols, n-c0)
				fastblas.GemmAcc(false, -1, l21, subGeneral(a.Data, a.Stride, k0, c0, w, c), subGeneral(a.Data, a.Stride, k1, c0, n-k1, c))
				if tick != nil {
					if err := tick(); err != nil {
						return ok, err
					}
				}
			}
		}
	}
	return ok, nil
}

// cholTiled overwrites the upper triangle of the symmetric a with its
// Cholesky factor U (a = UᵀU) by a right-looking blocked algorithm calling
// tick between tiles: Potrf on each diagonal block, a Trsm for its block row
// and the trailing update A₂₂ −= U₁₂ᵀU₁₂ by syrkUpper. It reports false when
// a is not positive definite.
func cholTiled(a blas64.Symmetric, tick func() error) (bool, error) {
	n := a.N
	for k0 := 0; k0 < n; k0 += tileRows {
		k1 := min(n, k0+tileRows)
		w := k1 - k0
		u11, ok := lapack64.Potrf(blas64.Symmetric{N: w, Stride: a.Stride, Data: a.Data[k0*a.Stride+k0:], Uplo: blas.Upper})
		if !ok {
			return false, nil
		}
		if k1 < n {
			u12 := subGeneral(a.Data, a.Stride, k0, k1, w, n-k1)
			fastblas.TrsmLeft(u11, true, u12)
			if err := syrkUpper(u12, blas64.Symmetric{N: n - k1, Stride: a.Stride, Data: a.Data[k1*a.Stride+k1:], Uplo: blas.Upper}, tick); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}
