package gp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

// extremeTheta: GPC+ hyper-parameters where undamped EP does not converge
// on the 50-point lupiData problems (θ_f = 50, ℓ_f = 0.3, θ_g = 16,
// ℓ_g = 0.1, g mean −6; issue 28).
var extremeTheta = []float64{math.Log(50), math.Log(0.3), math.Log(16), math.Log(0.1), -6}

// dampedReference is EP at damping 0.5 without retries, converged to 1e-12:
// the fixed point a retried run must reach.
func dampedReference(t *testing.T, seed uint64, extrapolate bool) *ep.Result {
	t.Helper()
	ds, y := lupiData(50, seed)
	ps := plusState(ds, y, 1e-12)
	ps.damping, ps.noRetry, ps.noExtrap = 0.5, true, !extrapolate
	ref := mustRun(t, ps, extremeTheta)
	if !ref.Converged {
		t.Fatalf("seed %d: the damped reference did not converge", seed)
	}
	return ref
}

// Plain (unaccelerated) undamped EP cycles at the extreme hyper-parameters
// on lupiData(50, 3): after 1000 sweeps it is unconverged and its log Z is
// 2 nats above the fixed point that damping 0.5 reaches. With retries the
// stall is detected within stallSweeps of the last progress, EP goes on
// with damping 0.5 and reaches that fixed point.
func TestEPStallRetriedWithDamping(t *testing.T) {
	ds, y := lupiData(50, 3)
	ref := dampedReference(t, 3, false)

	ps := plusState(ds, y, 1e-10)
	ps.noExtrap, ps.noRetry = true, true
	plain := mustRun(t, ps, extremeTheta)
	if plain.Converged || !plain.Stalled || math.Abs(plain.LogZ-ref.LogZ) < 1 {
		t.Fatalf("without retries: converged %v, stalled %v, log Z %.4f vs %.4f at damping 0.5: the case no longer stalls",
			plain.Converged, plain.Stalled, plain.LogZ, ref.LogZ)
	}

	ps = plusState(ds, y, 1e-12)
	ps.noExtrap = true
	res := mustRun(t, ps, extremeTheta)
	if !res.Converged || res.Damping != 0.5 || len(res.Retried) != 1 || res.Retried[0].Reason != "stalled" {
		t.Fatalf("with retries: converged %v at damping %g after %q", res.Converged, res.Damping, res.Attempts())
	}
	if res.Retried[0].Sweeps > 200 {
		t.Errorf("the stall took %d sweeps to detect", res.Retried[0].Sweeps)
	}
	if math.Abs(res.LogZ-ref.LogZ) > 1e-8 {
		t.Errorf("log Z %.10f, damping-0.5 fixed point %.10f", res.LogZ, ref.LogZ)
	}
	// Plain EP contracts slowly here (damped and unaccelerated): at a site
	// tolerance of 1e-8 per sweep two converged runs stay ~1e-7 relative
	// apart (posterior variances up to 21).
	samePosterior(t, "retried", res, ref, 1e-5)
	t.Logf("without retries: log Z %.4f after %d sweeps (unconverged); with: %.4f (%s, then %d sweeps); damping 0.5 alone: %.4f in %d sweeps",
		plain.LogZ, plain.Sweeps, res.LogZ, res.Attempts(), res.Sweeps, ref.LogZ, ref.Sweeps)
}

// Undamped EP with Anderson acceleration (the default) fails numerically at
// the extreme hyper-parameters on lupiData(50, 2) (a cavity precision turns
// negative); with retries it starts again with damping 0.5 and reaches the
// damped fixed point.
func TestEPNumericalFailureRetried(t *testing.T) {
	ds, y := lupiData(50, 2)
	ref := dampedReference(t, 2, true)
	ps := plusState(ds, y, 1e-10)
	ps.noRetry = true
	if _, _, _, err := ps.run(extremeTheta); !errors.Is(err, ep.ErrNumerical) {
		t.Fatalf("without retries: error %v, want a numerical failure (the case no longer fails)", err)
	}
	ps = plusState(ds, y, 1e-12)
	res := mustRun(t, ps, extremeTheta)
	if !res.Converged || len(res.Retried) == 0 || res.Retried[0].Reason == "stalled" {
		t.Fatalf("with retries: converged %v at damping %g after %q", res.Converged, res.Damping, res.Attempts())
	}
	if math.Abs(res.LogZ-ref.LogZ) > 1e-8 {
		t.Errorf("log Z %.10f, damping-0.5 fixed point %.10f (%s)", res.LogZ, ref.LogZ, res.Attempts())
	}
	samePosterior(t, "retried", res, ref, 1e-6)
}

