package joint

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/spec"
)

// Output kernel kinds (the kernel K_ψ on label vectors y ∈ {−1,+1}^T).
const (
	OutLinear   = spec.OutLinear   // K_ψ(y, y') = ⟨y, y'⟩
	OutGaussian = spec.OutGaussian // K_ψ(y, y') = exp(−½ (y−y')ᵀ Σ⁻¹ (y−y'))   (paper 003, eq 12)
	OutPoly     = spec.OutPoly     // K_ψ(y, y') = (⟨y, y'⟩/T + coef0)^degree (paper 003, section 3)
)

// OutputParams are the settings of the output kernel.
type OutputParams struct {
	Kind string // OutLinear, OutGaussian or OutPoly
	// Sigma2 (Gaussian) is σ², the mean of the diagonal of Σ. Σ is the
	// training label vectors' empirical covariance C (divided by n), shrunk
	// towards a multiple of the identity and rescaled:
	//
	//	Σ = σ² · ((1 − λ)·C/c̄ + λ·I),   c̄ = tr(C)/T (the mean tag variance).
	//
	// So σ² is the scale the paper's "scaled empirical covariance" leaves
	// free, and λ = Reg is the regularisation that keeps Σ invertible when
	// tags are collinear (λ = 0 is the bare scaled covariance, λ = 1 the
	// isotropic Gaussian σ²·I, which decomposes over tags). Flipping one tag
	// of average variance costs about exp(−2/σ²) when Σ is nearly diagonal.
	Sigma2 float64
	Reg    float64 // λ ∈ [0, 1]
	// Degree and Coef0 (polynomial): K_ψ = (⟨y,y'⟩/T + Coef0)^Degree; the
	// paper uses degree 3. Coef0 ≥ 0 keeps the kernel positive semidefinite.
	Degree int
	Coef0  float64
}

// Validate checks the settings.
func (o OutputParams) Validate() error {
	switch o.Kind {
	case OutLinear:
	case OutGaussian:
		if !(o.Sigma2 > 0) || math.IsInf(o.Sigma2, 0) {
			return fmt.Errorf("joint: output kernel σ² must be positive and finite, got %v", o.Sigma2)
		}
		if !(o.Reg >= 0 && o.Reg <= 1) {
			return fmt.Errorf("joint: output covariance regularisation λ must lie in [0, 1], got %v", o.Reg)
		}
	case OutPoly:
		if o.Degree < 1 {
			return fmt.Errorf("joint: output polynomial degree must be ≥ 1, got %d", o.Degree)
		}
		if !(o.Coef0 >= 0) || math.IsInf(o.Coef0, 0) {
			return fmt.Errorf("joint: output polynomial coef0 must be ≥ 0 and finite (else the kernel is not positive semidefinite), got %v", o.Coef0)
		}
	default:
		return fmt.Errorf("joint: unknown output kernel %q (linear, gaussian or poly)", o.Kind)
	}
	return nil
}

// OutputKernel is a fitted output kernel: for the Gaussian it holds the
// precision matrix Σ⁻¹ computed from the training label vectors.
type OutputKernel struct {
	Kind   string    `json:"kind"`
	T      int       `json:"tags"`
	Prec   []float64 `json:"precision,omitempty"` // T×T row-major Σ⁻¹ (Gaussian)
	Cov    []float64 `json:"covariance,omitempty"`
	Degree int       `json:"degree,omitempty"`
	Coef0  float64   `json:"coef0,omitempty"`
}

