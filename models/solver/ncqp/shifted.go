package ncqp

import "gonum.org/v1/gonum/mat"

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
