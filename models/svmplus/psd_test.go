package svmplus

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/smo"
)

// minEigen is the smallest eigenvalue of a symmetric matrix (gonum's
// symmetric eigensolver, independent of the Cholesky-based check).
func minEigen(t *testing.T, a *mat.SymDense) float64 {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(a, false) {
		t.Fatal("eigendecomposition failed")
	}
	return e.Values(nil)[0]
}

// TestPSDByConstruction: linear, RBF and polynomial kernels with coef0 ≥ 0
// skip the numerical check; sigmoid, polynomial with coef0 < 0 and
// precomputed kernels do not.
func TestPSDByConstruction(t *testing.T) {
	for _, c := range []struct {
		k    kernel.Kernel
		want bool
	}{
		{kernel.Kernel{}, true},
		{kernel.Kernel{Kind: kernel.Linear}, true},
		{kernel.Kernel{Kind: kernel.RBF, Gamma: 3}, true},
		{kernel.Kernel{Kind: kernel.Poly, Gamma: 0.5, Coef0: 0, Degree: 3}, true},
		{kernel.Kernel{Kind: kernel.Poly, Gamma: 0.5, Coef0: 2, Degree: 1}, true},
		{kernel.Kernel{Kind: kernel.Poly, Gamma: 0.5, Coef0: -0.1, Degree: 2}, false},
		{kernel.Kernel{Kind: kernel.Sigmoid, Gamma: 0.5, Coef0: 1}, false},
		{kernel.Kernel{Kind: kernel.Sigmoid, Gamma: 0.5}, false},
		{kernel.Kernel{Kind: kernel.Precomputed}, false},
	} {
		if got := psdByConstruction(c.k); got != c.want {
			t.Errorf("%v: PSD by construction %v, want %v", c.k, got, c.want)
		}
	}
}

// TestNumericallyPSD: the Cholesky check with its shift δ accepts PSD Gram
// matrices whose computed spectra reach below zero by round-off (singular
// ones: linear kernels of rank 4 on 500 points, plus 1, on data of norm 1
// and 1000, and an RBF kernel so wide that K̃ ≈ 11ᵀ; the test asserts that
// round-off did make each of them fail an unshifted Cholesky
// factorisation), and rejects indefinite ones: sigmoid and polynomial
// (coef0 < 0) Gram matrices, a 3×3 matrix with eigenvalue −1, and matrices
// with a tiny negative diagonal entry (which δ would hide), NaN or +Inf
// entries, or a zero diagonal and non-zero entries; the zero matrix is PSD.
func TestNumericallyPSD(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(9, 9))
	Z := mat.NewDense(500, 3, nil)
	for i := 0; i < 500; i++ {
		for j := 0; j < 3; j++ {
			Z.Set(i, j, r.NormFloat64())
		}
	}
	var big mat.Dense
	big.Scale(1000, Z)
	for name, g := range map[string]*mat.SymDense{
		"linear + 1":            gramPlusOne(kernel.Kernel{Kind: kernel.Linear}, Z),
		"linear + 1, scale 1e3": gramPlusOne(kernel.Kernel{Kind: kernel.Linear}, &big),
		"wide RBF":              kernel.Kernel{Kind: kernel.RBF, Gamma: 1e-9}.Gram(Z),
	} {
		var ch mat.Cholesky
		if ch.Factorize(g) {
			t.Errorf("%s: unshifted Cholesky succeeded: not a test of the shift", name)
		}
		if ok, err := numericallyPSD(ctx, g); err != nil || !ok {
			t.Errorf("%s (λ_min %.3g, max diagonal %.3g): PSD %v, err %v; want accepted", name, minEigen(t, g), maxAbs(g), ok, err)
		}
	}
	for _, k := range []kernel.Kernel{{Kind: kernel.Sigmoid, Gamma: 0.2}, {Kind: kernel.Sigmoid, Gamma: 1, Coef0: 1}, {Kind: kernel.Poly, Gamma: 1, Coef0: -1, Degree: 2}} {
		g := gramPlusOne(k, Z)
		if ok, err := numericallyPSD(ctx, g); err != nil || ok {
			t.Errorf("%v (λ_min %.3g): PSD %v, err %v; want rejected", k, minEigen(t, g), ok, err)
		}
	}
	for name, g := range map[string]*mat.SymDense{
		"eigenvalue −1":     mat.NewSymDense(3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}),
		"negative diagonal": mat.NewSymDense(2, []float64{1, 0, 0, -1e-300}),
		"NaN":               mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1}),
		"+Inf":              mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, math.Inf(1), 0, math.Inf(1), 1}),
		"+Inf diagonal":     mat.NewSymDense(2, []float64{math.Inf(1), 0, 0, 1}),
		"zero diagonal":     mat.NewSymDense(2, []float64{0, 1e-300, 1e-300, 0}),
	} {
		if ok, err := numericallyPSD(ctx, g); err != nil || ok {
			t.Errorf("%s: PSD %v, err %v; want rejected", name, ok, err)
		}
	}
	if ok, err := numericallyPSD(ctx, mat.NewSymDense(2, nil)); err != nil || !ok {
		t.Errorf("zero matrix: PSD %v, err %v; want accepted", ok, err)
	}
}