// NewOutputKernel fits the output kernel to training label vectors Y (rows
// in {−1,+1}^T).
func NewOutputKernel(o OutputParams, Y [][]float64) (*OutputKernel, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if len(Y) == 0 || len(Y[0]) == 0 {
		return nil, errors.New("joint: no label vectors")
	}
	t := len(Y[0])
	k := &OutputKernel{Kind: o.Kind, T: t, Degree: o.Degree, Coef0: o.Coef0}
	if o.Kind != OutGaussian {
		return k, nil
	}
	n := float64(len(Y))
	mean := make([]float64, t)
	for _, y := range Y {
		for j, v := range y {
			mean[j] += v / n
		}
	}
	C := mat.NewSymDense(t, nil)
	for a := 0; a < t; a++ {
		for b := a; b < t; b++ {
			var s float64
			for _, y := range Y {
				s += (y[a] - mean[a]) * (y[b] - mean[b])
			}
			C.SetSym(a, b, s/n)
		}
	}
	var tr float64
	for a := 0; a < t; a++ {
		tr += C.At(a, a)
	}
	cbar := tr / float64(t)
	if !(cbar > 0) {
		return nil, errors.New("joint: every training label vector is the same, so the label covariance is zero")
	}
	S := mat.NewSymDense(t, nil)
	for a := 0; a < t; a++ {
		for b := a; b < t; b++ {
			v := o.Sigma2 * (1 - o.Reg) * C.At(a, b) / cbar
			if a == b {
				v += o.Sigma2 * o.Reg
			}
			S.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) {
		return nil, fmt.Errorf("joint: the scaled label covariance Σ is singular (collinear or constant tags); raise the regularisation λ above %v", o.Reg)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("joint: cannot invert Σ: %w", err)
	}
	if c := ch.Cond(); c > 1e12 {
		return nil, fmt.Errorf("joint: Σ is ill-conditioned (condition number %.3g); raise the regularisation λ", c)
	}
	k.Prec = make([]float64, t*t)
	k.Cov = make([]float64, t*t)
	for a := 0; a < t; a++ {
		for b := 0; b < t; b++ {
			k.Prec[a*t+b] = inv.At(a, b)
			k.Cov[a*t+b] = S.At(a, b)
		}
	}
	return k, nil
}

// Validate checks a (possibly loaded) output kernel.
func (k *OutputKernel) Validate() error {
	if k == nil || k.T < 1 {
		return errors.New("joint: output kernel without tags")
	}
	switch k.Kind {
	case OutLinear:
	case OutPoly:
		if k.Degree < 1 || !(k.Coef0 >= 0) {
			return errors.New("joint: malformed polynomial output kernel")
		}
	case OutGaussian:
		if len(k.Prec) != k.T*k.T {
			return fmt.Errorf("joint: Gaussian output kernel needs a %d×%d precision matrix", k.T, k.T)
		}
		for _, v := range k.Prec {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errors.New("joint: the output precision matrix holds a non-finite value")
			}
		}
	default:
		return fmt.Errorf("joint: unknown output kernel %q", k.Kind)
	}
	return nil
}

// Eval returns K_ψ(a, b) for label vectors a, b ∈ {−1,+1}^T.
func (k *OutputKernel) Eval(a, b []float64) float64 {
	switch k.Kind {
	case OutGaussian:
		t := k.T
		var q float64
		for i := 0; i < t; i++ {
			di := a[i] - b[i]
			if di == 0 {
				continue
			}
			row := k.Prec[i*t : (i+1)*t]
			var s float64
			for j := 0; j < t; j++ {
				if dj := a[j] - b[j]; dj != 0 {
					s += row[j] * dj
				}
			}
			q += di * s
		}
		return math.Exp(-0.5 * q)
	case OutPoly:
		var d float64
		for i := range a {
			d += a[i] * b[i]
		}
		v := d/float64(k.T) + k.Coef0
		r := 1.0
		for e := 0; e < k.Degree; e++ {
			r *= v
		}
		return r
	default:
		var d float64
		for i := range a {
			d += a[i] * b[i]
		}
		return d
	}
}

// Table returns the |A|×|B| matrix of K_ψ(a, b), row-major. It is computed
// through one matrix product (A·P·Bᵀ for the Gaussian, A·Bᵀ otherwise), so a
// table costs O(|A||B|T) with BLAS rather than O(|A||B|T²).
func (k *OutputKernel) Table(A, B [][]float64) []float64 {
	na, nb, t := len(A), len(B), k.T
	out := make([]float64, na*nb)
	if na == 0 || nb == 0 {
		return out
	}
	am := mat.NewDense(na, t, nil)
	for i, a := range A {
		am.SetRow(i, a)
	}
	bm := mat.NewDense(nb, t, nil)
	for i, b := range B {
		bm.SetRow(i, b)
	}
	dot := mat.NewDense(na, nb, out)
	switch k.Kind {
	case OutGaussian:
		// (a−b)ᵀP(a−b) = aᵀPa + bᵀPb − 2 aᵀPb
		P := mat.NewDense(t, t, k.Prec)
		var pb mat.Dense
		pb.Mul(bm, P) // rows: (P b)ᵀ, P symmetric
		dot.Mul(am, pb.T())
		qa := make([]float64, na)
		for i, a := range A {
			qa[i] = quad(P, a)
		}
		qb := make([]float64, nb)
		for j, b := range B {
			qb[j] = quad(P, b)
		}
		for i := 0; i < na; i++ {
			row := out[i*nb : (i+1)*nb]
			for j := range row {
				q := qa[i] + qb[j] - 2*row[j]
				if q < 0 {
					q = 0 // rounding: the form is ≥ 0 (P positive definite)
				}
				row[j] = math.Exp(-0.5 * q)
			}
		}
	case OutPoly:
		dot.Mul(am, bm.T())
		for i, v := range out {
			v = v/float64(t) + k.Coef0
			r := 1.0
			for e := 0; e < k.Degree; e++ {
				r *= v
			}
			out[i] = r
		}
	default:
		dot.Mul(am, bm.T())
	}
	return out
}

// quad returns aᵀPa.
func quad(P *mat.Dense, a []float64) float64 {
	v := mat.NewVecDense(len(a), a)
	return mat.Inner(v, P, v)
}