// The fit at those hyper-parameters (optimize = false) converges through a
// retry and says so in its warnings and extras.
func TestGPCPlusFitReportsRetry(t *testing.T) {
	ds, _ := lupiData(50, 2)
	ref := dampedReference(t, 2, true)
	f, err := fitSpec(t, "gpcplus", ds, map[string]string{"optimize": "false", "amplitude": "50", "lengthscale": "0.3",
		"gamplitude": "16", "glengthscale": "0.1", "gmean": "-6", "max_sweeps": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.Report()
	if !r.Converged || r.Extras["ep_damping"] != 0.5 || r.Extras["ep_retries"] != 1 {
		t.Fatalf("converged %v, damping %v, retries %v", r.Converged, r.Extras["ep_damping"], r.Extras["ep_retries"])
	}
	if math.Abs(r.Extras["log_marginal_likelihood"]-ref.LogZ) > 1e-8 {
		t.Errorf("log Z %.10f, damping-0.5 fixed point %.10f", r.Extras["log_marginal_likelihood"], ref.LogZ)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "failed at damping 1") || !strings.Contains(r.Warnings[0], "converged with damping 0.5") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// Type-II ML is never steered by an unconverged evidence: from the extreme
// start on lupiData(50, 22) with max_sweeps = 20 the search meets EP runs
// that do not converge (also after their damped retries). Every evidence
// the search received must come from a converged EP; the unconverged
// evaluations must have been returned as errors (rejected) and reported.
func TestTypeIIRejectsUnconvergedEvidence(t *testing.T) {
	ds, y := lupiData(50, 22)
	spec, _ := model.Lookup("gpcplus")
	v, err := spec.Resolve(model.Values{"amplitude": "50", "lengthscale": "0.3", "gamplitude": "16", "glengthscale": "0.1",
		"gmean": "-6", "max_sweeps": "20", "restarts": "0"})
	if err != nil {
		t.Fatal(err)
	}
	var used, unconv, rejectedUnconv int
	observe := func(theta []float64, res *ep.Result, err error) {
		if res != nil && !res.Converged {
			unconv++
			if errors.Is(err, errUnconverged) {
				rejectedUnconv++
			}
		}
		if err == nil {
			used++
		}
	}
	f, err := fitGPCPlusWith(context.Background(), ds, y, v, model.Options{Seed: 1}, plusSettings{fdGradients: true, observe: observe})
	if err != nil {
		t.Fatal(err)
	}
	if unconv == 0 {
		t.Fatal("no unconverged EP during the search: the case does not exercise the rule")
	}
	if rejectedUnconv != unconv {
		t.Errorf("%d unconverged evidence evaluations, %d of them rejected", unconv, rejectedUnconv)
	}
	r := f.Report()
	if int(r.Extras["rejected_evaluations"]) < unconv || !strings.Contains(strings.Join(r.Warnings, "\n"), "rejected (EP did not converge") {
		t.Errorf("rejected_evaluations %v (unconverged %d), warnings %q", r.Extras["rejected_evaluations"], unconv, r.Warnings)
	}
	t.Logf("%d evaluations used, %d unconverged rejected; log Z %.4f; warnings %q", used, unconv, r.Extras["log_marginal_likelihood"], r.Warnings)
}

// optimizeHyper on an evidence that fails (returns an error) beyond
// θ₀ = 1.5, with its unconstrained maximum at (2, −0.5) inside the failing
// region: the search must back off from failed points (never asking for a
// non-finite θ, as the line search did when a failure was +Inf), return
// the best evidence among the successful evaluations, and report the
// rejections.
func TestOptimizeHyperRejectsFailedEvaluations(t *testing.T) {
	lo, hi := []float64{-5, -5}, []float64{5, 5}
	bestLZ := math.Inf(-1)
	var failed int
	ev := func(th []float64) (float64, []float64, error) {
		for _, v := range th {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("evidence asked for at %v", th)
			}
		}
		if th[0] > 1.5 {
			failed++
			return 0, nil, errors.New("EP did not converge")
		}
		lz := -0.5*(th[0]-2)*(th[0]-2) - 2*(th[1]+0.5)*(th[1]+0.5)
		bestLZ = math.Max(bestLZ, lz)
		return lz, []float64{-(th[0] - 2), -4 * (th[1] + 0.5)}, nil
	}
	hs := hyperSearch{theta0: []float64{0, 0}, free: []bool{true, true}, lo: lo, hi: hi}
	sr, err := optimizeHyper(context.Background(), hs, ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 || sr.rejected != failed {
		t.Fatalf("%d failed evaluations, %d rejected", failed, sr.rejected)
	}
	if sr.theta[0] > 1.5 || sr.logZ != bestLZ {
		t.Errorf("returned θ %v (log Z %g), best successful log Z %g", sr.theta, sr.logZ, bestLZ)
	}
	// the constrained optimum along θ₀ is the edge of the failing region
	if sr.theta[0] < 1.4 {
		t.Errorf("returned θ %v: the search stopped far from the edge θ₀ = 1.5", sr.theta)
	}
	if !strings.Contains(strings.Join(sr.warnings, "\n"), "rejected (EP did not converge)") {
		t.Errorf("warnings %q", sr.warnings)
	}
	t.Logf("θ %v, log Z %.6f, %d evaluations, %d rejected", sr.theta, sr.logZ, sr.evaluations, sr.rejected)
}

// The type-II ML bounds are the logarithms of the parameter ranges.
func TestLogBounds(t *testing.T) {
	for _, c := range []struct{ got, x float64 }{{logAmpLo, 1e-4}, {logAmpHi, 1e4}, {logLenLo, 1e-3}, {logLenHi, 1e4}} {
		if c.got != math.Log(c.x) {
			t.Errorf("bound %.17g, log %g = %.17g", c.got, c.x, math.Log(c.x))
		}
	}
}
