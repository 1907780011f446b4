// Package kernel holds the kernel functions of LUPI Lab's kernel machines
// (linear, RBF, polynomial, sigmoid and precomputed), their Gram and cross
// matrices, the hyper-parameter specs every kernel model shares, and QMatrix:
// the rows-on-demand matrix Q_ij = s_i s_j K(x_i, x_j) (+ a diagonal shift)
// that the SMO solver consumes without ever forming an n×n matrix.
//
// Conventions follow LIBSVM: RBF is exp(−γ‖x−x'‖²), polynomial is
// (γ⟨x,x'⟩ + coef0)^degree and sigmoid is tanh(γ⟨x,x'⟩ + coef0).
package kernel

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/spec"
)

// Kind names a kernel family.
type Kind string

// Kernel families.
const (
	Linear      Kind = spec.KernelLinear  // ⟨x, x'⟩
	RBF         Kind = spec.KernelRBF     // exp(−γ‖x − x'‖²)
	Poly        Kind = spec.KernelPoly    // (γ⟨x, x'⟩ + coef0)^degree
	Sigmoid     Kind = spec.KernelSigmoid // tanh(γ⟨x, x'⟩ + coef0)
	Precomputed Kind = "precomputed"      // row i of the data holds K(x_i, x_j) for every training sample j
)

// Kernel is a kernel function with its hyper-parameters. The zero Kind means
// linear.
type Kernel struct {
	Kind   Kind    `json:"kind"`
	Gamma  float64 `json:"gamma,omitempty"`  // RBF, poly, sigmoid
	Coef0  float64 `json:"coef0,omitempty"`  // poly, sigmoid
	Degree int     `json:"degree,omitempty"` // poly
}

// Validate checks the hyper-parameters: γ > 0 for RBF / poly / sigmoid,
// degree ≥ 1 for poly, finite numbers.
func (k Kernel) Validate() error {
	if math.IsNaN(k.Gamma) || math.IsInf(k.Gamma, 0) || math.IsNaN(k.Coef0) || math.IsInf(k.Coef0, 0) {
		return errors.New("kernel: gamma and coef0 must be finite numbers")
	}
	switch k.kind() {
	case Linear, Precomputed:
		return nil
	case RBF, Sigmoid:
		if k.Gamma <= 0 {
			return fmt.Errorf("kernel %s: gamma must be > 0 (got %g)", k.kind(), k.Gamma)
		}
	case Poly:
		if k.Gamma <= 0 {
			return fmt.Errorf("kernel poly: gamma must be > 0 (got %g)", k.Gamma)
		}
		if k.Degree < 1 {
			return fmt.Errorf("kernel poly: degree must be ≥ 1 (got %d)", k.Degree)
		}
	default:
		return fmt.Errorf("kernel: unknown kind %q (linear, rbf, poly, sigmoid, precomputed)", k.Kind)
	}
	return nil
}

func (k Kernel) kind() Kind {
	if k.Kind == "" {
		return Linear
	}
	return k.Kind
}

// String describes the kernel, e.g. "rbf(gamma=0.5)".
func (k Kernel) String() string {
	switch k.kind() {
	case RBF:
		return fmt.Sprintf("rbf(gamma=%g)", k.Gamma)
	case Poly:
		return fmt.Sprintf("poly(gamma=%g, coef0=%g, degree=%d)", k.Gamma, k.Coef0, k.Degree)
	case Sigmoid:
		return fmt.Sprintf("sigmoid(gamma=%g, coef0=%g)", k.Gamma, k.Coef0)
	}
	return string(k.kind())
}

// FromDot evaluates K(a, b) from ⟨a,b⟩ and the squared norms ‖a‖², ‖b‖²
// (the norms matter only for RBF). Not for the precomputed kind.
func (k Kernel) FromDot(dot, aa, bb float64) float64 { return k.fromDot(dot, aa, bb) }

