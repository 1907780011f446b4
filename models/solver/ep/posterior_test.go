package ep

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// NewPosteriorSigned against the definition: the predictive variance at
// new points is k** − k*ᵀ(K + S̃⁻¹)⁻¹k* and the latent mean k*ᵀα, with
// (K + S̃⁻¹)⁻¹ by a dense inverse. Site precisions with both signs, and
// positive ones, where the Cholesky path of NewPosterior is used.
func TestPosteriorSigned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, m = 40, 300 // m > PredictChunk: two blocks of test points
	pts := make([]float64, n+m)
	for i := range pts {
		pts[i] = 4 * rng.Float64()
	}
	k := func(a, b float64) float64 { return 1.3 * math.Exp(-0.5*(a-b)*(a-b)) }
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, k(pts[i], pts[j]))
		}
		K.SetSym(i, i, K.At(i, i)+1e-6)
	}
	Ks := mat.NewDense(n, m, nil)
	kss := make([]float64, m)
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			Ks.Set(i, j, k(pts[i], pts[n+j]))
		}
		kss[j] = 1.3
	}
	alpha := make([]float64, n)
	for i := range alpha {
		alpha[i] = rng.NormFloat64()
	}
	for _, negative := range []bool{true, false} {
		tau := make([]float64, n)
		for i := range tau {
			tau[i] = 0.1 + 2*rng.Float64()
			if negative && i%5 == 0 {
				tau[i] = -0.05 - 0.1*rng.Float64()
			}
		}
		M := signedReference(t, K, tau)
		p, err := NewPosteriorSigned(K, tau, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if (p.m != nil) != negative {
			t.Fatalf("negative=%v: signed path used %v", negative, p.m != nil)
		}
		mean, vr := p.Predict(Ks, kss)
		for j := 0; j < m; j++ {
			ks := Ks.ColView(j)
			var mv mat.VecDense
			mv.MulVec(M, ks)
			want := kss[j] - mat.Dot(ks, &mv)
			if math.Abs(vr[j]-want) > 1e-9 {
				t.Fatalf("negative=%v point %d: variance %.12g, reference %.12g", negative, j, vr[j], want)
			}
			if wm := mat.Dot(ks, mat.NewVecDense(n, alpha)); math.Abs(mean[j]-wm) > 1e-12*(1+math.Abs(wm)) {
				t.Fatalf("point %d: mean %.12g, reference %.12g", j, mean[j], wm)
			}
		}
	}
	if _, err := NewPosteriorSigned(K, []float64{math.NaN()}, []float64{0}); err == nil {
		t.Error("no error for a NaN site precision / wrong size")
	}
}

// signedReference is M = (K + S̃⁻¹)⁻¹ by a dense inverse (no τ̃ may be 0).
func signedReference(t *testing.T, K *mat.SymDense, tau []float64) *mat.Dense {
	t.Helper()
	n := len(tau)
	A := mat.NewDense(n, n, nil)
	A.Copy(K)
	for i := 0; i < n; i++ {
		A.Set(i, i, A.At(i, i)+1/tau[i])
	}
	var M mat.Dense
	if err := M.Inverse(A); err != nil {
		t.Fatal(err)
	}
	return &M
}

// SignedSiteMatrix against the definition: M = (K + S̃⁻¹)⁻¹ by a dense
// inverse, and det(I + S̃K) by gonum's determinant; with a negative τ̃ the
// determinant changes sign when the posterior is not positive definite.
func TestSignedSiteMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 12
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := float64(i-j) / 3
			K.SetSym(i, j, math.Exp(-0.5*d*d))
		}
	}
	for _, tau0 := range []float64{-0.05, -5} {
		tau := make([]float64, n)
		for i := range tau {
			tau[i] = 0.2 + rng.Float64()
		}
		tau[3] = tau0
		m, det, err := SignedSiteMatrix(K, tau)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(m, signedReference(t, K, tau), 1e-9) {
			t.Errorf("τ̃₃ = %v: M differs from (K + S̃⁻¹)⁻¹", tau0)
		}
		B := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				B.Set(i, j, tau[i]*K.At(i, j))
			}
			B.Set(i, i, B.At(i, i)+1)
		}
		if d := mat.Det(B); math.Abs(det-d) > 1e-9*math.Abs(d) {
			t.Errorf("τ̃₃ = %v: det %v, want %v", tau0, det, d)
		}
		if (det > 0) != (tau0 == -0.05) {
			t.Errorf("τ̃₃ = %v: det %v has the wrong sign for this posterior", tau0, det)
		}
	}
}
