package gp

import (
	"context"
	"flag"
	"math"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

var accuracyN = flag.Int("gp.accuracy-n", 200, "TestGPCPlusConvergedAgreesWithTight: training rows")

// GPC+ EP as the final fit runs it (epTolFinal = 1e-10, Anderson acceleration)
// against plain sequential EP converged to 1e-13 on the benchmark data
// (lupi2d, θ = 0): log Z, the posterior means of f and the predictive
// probabilities at 500 new points must agree to 1e-8 / 1e-6 / 1e-6.
// By default n = 200 (≈ 0.3 s); other n (400: seconds; more: minutes)
// with the test flag -gp.accuracy-n, e.g.
// go test -run ConvergedAgrees ./models/gp/ -args -gp.accuracy-n=400
func TestGPCPlusConvergedAgreesWithTight(t *testing.T) {
	n := *accuracyN
	if n < 2 {
		t.Fatalf("-gp.accuracy-n=%d is not a sample count", n)
	}
	ds, err := data.GenerateByName("lupi2d", n, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	test, err := data.GenerateByName("lupi2d", 500, 0.3, 2)
	if err != nil {
		t.Fatal(err)
	}
	y, err := ds.BinaryY()
	if err != nil {
		t.Fatal(err)
	}
	th := []float64{0, 0, 0, 0, 0}
	var prob, mu [2][]float64
	var lz [2]float64
	for k, c := range []struct {
		tol   float64
		plain bool
	}{{epTolFinal, false}, {1e-13, true}} {
		st := &gpcPlusState{ctx: context.Background(), X: ds.X, Z: ds.Z, y: y, nf: 2, maxSweeps: 5000, tol: c.tol, damping: 1, gh: ep.NewGaussHermite(32), noExtrap: c.plain}
		res, _, _, err := st.run(th)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("tol %g: not converged in %d sweeps", c.tol, res.Sweeps)
		}
		kf, kg, mg := st.split(th)
		g := &GPCPlus{KernelF: kf, KernelG: kg, GMean: mg, X: model.MatrixOf(ds.X), SqrtTau: res.SqrtTau(0), Alpha: res.Alpha(0), Nodes: 32}
		if prob[k], err = g.Probability(test); err != nil {
			t.Fatal(err)
		}
		lz[k], mu[k] = res.LogZ, res.Mu[0]
		t.Logf("tol %g plain %v: %d sweeps, log Z %.12f", c.tol, c.plain, res.Sweeps, res.LogZ)
	}
	var dm, dp float64
	for i := range mu[0] {
		dm = math.Max(dm, math.Abs(mu[0][i]-mu[1][i]))
	}
	for i := range prob[0] {
		dp = math.Max(dp, math.Abs(prob[0][i]-prob[1][i]))
	}
	t.Logf("n=%d: |Δlog Z| %.2e, max |Δμ_f| %.2e, max |Δp| %.2e", n, math.Abs(lz[0]-lz[1]), dm, dp)
	if math.Abs(lz[0]-lz[1]) > 1e-8 || dm > 1e-6 || dp > 1e-6 {
		t.Errorf("the final-fit EP differs from the tightly converged one")
	}
}
