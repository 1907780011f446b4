package decomp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
	"lupilab/models/solver/ncqp"
)

// CholeskyShifted factorises h + δI = UᵀU with ncqp.CholeskyTick, δ from
// 10⁻¹²·maxd up by factors of 100 to 10⁻⁴·maxd until the matrix is
// positive definite (maxd: the largest diagonal entry of h), and returns a
// solver of (h + δI)x = b; nil when even the largest shift fails. tick is
// called about every million multiply–adds (a browser needs its progress
// callbacks). The Newton polish (polish.go) uses it on the free-set
// Hessian.
//
// The solver makes two triangular solves with blas64.Trsv and returns nil
// when the solution is not finite. It stands in for gonum's mat.Cholesky,
// whose SetFromU estimates the condition number (O(n²) work per
// factorisation that the polish never reads) and whose SolveVecTo goes
// through LAPACK's potrs, a trsm that is about 3× slower than Trsv with
// one right-hand side at the sizes of a polish (|F| ≈ 50–700).
func CholeskyShifted(h *mat.SymDense, maxd float64, tick func()) func(b []float64) []float64 {
	return CholeskyShiftedIn(h, maxd, tick, nil, nil)
}

// Scratch is storage that a polish reuses from face to face: the
// solutions of CholeskyShiftedIn's solver (an arena, emptied by Reset) and
// the Schur systems of SchurMultipliersIn. A polish makes a few dozen small
// solves per face; allocating each cost 40 % of the allocations of a
// binary SVM2+ fit on wdbc, and the garbage collector costs most under
// WebAssembly. The zero value is ready to use.
type Scratch struct {
	arena []float64
	used  int
	s, r  []float64
	ipiv  []int
}

// Reset empties the arena: the slices Vec returned before may be reused.
func (sc *Scratch) Reset() { sc.used = 0 }

// Vec returns a slice of n entries from the arena, valid until Reset (its
// contents are not zeroed).
func (sc *Scratch) Vec(n int) []float64 {
	if sc.used+n > len(sc.arena) {
		// A new arena; the slices handed out keep the old one alive.
		sc.arena = make([]float64, max(2*len(sc.arena), 16*n))
		sc.used = 0
	}
	v := sc.arena[sc.used : sc.used+n : sc.used+n]
	sc.used += n
	return v
}

// CholeskyShiftedIn is CholeskyShifted with the factor stored in buf when
// it holds nf² entries (allocated otherwise), and the solutions taken from
// sc when it is not nil (valid until sc.Reset): a polish factorises a face
// per round, and reusing the storage spares the garbage collector, which
// costs most under WebAssembly.
func CholeskyShiftedIn(h *mat.SymDense, maxd float64, tick func(), buf []float64, sc *Scratch) func(b []float64) []float64 {
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
		if ncqp.CholeskyTick(buf, nf, tick) {
			return triSolver(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: nf, Stride: nf, Data: buf}, sc)
		}
	}
	return nil
}

// triSolver solves UᵀUx = b, x from sc when it is not nil.
func triSolver(u blas64.Triangular, sc *Scratch) func(b []float64) []float64 {
	return func(b []float64) []float64 {
		var x []float64
		if sc != nil {
			x = sc.Vec(len(b))
			copy(x, b)
		} else {
			x = append([]float64(nil), b...)
		}
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
	return solveSmallIn(S, m, r, make([]int, m), make([]float64, m))
}

// solveSmallIn is SolveSmall with the pivots and the solution in ipiv and
// x (m entries each).
func solveSmallIn(S []float64, m int, r []float64, ipiv []int, x []float64) []float64 {
	a := blas64.General{Rows: m, Cols: m, Stride: m, Data: S}
	if !lapack64.Getrf(a, ipiv) {
		return nil
	}
	copy(x, r)
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
	return SchurMultipliersIn(cols, W, unit, u, nil)
}

// SchurMultipliersIn is SchurMultipliers with the system's storage, and
// the result, in sc when it is not nil (the result is then valid until
// the next call with sc).
func SchurMultipliersIn(cols, W [][]float64, unit []int, u []float64, sc *Scratch) []float64 {
	m := len(cols)
	var S, r []float64
	var ipiv []int
	if sc != nil {
		sc.s, sc.r = slices.Grow(sc.s[:0], m*m)[:m*m], slices.Grow(sc.r[:0], 2*m)[:2*m]
		sc.ipiv = slices.Grow(sc.ipiv[:0], m)[:m]
		S, r, ipiv = sc.s, sc.r[:m], sc.ipiv
	} else {
		S, r, ipiv = make([]float64, m*m), make([]float64, m), make([]int, m)
	}
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
	var x []float64
	if sc != nil {
		x = sc.r[m : 2*m]
	} else {
		x = make([]float64, m)
	}
	return solveSmallIn(S, m, r, ipiv, x)
}
