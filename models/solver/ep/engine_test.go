package ep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func seGram(x []float64, amp, ell float64) *mat.SymDense {
	n := len(x)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := x[i] - x[j]
			v := amp * math.Exp(-0.5*d*d/(ell*ell))
			if i == j {
				v += 1e-9
			}
			K.SetSym(i, j, v)
		}
	}
	return K
}

// The LU path (negative site precisions allowed) and the Cholesky path give
// the same EP fixed point, evidence and gradient weights when every site
// precision is positive (probit sites), and the Cholesky path never stores a
// negative precision.
func TestEngineLUMatchesCholesky(t *testing.T) {
	// n = 150 takes several tiles of the blocked solves (blocked.go).
	for _, n := range []int{30, 150} {
		engineLUMatchesCholesky(t, n)
	}
}

func engineLUMatchesCholesky(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, n)
	y := make([]float64, n)
	m0 := make([]float64, n)
	for i := range x {
		x[i] = 4 * rng.Float64()
		y[i] = 1
		if math.Sin(2*x[i])+0.4*rng.NormFloat64() < 0 {
			y[i] = -1
		}
		m0[i] = 0.3
	}
	site := func(i int, m, v, dm, d2 []float64) float64 {
		lz, a, b := ProbitTilted(y[i], m[0], v[0], 1)
		dm[0], d2[0] = a, b
		return lz
	}
	K := seGram(x, 2, 0.7)
	var res [2]*Result
	for k, neg := range []bool{false, true} {
		r, err := Run(context.Background(), []Block{{K: K, Mean: m0, AllowNegative: neg}}, site, Options{Tol: 1e-12, SiteTol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatal("not converged")
		}
		res[k] = r
	}
	if math.Abs(res[0].LogZ-res[1].LogZ) > 1e-9 {
		t.Errorf("log Z %g vs %g", res[0].LogZ, res[1].LogZ)
	}
	W0, _ := res[0].GradWeights(0)
	W1, _ := res[1].GradWeights(0)
	if !mat.EqualApprox(W0, W1, 1e-7) {
		t.Error("gradient weights differ")
	}
	a0, a1 := res[0].Alpha(0), res[1].Alpha(0)
	for i := range a0 {
		if math.Abs(a0[i]-a1[i]) > 1e-8 || math.Abs(res[0].Mu[0][i]-res[1].Mu[0][i]) > 1e-8 {
			t.Fatalf("site %d: alpha %g vs %g", i, a0[i], a1[i])
		}
		if res[0].Tau[0][i] < 0 {
			t.Fatalf("negative precision stored")
		}
	}
	// sweep limit: non-convergence is reported, not looped on
	r, err := Run(context.Background(), []Block{{K: K}}, site, Options{MaxSweeps: 1, Tol: 1e-15})
	if err != nil || r.Converged || r.Sweeps != 1 {
		t.Errorf("sweep limit: %v %v %d", err, r.Converged, r.Sweeps)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []Block{{K: K}}, site, Options{}); err == nil {
		t.Error("cancelled run returned no error")
	}
}
