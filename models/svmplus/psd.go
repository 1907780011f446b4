package svmplus

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
	"lupilab/models/solver/ncqp"
)

// psdByConstruction reports whether k is positive semi-definite on every data
// set, so that its Gram matrices need no numerical check: the linear kernel;
// RBF (Bochner's theorem); the polynomial kernel (γ⟨x,x'⟩ + coef0)^d with
// γ > 0, coef0 ≥ 0 and an integer d ≥ 1, a non-negative combination of the
// powers ⟨x,x'⟩^k, each PSD by the Schur product theorem. The sigmoid kernel
// (PSD only in special cases), a polynomial with coef0 < 0 and a
// precomputed matrix are not.
func psdByConstruction(k kernel.Kernel) bool {
	switch k.Kind {
	case kernel.Linear, "", kernel.RBF:
		return true
	case kernel.Poly:
		return k.Gamma > 0 && k.Coef0 >= 0 && k.Degree >= 1
	}
	return false
}

// psdShiftRel is the relative shift of numericallyPSD: a Gram matrix G is
// accepted when G + δI, δ = psdShiftRel·n·max Gᵢᵢ, has a Cholesky factor,
// i.e. when λ_min(G) > −δ up to rounding. For a PSD G, n·max Gᵢᵢ ≥ trace G ≥
// ‖G‖₂, so this is a relative tolerance of about 10⁻¹⁰ on the spectrum (the
// kind qp.CheckPSD uses), and it clears the two sources of round-off in a
// PSD G with a wide margin while n and the feature count d stay below 4·10⁵:
//   - the factorisation's: the computed factor is exact for G + δI + E with
//     |Eᵢⱼ| ≤ γₙ₊₁(|R|ᵀ|R|)ᵢⱼ ≤ γₙ₊₁(max Gᵢᵢ + δ) (Higham, Accuracy and
//     Stability of Numerical Algorithms, Thm 10.3, and Cauchy–Schwarz), so
//     ‖E‖₂ ≤ n(n+1)ε·max Gᵢᵢ (typically √n·ε·max Gᵢᵢ), below δ for
//     n < 4.5·10⁵;
//   - the kernel evaluation's: each entry carries an error of about
//     d·ε·max Gᵢᵢ, n·d·ε·max Gᵢᵢ in 2-norm at worst, so an exactly PSD but
//     singular G (a linear kernel of rank d < n, a very wide RBF) computes
//     with eigenvalues up to that far below 0, below δ for d < 4.5·10⁵
//     (TestNumericallyPSD: −5e-7 with max Gᵢᵢ = 1.3e7, where δ = 0.64).
//
// The kernels that need the check are far from that line: sigmoid Gram
// matrices K̃ + 1 on 30 or 500 points have λ_min from −4 to −45 with
// max Gᵢᵢ ≤ 2, and a polynomial one with coef0 = −1 far lower
// (TestNumericallyPSD, TestPrivilegedPSD).
const psdShiftRel = 1e-10

// numericallyPSD reports whether the symmetric matrix g (upper triangle read;
// not modified) is positive semi-definite up to psdShiftRel, by one Cholesky
// factorisation of a copy of g + δI (n³/3 flops when it succeeds; a strongly
// indefinite g fails early). A negative or non-finite diagonal entry gives
// false without factorising (it would set or defeat δ); other non-finite
// entries make a pivot NaN or −Inf, which the factorisation refuses.
func numericallyPSD(ctx context.Context, g *mat.SymDense) (bool, error) {
	n := g.SymmetricDim()
	if n == 0 {
		return true, nil
	}
	raw := g.RawSymmetric()
	var dmax float64
	for i := 0; i < n; i++ {
		d := raw.Data[i*raw.Stride+i]
		if !(d >= 0) || math.IsInf(d, 0) {
			return false, nil
		}
		dmax = math.Max(dmax, d)
	}
	delta := psdShiftRel * float64(n) * dmax
	if delta == 0 {
		// A zero diagonal: PSD only if g is 0, which the smallest positive
		// shift tells.
		delta = math.SmallestNonzeroFloat64
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		copy(a[i*n+i:(i+1)*n], row)
		a[i*n+i] += delta
	}
	ok := ncqp.CholeskyTick(a, n, nil)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// gramPlusOne returns the Gram matrix of k on the rows of X plus 1 in every
// entry: the privileged kernel of footnote 1 (K(z, z') + 1).
func gramPlusOne(k kernel.Kernel, X *mat.Dense) *mat.SymDense {
	g := k.Gram(X)
	raw := g.RawSymmetric()
	n := raw.N
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		for j := range row {
			row[j]++
		}
	}
	return g
}

// notPSDError is the error for a kernel whose Gram matrix (plus 1) on the
// training data failed numericallyPSD; role is "privileged" or "decision",
// why says what the model needs it for.
func notPSDError(name, role string, k kernel.Kernel, why string) error {
	return fmt.Errorf("%s: the %s kernel %v is not positive semi-definite on the training data: %s; use linear, RBF, or polynomial with coef0 ≥ 0 (positive semi-definite by construction)",
		name, role, k, why)
}

// checkKernelPSD rejects a kernel k whose Gram matrix plus 1 on the rows of X
// is not positive semi-definite; the check (one Gram matrix and one Cholesky
// factorisation) runs only for kernels that are not PSD by construction.
// The matrix checked is returned for reuse (nil when no check was needed).
//
// K + 1 rather than K, for both kernels of SVM+: the privileged K̃ + 1 is
// what SVM2+ builds Qλ from (footnote 1), and SVM1+'s dual (2) sees K̃ only
// through u = α + β − C1 with 1ᵀu = 0, where uᵀ(K̃ + 11ᵀ)u = uᵀK̃u; likewise
// the decision kernel enters dual (4) only through α∘y with 1ᵀ(α∘y) = yᵀα = 0.
// So K + 1 PSD suffices for convex quadratic forms, and gives the feature
// space of the primal (eqs 1, 3), its constant feature absorbed by the free
// offsets b and ρ; it is weaker than K PSD (⟨z, z'⟩ − 1 passes).
func checkKernelPSD(ctx context.Context, X *mat.Dense, k kernel.Kernel, notPSD func() error) (*mat.SymDense, error) {
	if psdByConstruction(k) {
		return nil, nil
	}
	g := gramPlusOne(k, X)
	ok, err := numericallyPSD(ctx, g)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notPSD()
	}
	return g, nil
}

// privilegedNotPSD is the error for a privileged kernel that is not PSD.
func privilegedNotPSD(name string, kz kernel.Kernel) func() error {
	return func() error {
		return notPSDError(name, "privileged", kz, "SVM+ needs a positive semi-definite privileged kernel (otherwise its dual is not convex and the correcting function, from which eq (5) is derived, does not exist)")
	}
}
