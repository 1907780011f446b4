package ncqp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
)

// CholeskyShifted factorises h + δI = UᵀU with CholeskyTick, δ from
// 10⁻¹²·maxd up by factors of 100 to 10⁻⁴·maxd until the matrix is
// positive definite (maxd: the largest diagonal entry of h), and returns a
// solver of (h + δI)x = b; nil when even the largest shift fails. tick is
// called about every million multiply–adds (a browser needs its progress
// callbacks). The SMO solvers' Newton polish uses it on the free-set
// Hessian.
//
// The solver makes two triangular solves with blas64.Trsv and returns nil
// when the solution is not finite. It stands in for gonum's mat.Cholesky,
// whose SetFromU estimates the condition number (O(n²) work per
// factorisation that the polish never reads) and whose SolveVecTo goes
// through LAPACK's potrs, a trsm that is about 3× slower than Trsv with
// one right-hand side at the sizes of a polish (|F| ≈ 50–700).
func CholeskyShifted(h *mat.SymDense, maxd float64, tick func()) func(b []float64) []float64 {
	return CholeskyShiftedIn(h, maxd, tick, nil)
}

// CholeskyShiftedIn is CholeskyShifted with the factor stored in buf when
// it holds nf² entries (allocated otherwise): a polish factorises a face
// per round, and reusing the storage spares the garbage collector, which
// costs most under WebAssembly.
func CholeskyShiftedIn(h *mat.SymDense, maxd float64, tick func(), buf []float64) func(b []float64) []float64 {
	nf := h.SymmetricDim()
	src := h.RawSymmetric()
	if len(buf) < nf*nf {
		buf = make([]float64, nf*nf)
	}
	buf = buf[:nf*nf]
	for delta := 1e-12 * maxd; delta <= 1e-4*maxd; delta *= 100 {
		for a := 0; a < nf; a++ {
			copy(buf[a*nf+a:(a+1)*nf], src.Data[a*src.Stride+a:a*src.Stride+nf])
			buf[a*nf+a] += delta
		}
		if CholeskyTick(buf, nf, tick) {
			return triSolver(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: nf, Stride: nf, Data: buf})
		}
	}
	return nil
}

// triSolver solves UᵀUx = b.
func triSolver(u blas64.Triangular) func(b []float64) []float64 {
	return func(b []float64) []float64 {
		x := append([]float64(nil), b...)
		// Uᵀ is lower triangular: the leading zeros of b stay zero in the
		// forward solve, which starts at the first non-zero (a polish
		// solves with unit vectors eₖ, one per variable it fixes).
		s := 0
		for s < len(x) && x[s] == 0 {
			s++
		}
		if s < len(x) {
			ts := blas64.Triangular{Uplo: u.Uplo, Diag: u.Diag, N: u.N - s, Stride: u.Stride, Data: u.Data[s*u.Stride+s:]}
			fastblas.TrsvUpper(ts, true, x[s:])
		}
		fastblas.TrsvUpper(u, false, x)
		for _, e := range x {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil
			}
		}
		return x
	}
}

// SolveSmall solves the m×m system S x = r (S row-major, overwritten by its
// LU factors; r is not modified) by LAPACK's getrf/getrs, without the
// condition estimate that mat.Dense.Solve adds (which cost more than the
// solve itself for the Schur complements of a polish); nil when S is
// singular or the solution is not finite.
func SolveSmall(S []float64, m int, r []float64) []float64 {
	a := blas64.General{Rows: m, Cols: m, Stride: m, Data: S}
	ipiv := make([]int, m)
	if !lapack64.Getrf(a, ipiv) {
		return nil
	}
	x := append([]float64(nil), r...)
	lapack64.Getrs(blas.NoTrans, a, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: x}, ipiv)
	for _, e := range x {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil
		}
	}
	return x
}

// SchurMultipliers returns the multipliers μ of the equality constraints
// Ed = 0 of a Newton step d = −H⁻¹(g + Eᵀμ) on a face (the SMO polishes):
// S μ = −E H⁻¹g with S = E H⁻¹ Eᵀ. Row p of E is cols[p], or the unit
// vector e_unit[p] when unit[p] ≥ 0 (a variable held at its bound: its
// entries of S and of the right-hand side are read off in O(1));
// W[p] = H⁻¹ Eₚᵀ and u = H⁻¹g. S gets a ridge of 10⁻¹³·trace (the unit
// rows can make E rank-deficient; the callers project d back exactly).
// nil when the system cannot be solved.
func SchurMultipliers(cols, W [][]float64, unit []int, u []float64) []float64 {
	m := len(cols)
	S := make([]float64, m*m)
	r := make([]float64, m)
	tr := 0.0
	for p := 0; p < m; p++ {
		for q := 0; q < m; q++ {
			if k := unit[p]; k >= 0 {
				S[p*m+q] = W[q][k]
			} else {
				S[p*m+q] = floats.Dot(cols[p], W[q])
			}
		}
		if k := unit[p]; k >= 0 {
			r[p] = -u[k]
		} else {
			r[p] = -floats.Dot(cols[p], u)
		}
		tr += math.Abs(S[p*m+p])
	}
	for p := 0; p < m; p++ {
		S[p*m+p] += 1e-13 * tr
	}
	return SolveSmall(S, m, r)
}
