package gsmo

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/qp"
)

// TestAgainstQP compares the generalised SMO with the dense interior-point
// QP solver on dual (2) written out as a 2n-variable QP:
//
//	x = [α; β],  P = [[yyᵀ∘K + K̃/λ, K̃/λ], [K̃/λ, K̃/λ]],
//	q = [−1 − (C/λ)K̃1; −(C/λ)K̃1],  constant (C²/2λ)1ᵀK̃1,
//	1ᵀα + 1ᵀβ = nC,  yᵀα = 0,  x ≥ 0.
//
// The reference must converge (an unfinished interior-point iterate is no
// reference).
func TestAgainstQP(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 5; trial++ {
		n := 10 + 4*trial
		C := math.Pow(10, float64(trial%4)-1)
		lam := math.Pow(10, float64((trial*2)%5)-2)
		X := make([][]float64, n)
		Z := make([][]float64, n)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			X[i] = []float64{r.NormFloat64(), r.NormFloat64()}
			Z[i] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			y[i] = 1
			if X[i][0]+0.7*r.NormFloat64() < 0 {
				y[i] = -1
			}
		}
		y[0], y[1] = 1, -1
		K := make([]float64, n*n)
		KT := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var dx, dz float64
				for c := range X[i] {
					dx += (X[i][c] - X[j][c]) * (X[i][c] - X[j][c])
				}
				for c := range Z[i] {
					dz += Z[i][c] * Z[j][c]
				}
				K[i*n+j] = math.Exp(-0.5 * dx)
				KT[i*n+j] = dz
			}
		}
		P := mat.NewSymDense(2*n, nil)
		q := make([]float64, 2*n)
		var cst float64
		for i := 0; i < n; i++ {
			var k1 float64
			for j := 0; j < n; j++ {
				kt := KT[i*n+j] / lam
				k1 += KT[i*n+j]
				if j >= i {
					P.SetSym(i, j, y[i]*y[j]*K[i*n+j]+kt)
					P.SetSym(n+i, n+j, kt)
				}
				P.SetSym(i, n+j, kt)
			}
			q[i] = -1 - C/lam*k1
			q[n+i] = -C / lam * k1
			cst += C * C / (2 * lam) * k1
		}
		E := mat.NewDense(2, 2*n, nil)
		for i := 0; i < n; i++ {
			E.Set(0, i, 1)
			E.Set(0, n+i, 1)
			E.Set(1, i, y[i])
		}
		lower := make([]float64, 2*n)
		ref, err := qp.Solve(context.Background(), &qp.Problem{P: P, Q: q, E: E, D: []float64{float64(n) * C, 0}, Lower: lower}, qp.Options{Tol: 1e-11, MaxIter: 300})
		if err != nil {
			t.Fatalf("trial %d: qp: %v", trial, err)
		}
		if !ref.Converged {
			t.Fatalf("trial %d (n=%d C=%g λ=%g): the qp reference did not converge: status %v after %d iterations (relative primal residual %g, dual residual %g, gap %g)",
				trial, n, C, lam, ref.Status, ref.Iter, ref.RelPrimalRes, ref.RelDualRes, ref.RelGap)
		}
		res, err := Solve(context.Background(), &Problem{K: &Dense{N: n, Data: K}, KT: &Dense{N: n, Data: KT}, Y: y, C: C, Lambda: lam}, Options{Eps: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		want := ref.Obj + cst
		if rel := math.Abs(res.Obj-want) / math.Max(1, math.Abs(want)); rel > 1e-6 {
			t.Errorf("trial %d (n=%d C=%g λ=%g): objective %.12g, qp %.12g (rel %g)", trial, n, C, lam, res.Obj, want, rel)
		}
		if k := kktResidual(K, KT, y, res, C, lam); k > 1e-6 {
			t.Errorf("trial %d: KKT residual %g", trial, k)
		}
	}
}
