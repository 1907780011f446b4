package ncqp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// CholeskyShifted factorises h + δI into ch with CholeskyTick, δ from
// 10⁻¹²·maxd up by factors of 100 to 10⁻⁴·maxd until the matrix is
// positive definite (maxd: the largest diagonal entry of h); false when even
// the largest shift fails. tick is called about every million multiply–adds
// (a browser needs its progress callbacks). The SMO solvers' Newton polish
// uses it on the free-set Hessian.
func CholeskyShifted(ch *mat.Cholesky, h *mat.SymDense, maxd float64, tick func()) bool {
	nf := h.SymmetricDim()
	src := h.RawSymmetric()
	buf := make([]float64, nf*nf)
	for delta := 1e-12 * maxd; delta <= 1e-4*maxd; delta *= 100 {
		for a := 0; a < nf; a++ {
			copy(buf[a*nf+a:(a+1)*nf], src.Data[a*src.Stride+a:a*src.Stride+nf])
			buf[a*nf+a] += delta
		}
		if CholeskyTick(buf, nf, tick) {
			ch.SetFromU(mat.NewTriDense(nf, mat.Upper, buf))
			return true
		}
	}
	return false
}

// CholeskySolver returns a solver of (UᵀU)x = b for the factor in ch (as
// CholeskyShifted leaves it): two triangular solves with blas64.Trsv, nil
// when the solution is not finite. gonum's Cholesky.SolveVecTo goes through
// LAPACK's potrs, whose trsm with a single right-hand side is about 3×
// slower at the sizes of a polish (|F| ≈ 50–700).
func CholeskySolver(ch *mat.Cholesky) func(b []float64) []float64 {
	u := ch.RawU().(*mat.TriDense).RawTriangular()
	return func(b []float64) []float64 {
		x := append([]float64(nil), b...)
		v := blas64.Vector{N: len(x), Inc: 1, Data: x}
		blas64.Trsv(blas.Trans, u, v)
		blas64.Trsv(blas.NoTrans, u, v)
		for _, e := range x {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil
			}
		}
		return x
	}
}
