package ep

import (
	"context"
	"fmt"
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

// probitSite is the GPC site Φ(y f) for labels y (one block).
func probitSite(y []float64) SiteFunc {
	return func(i int, m, v, dm, d2 []float64) float64 {
		lz, a, b := ProbitTilted(y[i], m[0], v[0], 1)
		dm[0], d2[0] = a, b
		return lz
	}
}

// Damping is applied to every site update: one sweep from the same initial
// sites (Options.Init) with δ = 0.5 and with δ = 1. The first site updated
// sees the same cavity in both runs (the posterior of the initial sites), so
// its damped value must be (1−δ)·initial + δ·proposal for τ̃ and ν̃, with
// the proposal both the undamped run's value and the moment-matching update
// −d2/(1 + d2 v), (dm − m d2)/(1 + d2 v) at that cavity. A Run that ignored
// Damping would return the proposal in both runs.
func TestRunDamping(t *testing.T) {
	x := []float64{0.1, 0.8, 1.7, 2.2, 3.5}
	y := []float64{1, 1, -1, 1, -1}
	K := seGram(x, 1.5, 0.9)
	init := &Sites{Tau: [][]float64{{0.8, 0.3, 1.2, 0.5, 0.9}}, Nu: [][]float64{{0.4, -0.1, -0.6, 0.2, -0.5}}}
	const delta = 0.5
	var cav [2][2]float64 // cavity (m, v) of site 0 in the sweep, per run
	var res [2]*Result
	for k, d := range []float64{delta, 1} {
		seen := false
		site := func(i int, m, v, dm, d2 []float64) float64 {
			if i == 0 && !seen {
				cav[k] = [2]float64{m[0], v[0]}
				seen = true
			}
			return probitSite(y)(i, m, v, dm, d2)
		}
		r, err := Run(context.Background(), []Block{{K: K}}, site, Options{MaxSweeps: 1, Damping: d, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		res[k] = r
	}
	if cav[0] != cav[1] {
		t.Fatalf("site 0 saw the cavities %v (δ = %g) and %v (δ = 1)", cav[0], delta, cav[1])
	}
	m, v := cav[1][0], cav[1][1]
	_, dm, d2 := ProbitTilted(y[0], m, v, 1)
	tauP, nuP := -d2/(1+d2*v), (dm-m*d2)/(1+d2*v)
	if math.Abs(res[1].Tau[0][0]-tauP) > 1e-12 || math.Abs(res[1].Nu[0][0]-nuP) > 1e-12 {
		t.Errorf("undamped site 0: (τ̃, ν̃) = (%.15g, %.15g), moment matching (%.15g, %.15g)", res[1].Tau[0][0], res[1].Nu[0][0], tauP, nuP)
	}
	wantTau := (1-delta)*init.Tau[0][0] + delta*res[1].Tau[0][0]
	wantNu := (1-delta)*init.Nu[0][0] + delta*res[1].Nu[0][0]
	if math.Abs(res[0].Tau[0][0]-wantTau) > 1e-12 || math.Abs(res[0].Nu[0][0]-wantNu) > 1e-12 {
		t.Errorf("damped site 0: (τ̃, ν̃) = (%.15g, %.15g), want (1−δ)·initial + δ·proposal = (%.15g, %.15g)", res[0].Tau[0][0], res[0].Nu[0][0], wantTau, wantNu)
	}
	// the case must discriminate: the proposal is far from the initial site
	if math.Abs(tauP-init.Tau[0][0]) < 0.1 || math.Abs(nuP-init.Nu[0][0]) < 0.1 {
		t.Fatalf("proposal (%g, %g) too close to the initial site", tauP, nuP)
	}
}

// checkSane fails the test if r has a non-finite site, posterior moment or
// evidence, or if a block's posterior covariance Σ (as recompute left it) is
// not symmetric positive definite.
func checkSane(t *testing.T, label string, r *Result) {
	t.Helper()
	if math.IsNaN(r.LogZ) || math.IsInf(r.LogZ, 0) {
		t.Fatalf("%s: log Z = %v", label, r.LogZ)
	}
	for b := range r.Tau {
		for i := range r.Tau[b] {
			for _, x := range []float64{r.Tau[b][i], r.Nu[b][i], r.Mu[b][i], r.Var[b][i]} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%s: block %d sample %d: τ̃ %v ν̃ %v μ %v Σᵢᵢ %v", label, b, i, r.Tau[b][i], r.Nu[b][i], r.Mu[b][i], r.Var[b][i])
				}
			}
		}
		s := r.blocks[b].sigma
		n, _ := s.Dims()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if s.At(i, j) != s.At(j, i) {
					t.Fatalf("%s: Σ of block %d is not symmetric", label, b)
				}
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			t.Fatalf("%s: Σ of block %d is not positive definite", label, b)
		}
	}
}