// fromDot evaluates the kernel from ⟨a,b⟩ and the squared norms of a and b.
func (k Kernel) fromDot(dot, aa, bb float64) float64 {
	switch k.Kind {
	case RBF:
		d := aa + bb - 2*dot
		if d < 0 {
			d = 0
		}
		return fastExp(-k.Gamma * d)
	case Poly:
		return powi(k.Gamma*dot+k.Coef0, k.Degree)
	case Sigmoid:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return dot
}

func powi(b float64, e int) float64 {
	r := 1.0
	for e > 0 {
		if e&1 == 1 {
			r *= b
		}
		b *= b
		e >>= 1
	}
	return r
}

// Eval returns K(a, b). For the precomputed kind there is no function to
// evaluate and Eval returns NaN; use the data rows themselves.
func (k Kernel) Eval(a, b []float64) float64 {
	if k.Kind == Precomputed {
		return math.NaN()
	}
	if k.Kind == RBF {
		s := 0.0
		for i := range a {
			d := a[i] - b[i]
			s += d * d
		}
		return fastExp(-k.Gamma * s)
	}
	return k.fromDot(floats.Dot(a, b), 0, 0)
}

// Gram returns the n×n kernel matrix of the rows of X. For the precomputed
// kind X must be square and is returned symmetrised.
func (k Kernel) Gram(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	g := mat.NewSymDense(n, nil)
	if k.Kind == Precomputed {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g.SetSym(i, j, (X.At(i, j)+X.At(j, i))/2)
			}
		}
		return g
	}
	sq := sqNorms(X)
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		for j := i; j < n; j++ {
			g.SetSym(i, j, k.fromDot(floats.Dot(xi, X.RawRowView(j)), sq[i], sq[j]))
		}
	}
	return g
}

// Cross returns the rows(A)×rows(B) matrix K(a_i, b_j). For the precomputed
// kind A already holds kernel values against the training samples and is
// returned as a copy (B is ignored).
func (k Kernel) Cross(A, B *mat.Dense) *mat.Dense {
	if k.Kind == Precomputed {
		return mat.DenseCopyOf(A)
	}
	na, _ := A.Dims()
	nb, _ := B.Dims()
	out := mat.NewDense(na, nb, nil)
	sa, sb := sqNorms(A), sqNorms(B)
	for i := 0; i < na; i++ {
		ai := A.RawRowView(i)
		row := out.RawRowView(i)
		for j := 0; j < nb; j++ {
			row[j] = k.fromDot(floats.Dot(ai, B.RawRowView(j)), sa[i], sb[j])
		}
	}
	return out
}

func sqNorms(X *mat.Dense) []float64 {
	n, _ := X.Dims()
	out := make([]float64, n)
	for i := range out {
		r := X.RawRowView(i)
		out[i] = floats.Dot(r, r)
	}
	return out
}

// FromValues reads the kernel named by prefix ("" or "z") from resolved
// parameter values and validates it. Missing gamma / degree / coef0 take
// LIBSVM-like defaults (1, 3, 0).
func FromValues(v model.Values, prefix string) (Kernel, error) {
	k := Kernel{Kind: Kind(v[prefix+"kernel"]), Gamma: 1, Degree: 3}
	if k.Kind == "" {
		k.Kind = Linear
	}
	num := func(name string, dst *float64) error {
		s, ok := v[prefix+name]
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("kernel: parameter %s%s: %q is not a number", prefix, name, s)
		}
		*dst = f
		return nil
	}
	deg := float64(k.Degree)
	for _, e := range []error{num("gamma", &k.Gamma), num("coef0", &k.Coef0), num("degree", &deg)} {
		if e != nil {
			return k, e
		}
	}
	if deg != math.Trunc(deg) {
		return k, fmt.Errorf("kernel: parameter %sdegree: %v is not an integer", prefix, deg)
	}
	k.Degree = int(deg)
	if err := k.Validate(); err != nil {
		return k, err
	}
	return k, nil
}