// sigmoidZ is the privileged kernel of TestPrivilegedPSD: tanh(⟨z, z'⟩) on
// toyLUPI(30, 1), whose K̃ + 1 has λ_min ≈ −4.26.
var sigmoidZ = model.Values{"zkernel": "sigmoid", "zgamma": "1", "zcoef0": "0"}

// TestPrivilegedPSD: both SVM+ models refuse a privileged kernel that is not
// positive semi-definite, naming it and suggesting the PSD ones — a sigmoid
// kernel whose K̃ + 1 has λ_min ≈ −4.26, for SVM2+ also with λ/C = 10, where
// λ/C·I + K̃ is positive definite and QLambda alone accepts it (asserted),
// and a polynomial one with coef0 < 0 — while a polynomial kernel with
// coef0 ≥ 0 (PSD by construction, no check) still fits and converges, and
// so does ⟨z, z'⟩ − 1 (polynomial, degree 1, coef0 = −1: checked, and
// accepted because K̃ + 1 of footnote 1, the matrix both duals depend on,
// is PSD although K̃ is not).
func TestPrivilegedPSD(t *testing.T) {
	ds := toyLUPI(30, 1)
	kz := kernel.Kernel{Kind: kernel.Sigmoid, Gamma: 1}
	kt := gramPlusOne(kz, ds.Z)
	lmin := minEigen(t, kt)
	if !(lmin < -1 && lmin > -10) {
		t.Fatalf("λ_min(K̃ + 1) = %g: expected in (−10, −1)", lmin)
	}
	if _, err := QLambda(context.Background(), kt, 1, 10); err != nil {
		t.Fatalf("QLambda with λ/C = 10 > |λ_min|: %v (the case the model-level check must catch)", err)
	}
	for _, id := range []string{"svm2plus", "svm1plus"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		name := map[string]string{"svm2plus": "SVM2+", "svm1plus": "SVM1+"}[id]
		for _, c := range []struct {
			v    model.Values
			kern string
		}{
			{with(with(sigmoidZ, "C", "1"), "lambda", "10"), "sigmoid(gamma=1, coef0=0)"},
			{with(with(sigmoidZ, "C", "1"), "lambda", "0.1"), "sigmoid(gamma=1, coef0=0)"},
			{model.Values{"zkernel": "poly", "zgamma": "1", "zcoef0": "-1", "zdegree": "2"}, "poly(gamma=1, coef0=-1, degree=2)"},
		} {
			v, err := spec.Resolve(c.v)
			if err != nil {
				t.Fatal(err)
			}
			_, err = spec.Fit(context.Background(), ds, v, model.Options{})
			want := name + ": the privileged kernel " + c.kern + " is not positive semi-definite"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "use linear, RBF, or polynomial with coef0 ≥ 0") {
				t.Errorf("%s %v: err = %v; want it to contain %q and the suggestion", id, c.v, err, want)
			}
		}
		for _, zv := range []model.Values{
			{"zkernel": "poly", "zgamma": "0.5", "zcoef0": "1", "zdegree": "3"},
			{"zkernel": "poly", "zgamma": "1", "zcoef0": "-1", "zdegree": "1"},
		} {
			v, err := spec.Resolve(with(with(zv, "C", "1"), "lambda", "1"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := spec.Fit(context.Background(), ds, v, model.Options{})
			if err != nil {
				t.Fatalf("%s with privileged kernel %v: %v", id, zv, err)
			}
			if rep := f.Report(); !rep.Converged || math.IsNaN(rep.Objective) {
				t.Errorf("%s with privileged kernel %v: converged %v, objective %v", id, zv, rep.Converged, rep.Objective)
			}
		}
	}
}

// TestSVM2PlusSigmoidDecision: with a sigmoid decision kernel K (here
// tanh(2⟨x, x'⟩ + 1), K + 1 with λ_min ≈ −5.1) the SVM2+ dual (4), whose α
// has no upper bound, is not convex and is unbounded below. Through the
// registry the fit is refused up front with an error naming the decision
// kernel; through trainSVM2 directly (no up-front check) the SMO diverges
// (α ≈ 1e183 within 1000 iterations, objective NaN) and must end in an
// error, not in a model with NaN inside.
func TestSVM2PlusSigmoidDecision(t *testing.T) {
	ds := toyLUPI(30, 1)
	spec, err := model.Lookup("svm2plus")
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Resolve(model.Values{"kernel": "sigmoid", "gamma": "2", "coef0": "1", "zkernel": "linear", "C": "100", "lambda": "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.Fit(context.Background(), ds, v, model.Options{})
	if want := "SVM2+: the decision kernel sigmoid(gamma=2, coef0=1) is not positive semi-definite"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("registry: err = %v; want it to contain %q", err, want)
	}
	kx := kernel.Kernel{Kind: kernel.Sigmoid, Gamma: 2, Coef0: 1}
	if l := minEigen(t, gramPlusOne(kx, ds.X)); l > -1 {
		t.Fatalf("λ_min(K + 1) = %g: expected a clearly indefinite K", l)
	}
	y := make([]float64, 30)
	for i, c := range ds.Y {
		y[i] = -1
		if c == 0 {
			y[i] = 1
		}
	}
	q, err := privileged(context.Background(), ds.Z, kernel.Kernel{Kind: kernel.Linear}, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := trainSVM2(context.Background(), ds.X, y, kx, q, 100, 1, model.Options{}, svm2Options{smo: smo.Options{MaxIter: 1000}})
	if err == nil {
		t.Fatalf("trainSVM2: no error (objective %v, converged %v, model %v)", res.Obj, res.Converged, m != nil)
	}
	if !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "sigmoid(gamma=2, coef0=1)") {
		t.Errorf("trainSVM2: err = %v; want a divergence error naming the kernel", err)
	}
}

// TestSVM2PlusUnbounded: when smo finds dual (4) unbounded below (here
// K = 0 and Qλ = 0, flat along every feasible direction, α unbounded),
// trainSVM2 returns an error that wraps smo.ErrUnbounded and names the
// decision kernel.
func TestSVM2PlusUnbounded(t *testing.T) {
	X := mat.NewDense(4, 2, nil)
	y := []float64{1, -1, 1, -1}
	_, _, err := trainSVM2(context.Background(), X, y, kernel.Kernel{Kind: kernel.Linear}, newDenseQlam(mat.NewSymDense(4, nil)), 1, 1, model.Options{}, tight)
	if !errors.Is(err, smo.ErrUnbounded) || !strings.Contains(err.Error(), "SVM2+") || !strings.Contains(err.Error(), "decision kernel linear") {
		t.Fatalf("err = %v; want SVM2+'s wrapping of smo.ErrUnbounded naming the decision kernel", err)
	}
}