// A site whose cavity is improper (τ₋ = 1/Σᵢᵢ − τ̃ᵢ ≤ 0) is skipped and
// counted, its site left as it was. Case: two samples with prior
// correlation 0.9, warm start τ̃ = (3, −2) in a block allowing negative
// precisions. Λ = K⁻¹ + S̃ is positive definite (a proper posterior), but
// the cavity precision of site 0, (K⁻¹)₀₀ − (K⁻¹)₀₁²/((K⁻¹)₁₁ + τ̃₁), is
// ≈ −1.6. Site 1's probit update makes τ̃₁ positive, after which site 0's
// cavity is proper: one sweep reports the skip (not converged); a full run
// updates site 0 in its second sweep and converges with nothing skipped.
func TestRunSkipsImproperCavity(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0.9, 0.9, 1})
	y := []float64{1, -1}
	init := &Sites{Tau: [][]float64{{3, -2}}, Nu: [][]float64{{0.5, 0.2}}}
	blocks := []Block{{K: K, AllowNegative: true}}
	r, err := Run(context.Background(), blocks, probitSite(y), Options{MaxSweeps: 1, Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 1 || r.Converged || r.Tau[0][0] != 3 || r.Nu[0][0] != 0.5 {
		t.Errorf("one sweep: %d skipped (want 1), converged %v, site 0 (%g, %g) (want (3, 0.5))", r.Skipped, r.Converged, r.Tau[0][0], r.Nu[0][0])
	}
	if !(r.Tau[0][1] > 0) {
		t.Errorf("site 1 not updated: τ̃ = %g", r.Tau[0][1])
	}
	checkSane(t, "one sweep", r)
	r, err = Run(context.Background(), blocks, probitSite(y), Options{Init: init, Tol: 1e-12, SiteTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 0 || !r.Converged || r.Tau[0][0] == 3 {
		t.Errorf("full run: %d skipped, converged %v, τ̃₀ = %g", r.Skipped, r.Converged, r.Tau[0][0])
	}
	checkSane(t, "full run", r)
}

// A site update whose tilted moments are invalid is skipped and counted
// every sweep, the site kept at its initial value, while the other sites
// converge (Converged reports the sweeps; Skipped the frozen sites):
// site 1 returns d2 = −2/v, so den = 1 + d2·v = −1 (a negative tilted
// variance); site 2 a NaN and site 3 an infinite dm. Damping 0.5 and a
// warm start τ̃₁ = 5 make site 1's damped proposal ½·5 + ½·(−d2/den) =
// 5/2 − τ₋ positive (τ₋ < 2 here, checked), so only the den check stops it:
// the negative-precision check would let it through.
func TestRunSkipsInvalidTiltedMoments(t *testing.T) {
	x := []float64{0.1, 0.8, 1.7, 2.2, 3.5}
	y := []float64{1, 1, -1, 1, -1}
	K := seGram(x, 1.5, 0.9)
	probit := probitSite(y)
	maxTauC := 0.0 // largest cavity precision site 1 sees
	site := func(i int, m, v, dm, d2 []float64) float64 {
		lz := probit(i, m, v, dm, d2)
		switch i {
		case 1:
			maxTauC = math.Max(maxTauC, 1/v[0])
			dm[0], d2[0] = 0.3, -2/v[0]
		case 2:
			dm[0] = math.NaN()
		case 3:
			dm[0] = math.Inf(1)
		}
		return lz
	}
	init := &Sites{Tau: [][]float64{{0, 5, 0.7, 0.4, 0}}, Nu: [][]float64{{0, 1, -0.3, 0.2, 0}}}
	r, err := Run(context.Background(), []Block{{K: K}}, site, Options{Init: init, Damping: 0.5, Tol: 1e-12, SiteTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 3 || !r.Converged {
		t.Errorf("%d skipped (want 3), converged %v", r.Skipped, r.Converged)
	}
	if !(maxTauC < 2) {
		t.Fatalf("site 1's cavity precision reached %g: the damped proposal may be negative", maxTauC)
	}
	for _, i := range []int{1, 2, 3} {
		if r.Tau[0][i] != init.Tau[0][i] || r.Nu[0][i] != init.Nu[0][i] {
			t.Errorf("site %d moved to (%g, %g) from (%g, %g)", i, r.Tau[0][i], r.Nu[0][i], init.Tau[0][i], init.Nu[0][i])
		}
	}
	checkSane(t, "invalid moments", r)
}

// An update to a negative site precision: in a block without
// AllowNegative it is skipped (and counted) every sweep; with
// AllowNegative it is kept, and at the fixed point the site is
// moment-matched, τ̃ = −d2/(1 + d2 τ₋⁻¹), with a proper posterior. Site 0
// is log-convex (d2 = 0.5 > 0, as a well-classified GPC+ sample is in g),
// the others probit.
func TestRunNegativePrecision(t *testing.T) {
	x := []float64{0.1, 0.8, 1.7, 2.2, 3.5}
	y := []float64{1, 1, -1, 1, -1}
	K := seGram(x, 1.5, 0.9)
	probit := probitSite(y)
	const c = 0.5
	site := func(i int, m, v, dm, d2 []float64) float64 {
		if i == 0 {
			dm[0], d2[0] = 0.2+c*m[0], c
			return 0.2*m[0] + 0.5*c*m[0]*m[0] // a log-convex "site" with these derivatives
		}
		return probit(i, m, v, dm, d2)
	}
	for _, neg := range []bool{false, true} {
		r, err := Run(context.Background(), []Block{{K: K, AllowNegative: neg}}, site, Options{Tol: 1e-12, SiteTol: 1e-10})
		if err != nil {
			t.Fatalf("AllowNegative %v: %v", neg, err)
		}
		if !r.Converged {
			t.Fatalf("AllowNegative %v: not converged", neg)
		}
		checkSane(t, fmt.Sprintf("AllowNegative %v", neg), r)
		if !neg {
			if r.Skipped != 1 || r.Tau[0][0] != 0 || r.Nu[0][0] != 0 {
				t.Errorf("without AllowNegative: %d skipped (want 1), site 0 (%g, %g) (want (0, 0))", r.Skipped, r.Tau[0][0], r.Nu[0][0])
			}
			continue
		}
		tauC := 1/r.Var[0][0] - r.Tau[0][0]
		want := -c / (1 + c/tauC)
		if r.Skipped != 0 || math.Abs(r.Tau[0][0]-want) > 1e-9 {
			t.Errorf("with AllowNegative: %d skipped, τ̃₀ = %.12g, moment matching %.12g", r.Skipped, r.Tau[0][0], want)
		}
	}
}

// The improper-posterior check of a negative update. With τ₋ > 0 and
// den = 1 + d2/τ₋ > 0 the updated posterior is proper in exact arithmetic
// (τ₋ + τ̃_new = τ₋²/(τ₋ + d2) > 0, and damping mixes in (1−δ)/Σᵢᵢ > 0),
// so the check only catches round-off: here d2·v = 1e20 at a cavity
// (m, v) = (0, 1), where den rounds to d2·v, τ̃_new to −1 and
// 1 + Δτ̃ Σᵢᵢ to exactly 0 (the exact value is 1e-20). Applying it would
// divide by zero in the rank-one update; it is skipped and counted, site 1
// updated, the posterior proper.
func TestRunSkipsRoundOffImproperUpdate(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}) // Σ = K exactly at zero sites
	probit := probitSite([]float64{1, -1})
	site := func(i int, m, v, dm, d2 []float64) float64 {
		if i == 0 {
			dm[0], d2[0] = 0, 1e20/v[0]
			return 0
		}
		return probit(i, m, v, dm, d2)
	}
	r, err := Run(context.Background(), []Block{{K: K, AllowNegative: true}}, site, Options{MaxSweeps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 1 || r.Converged || r.Tau[0][0] != 0 || !(r.Tau[0][1] > 0) {
		t.Errorf("%d skipped (want 1), converged %v, τ̃ = %v", r.Skipped, r.Converged, r.Tau[0])
	}
	checkSane(t, "round-off", r)
}
