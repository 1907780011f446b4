package gp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

// lupiData: labels from a noisy threshold on x; z carries the per-sample
// noise level (easy samples have small |noise|), as in a LUPI task.
func lupiData(n int, seed uint64) (*data.Dataset, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, 2, nil)
	Z := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x0, x1 := rng.NormFloat64(), rng.NormFloat64()
		hard := rng.Float64()
		noise := rng.NormFloat64() * (0.05 + 1.5*hard)
		X.SetRow(i, []float64{x0, x1})
		Z.SetRow(i, []float64{hard, 0.3 * rng.NormFloat64()})
		if x0+0.5*x1+noise > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	ds := binaryDataset(X, y)
	ds.Z = Z
	ds.Kind = data.KindLUPI
	return ds, y
}

func plusState(ds *data.Dataset, y []float64, tol float64) *gpcPlusState {
	return &gpcPlusState{ctx: context.Background(), X: ds.X, Z: ds.Z, y: y, nf: 2, maxSweeps: 1000, tol: tol, damping: 1, gh: ep.NewGaussHermite(32)}
}

// mustRun is s.run(th) for a test: the EP result, or a fatal error.
func mustRun(t *testing.T, s *gpcPlusState, th []float64) *ep.Result {
	t.Helper()
	r, _, _, err := s.run(th)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// GPC+ with g pinned to a constant c (k_g amplitude → 0, prior mean c) is
// GPC with the kernel amplitude scaled by e^{−c}: Φ(y f/√e^c) = Φ(y f')
// with f' = e^{−c/2} f ~ GP(0, e^{−c} k_f). Evidence, posterior (after the
// e^{−c/2} rescaling) and predictive probabilities must agree.
func TestGPCPlusPinnedIsGPC(t *testing.T) {
	ds, y := lupiData(30, 1)
	for _, c := range []float64{-1.3, 0, 0.8} {
		lamp, lell := math.Log(1.7), math.Log(1.1)
		ps := plusState(ds, y, 1e-12)
		thP := []float64{lamp, lell, math.Log(1e-12), 0, c}
		resP := mustRun(t, ps, thP)
		gs := &gpcState{ctx: context.Background(), X: ds.X, y: y, maxSweeps: 1000, tol: 1e-12}
		resG, _, _, err := gs.run([]float64{lamp - c, lell})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(resP.LogZ-resG.LogZ) > 1e-7 {
			t.Errorf("c=%g: log Z GPC+ %.10g vs GPC %.10g", c, resP.LogZ, resG.LogZ)
		}
		s := math.Exp(-c / 2)
		for i := range y {
			if math.Abs(resP.Mu[0][i]*s-resG.Mu[0][i]) > 1e-6 || math.Abs(resP.Var[0][i]*s*s-resG.Var[0][i]) > 1e-6 {
				t.Errorf("c=%g site %d: scaled GPC+ posterior (%g, %g) vs GPC (%g, %g)", c, i, resP.Mu[0][i]*s, resP.Var[0][i]*s*s, resG.Mu[0][i], resG.Var[0][i])
			}
		}
		kf, kg, mg := ps.split(thP)
		gp := &GPCPlus{KernelF: kf, KernelG: kg, GMean: mg, X: model.MatrixOf(ds.X), SqrtTau: resP.SqrtTau(0), Alpha: resP.Alpha(0), Nodes: 32}
		gc := &GPC{Kernel: gs.kernel([]float64{lamp - c, lell}), X: model.MatrixOf(ds.X), SqrtTau: resG.SqrtTau(0), Alpha: resG.Alpha(0)}
		test, _ := lupiData(15, 9)
		pp, err := gp.Probability(test)
		if err != nil {
			t.Fatal(err)
		}
		pc, _ := gc.Probability(test)
		for j := range pp {
			if math.Abs(pp[j]-pc[j]) > 1e-6 {
				t.Errorf("c=%g test %d: P GPC+ %g vs GPC %g", c, j, pp[j], pc[j])
			}
		}
	}
}

// Every component of the GPC+ evidence gradient (f kernel, g kernel, g mean;
// isotropic and ARD) against central finite differences.
func TestGPCPlusGradient(t *testing.T) {
	ds, y := lupiData(25, 2)
	for _, c := range []struct {
		nf    int
		theta []float64
	}{
		{2, []float64{0.2, 0.1, -0.5, 0.3, -0.4}},
		{3, []float64{0.0, 0.2, -0.3, 0.4, 0.1, -0.2, 0.5, 0.3}},
	} {
		ps := plusState(ds, y, 1e-13)
		ps.nf = c.nf
		lz, g, err := ps.evidence(c.theta)
		if err != nil {
			t.Fatal(err)
		}
		ps.warm = nil
		res, _, _, _ := ps.run(c.theta)
		if res.Skipped > 0 {
			t.Fatalf("%d skipped updates: the fixed-point gradient would not apply", res.Skipped)
		}
		for k := range c.theta {
			const h = 1e-5
			tp := append([]float64(nil), c.theta...)
			tm := append([]float64(nil), c.theta...)
			tp[k] += h
			tm[k] -= h
			ps.warm = nil
			fp, _, err1 := ps.evidence(tp)
			ps.warm = nil
			fm, _, err2 := ps.evidence(tm)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[k]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("θ=%v ∂/∂θ%d: analytic %.10g, finite difference %.10g (log Z %g)", c.theta, k, g[k], fd, lz)
			}
		}
	}
}

// Damped, undamped and extrapolated EP reach the same fixed point.
func TestGPCPlusDamping(t *testing.T) {
	ds, y := lupiData(30, 3)
	th := []float64{0.3, 0, 0.5, 0, -0.5}
	a := plusState(ds, y, 1e-12)
	ra := mustRun(t, a, th)
	b := plusState(ds, y, 1e-12)
	b.damping = 0.5
	rb := mustRun(t, b, th)
	if !ra.Converged || !rb.Converged || math.Abs(ra.LogZ-rb.LogZ) > 1e-8 {
		t.Errorf("undamped %g (%d sweeps, %v) vs damped %g (%d sweeps, %v)", ra.LogZ, ra.Sweeps, ra.Converged, rb.LogZ, rb.Sweeps, rb.Converged)
	}
	c := plusState(ds, y, 1e-12)
	c.noExtrap = true
	rc := mustRun(t, c, th)
	if !rc.Converged || math.Abs(ra.LogZ-rc.LogZ) > 1e-8 {
		t.Errorf("extrapolated %g vs plain %g (%d sweeps, %v)", ra.LogZ, rc.LogZ, rc.Sweeps, rc.Converged)
	}
	for i := range y {
		if math.Abs(ra.Mu[1][i]-rc.Mu[1][i]) > 1e-6 || math.Abs(ra.Mu[0][i]-rc.Mu[0][i]) > 1e-6 {
			t.Fatalf("site %d: posterior means differ with and without extrapolation", i)
		}
	}
}

// samePosterior fails the test at the first sample whose posterior mean or
// variance in either block differs between got and the plain-EP reference
// ref by more than tol.
func samePosterior(t *testing.T, label string, got, ref *ep.Result, tol float64) {
	t.Helper()
	for b := range ref.Mu {
		for i := range ref.Mu[b] {
			if math.Abs(got.Mu[b][i]-ref.Mu[b][i]) > tol || math.Abs(got.Var[b][i]-ref.Var[b][i]) > tol {
				t.Fatalf("%s, block %d site %d: (%g, %g) vs plain EP (%g, %g)", label, b, i, got.Mu[b][i], got.Var[b][i], ref.Mu[b][i], ref.Var[b][i])
			}
		}
	}
}

// On a problem large enough for EP's linear regime (n = 150), Anderson
// acceleration reaches the same evidence, posterior means and variances as
// plain sequential EP, in fewer sweeps.
func TestGPCPlusAndersonSameFixedPoint(t *testing.T) {
	ds, y := lupiData(150, 5)
	th := []float64{0.5, 0, 0.5, -0.3, -0.5}
	a := plusState(ds, y, 1e-12)
	ra := mustRun(t, a, th)
	c := plusState(ds, y, 1e-12)
	c.noExtrap = true
	rc := mustRun(t, c, th)
	if !ra.Converged || !rc.Converged || math.Abs(ra.LogZ-rc.LogZ) > 1e-9 {
		t.Errorf("accelerated %.12g (%d sweeps, %v) vs plain %.12g (%d sweeps, %v)", ra.LogZ, ra.Sweeps, ra.Converged, rc.LogZ, rc.Sweeps, rc.Converged)
	}
	samePosterior(t, "accelerated", ra, rc, 1e-7)
	if ra.Sweeps >= rc.Sweeps {
		t.Errorf("acceleration took %d sweeps, plain EP %d", ra.Sweeps, rc.Sweeps)
	}
	t.Logf("sweeps: accelerated %d, plain %d", ra.Sweeps, rc.Sweeps)
}

// Type-II ML carries Anderson acceleration's history from one evidence
// evaluation to the next (ep.Options.Accel). Along a sequence of nearby
// hyper-parameters, as a line search visits them, the carried runs must reach
// the fixed point of fresh plain EP at every point (evidence, posterior means
// and variances), like the warm-started runs that do not carry it, and in
// fewer sweeps than they.
func TestGPCPlusAccelCarrySameFixedPoint(t *testing.T) {
	ds, y := lupiData(150, 5)
	path := [][]float64{
		{0, 0, 0, 0, 0},
		{0, 0.5, 0, -0.2, -0.4},
		{0, 0.55, 0, -0.25, -0.6},
		{0, 0.56, 0, -0.24, -0.62},
	}
	carry := plusState(ds, y, 1e-10)
	carry.accel = new(ep.Accel)
	warm := plusState(ds, y, 1e-10)
	var sc, sw int
	for k, th := range path {
		rc := mustRun(t, carry, th)
		rw := mustRun(t, warm, th)
		ref := plusState(ds, y, 1e-12)
		ref.noExtrap = true
		rr := mustRun(t, ref, th)
		for _, r := range []*ep.Result{rc, rw} {
			if !r.Converged || math.Abs(r.LogZ-rr.LogZ) > 1e-8 {
				t.Fatalf("point %d: log Z %.12g (%d sweeps, converged %v) vs plain EP %.12g", k, r.LogZ, r.Sweeps, r.Converged, rr.LogZ)
			}
			samePosterior(t, fmt.Sprintf("point %d", k), r, rr, 1e-6)
		}
		if k > 0 {
			sc += rc.Sweeps
			sw += rw.Sweeps
		}
		t.Logf("point %d: sweeps carried %d, warm %d, plain from zero %d", k, rc.Sweeps, rw.Sweeps, rr.Sweeps)
	}
	// The carried history must pay: fewer sweeps over the warm-started
	// points (sweep counts are deterministic for this data).
	if sc >= sw {
		t.Errorf("warm-started points: %d sweeps with the history carried, %d without", sc, sw)
	}
	t.Logf("warm-started points: %d sweeps carried, %d without", sc, sw)
}

func fitSpec(t *testing.T, id string, ds *data.Dataset, set map[string]string) (model.Fitted, error) {
	t.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Resolve(model.Values(set))
	if err != nil {
		t.Fatal(err)
	}
	return spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
}

// GPC+ nests GPC (g constant), so its maximised evidence is not below GPC's
// (up to the g-amplitude floor and optimiser tolerance); on data whose
// privileged features explain the label noise it should be clearly above,
// and hard samples should get larger exp(g).
func TestGPCPlusFitAndDiagnostics(t *testing.T) {
	ds, _ := lupiData(80, 4)
	fg, err := fitSpec(t, "gpc", ds, map[string]string{"restarts": "0"})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := fitSpec(t, "gpcplus", ds, map[string]string{"restarts": "0"})
	if err != nil {
		t.Fatal(err)
	}
	lg, lp := fg.Report().Extras["log_marginal_likelihood"], fp.Report().Extras["log_marginal_likelihood"]
	if lp < lg-0.05 {
		t.Errorf("GPC+ evidence %g below GPC's %g", lp, lg)
	}
	r := fp.Report()
	eg := r.Diagnostics["exp_g_mean"]
	if len(eg) != 80 || len(r.Diagnostics["exp_g_sd"]) != 80 {
		t.Fatalf("diagnostics of length %d", len(eg))
	}
	// correlation between the privileged hardness z₀ and posterior exp(g)
	var hardSum, easySum float64
	var nh, ne int
	for i := 0; i < 80; i++ {
		if ds.Z.At(i, 0) > 0.5 {
			hardSum += math.Log(eg[i])
			nh++
		} else {
			easySum += math.Log(eg[i])
			ne++
		}
	}
	t.Logf("GPC log Z %.3f, GPC+ %.3f; mean log exp(g) hard %.3f easy %.3f; extras %v", lg, lp, hardSum/float64(nh), easySum/float64(ne), r.Extras)
	if hardSum/float64(nh) <= easySum/float64(ne) {
		t.Errorf("hard samples do not get more noise than easy ones")
	}
	pred, err := fp.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pred.Prob {
		if math.IsNaN(p[1]) || p[1] < 0 || p[1] > 1 || (p[1] > 0.5) != (pred.Decision[i] > 0) {
			t.Fatalf("row %d: probability %v with decision %g", i, p, pred.Decision[i])
		}
	}
	// save / load round trip
	raw, err := model.Save("gpcplus", fp)
	if err != nil {
		t.Fatal(err)
	}
	_, back, err := model.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pred.Prob {
		if math.Abs(p2.Prob[i][1]-pred.Prob[i][1]) > 1e-12 {
			t.Fatalf("row %d: reloaded %g vs %g", i, p2.Prob[i][1], pred.Prob[i][1])
		}
	}
}

func TestBadInput(t *testing.T) {
	ds, _ := lupiData(20, 5)
	noZ := *ds
	noZ.Z = nil
	if _, err := fitSpec(t, "gpcplus", &noZ, nil); err == nil || !strings.Contains(err.Error(), "privileged") {
		t.Errorf("no Z: %v", err)
	}
	one := *ds
	one.Y = make([]int, 20)
	for _, id := range []string{"gpc", "gpcplus"} {
		if _, err := fitSpec(t, id, &one, nil); err == nil {
			t.Errorf("%s: one class accepted", id)
		}
		nan := *ds
		nan.X = mat.DenseCopyOf(ds.X)
		nan.X.Set(3, 1, math.NaN())
		if _, err := fitSpec(t, id, &nan, nil); err == nil {
			t.Errorf("%s: NaN accepted", id)
		}
		tiny := model.Subset(ds, []int{0})
		if _, err := fitSpec(t, id, tiny, nil); err == nil {
			t.Errorf("%s: one sample accepted", id)
		}
	}
	if _, err := fitGPC(context.Background(), ds, []float64{1, 2}, gpcValues(t, nil), model.Options{}); err == nil {
		t.Error("label count mismatch accepted")
	}
	// constant features are fine (zero distances), and predictions stay finite
	cst := *ds
	cst.X = mat.NewDense(20, 2, nil)
	f, err := fitSpec(t, "gpc", &cst, map[string]string{"restarts": "0"})
	if err != nil {
		t.Fatalf("constant X: %v", err)
	}
	p, err := f.Predict(&cst)
	if err != nil || math.IsNaN(p.Decision[0]) {
		t.Fatalf("constant X prediction: %v %v", err, p)
	}
	// wrong width at prediction
	wide := *ds
	wide.X = mat.NewDense(3, 5, nil)
	if _, err := f.Predict(&wide); err == nil {
		t.Error("wrong feature count accepted at prediction")
	}
	// cancellation
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spec, _ := model.Lookup("gpcplus")
	if _, err := spec.Fit(ctx, ds, spec.Defaults(), model.Options{}); err == nil {
		t.Error("cancelled fit returned no error")
	}
}

// Three classes go through WrapBinary's one-vs-rest.
func TestMultiClass(t *testing.T) {
	ds, _ := lupiData(45, 6)
	for i := range ds.Y {
		ds.Y[i] = i % 3
	}
	ds.Classes = []string{"a", "b", "c"}
	f, err := fitSpec(t, "gpcplus", ds, map[string]string{"restarts": "0", "max_sweeps": "50"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Report().Sub) != 3 {
		t.Fatalf("%d sub-models", len(f.Report().Sub))
	}
	if _, err := f.Predict(ds); err != nil {
		t.Fatal(err)
	}
}

// A sweep limit that is too small is reported (Converged = false and a
// warning), not looped on.
func TestSweepLimitReported(t *testing.T) {
	ds, _ := lupiData(40, 8)
	for _, id := range []string{"gpc", "gpcplus"} {
		f, err := fitSpec(t, id, ds, map[string]string{"optimize": "false", "max_sweeps": "1"})
		if err != nil {
			t.Fatal(err)
		}
		r := f.Report()
		if r.Converged || len(r.Warnings) == 0 || r.Iterations != 1 {
			t.Errorf("%s: converged=%v iterations=%d warnings=%v", id, r.Converged, r.Iterations, r.Warnings)
		}
	}
}

// When EP skips site updates the fixed-point gradient formula (R&W eq 3.74)
// does not hold; the evidence gradient then comes from finite differences.
// Case: the lupi2d data of the benchmarks at n = 400 and the point where
// GPC+'s type-II ML used to stall, with f-site updates to a negative
// precision skipped (skipNegF, as GPC+ did before f allowed them: 2
// skipped updates). Reference: central differences with a
// 10× smaller step, EP converged to 1e-12, every perturbed run
// warm-started from the sites converged at θ (as in the search, whose
// evidence is a function of the warm start through the frozen sites).
func TestGPCPlusGradientSkippedSites(t *testing.T) {
	ds, y, theta := stallPoint(t)
	free := []bool{false, true, false, true, true}
	ps := plusState(ds, y, 1e-6)
	ps.skipNegF = true
	ps.fdFree = free
	ps.analyticOnly = true
	_, ga, err := ps.evidence(theta)
	if err != nil {
		t.Fatal(err)
	}
	center := ps.warm
	ps.analyticOnly = false
	lz, g, err := ps.evidence(theta)
	if err != nil {
		t.Fatal(err)
	}
	if ps.fdGrads != 1 {
		t.Fatalf("%d finite-difference gradients, want 1 (EP should skip sites here)", ps.fdGrads)
	}
	ps.warm = center
	res := mustRun(t, ps, theta)
	if res.Skipped == 0 {
		t.Fatal("no skipped updates: the case does not exercise the fallback")
	}
	ps.tol = 1e-12
	worst := 0.0 // largest error of the fixed-point formula
	for k := range theta {
		if !free[k] {
			continue
		}
		fd := centralDiff(t, ps, center, theta, k, true)
		if math.Abs(fd-g[k]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("∂/∂θ%d: gradient %.10g, finite difference %.10g (log Z %g)", k, g[k], fd, lz)
		}
		worst = math.Max(worst, math.Abs(fd-ga[k]))
		t.Logf("∂/∂θ%d: fixed-point formula %.6g, returned %.8g, reference %.8g", k, ga[k], g[k], fd)
	}
	// The case must reproduce the failure of the fixed-point formula (it was
	// off by 1.1 in ∂/∂log ℓ_f), or it does not test the fallback.
	if worst < 0.1 {
		t.Errorf("the fixed-point formula is within %g of the differences: the case no longer exercises skipped sites", worst)
	}
}

// At the point of TestGPCPlusGradientSkippedSites, with negative f-site
// precisions allowed (the default), EP skips nothing and reaches a fixed
// point with τ̃_f < 0 at some sites; there the fixed-point gradient is
// exact (against central differences of the evidence converged to 1e-12),
// and the fitted model predicts from the signed sites: at the training
// inputs its latent predictive mean and variance are EP's posterior
// marginals of f.
func TestGPCPlusNegativeFSites(t *testing.T) {
	ds, y, theta := stallPoint(t)
	ps := plusState(ds, y, 1e-10)
	ps.analyticOnly = true
	lz, g, err := ps.evidence(theta)
	if err != nil {
		t.Fatal(err)
	}
	center := ps.warm
	neg := 0
	for _, tau := range center.Tau[0] {
		if tau < 0 {
			neg++
		}
	}
	if neg == 0 {
		t.Fatal("no negative f-site precision: the case does not exercise them")
	}
	ps.tol = 1e-12
	for _, k := range []int{1, 3, 4} {
		fd := centralDiff(t, ps, center, theta, k, false)
		if math.Abs(fd-g[k]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("∂/∂θ%d: fixed-point gradient %.10g, finite difference %.10g (log Z %g)", k, g[k], fd, lz)
		}
	}

	spec, _ := model.Lookup("gpcplus")
	v, err := spec.Resolve(model.Values{"optimize": "false", "lengthscale": fmt.Sprint(math.Exp(theta[1])),
		"glengthscale": fmt.Sprint(math.Exp(theta[3])), "gmean": fmt.Sprint(theta[4])})
	if err != nil {
		t.Fatal(err)
	}
	fit, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep := fit.Report()
	if rep.Extras["f_negative_sites"] == 0 || rep.Extras["ep_skipped_updates"] != 0 {
		t.Fatalf("fit: %v negative f sites, %v skipped updates", rep.Extras["f_negative_sites"], rep.Extras["ep_skipped_updates"])
	}
	gp := fit.(*model.Classifier).Models[0].(*GPCPlus)
	// through JSON, as a saved model is
	raw, err := json.Marshal(gp)
	if err != nil {
		t.Fatal(err)
	}
	var back GPCPlus
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.SiteTau == nil {
		t.Fatal("saved model lost the signed site precisions")
	}
	m, vr, err := func() ([]float64, []float64, error) {
		if err := back.prepare(); err != nil {
			return nil, nil, err
		}
		return back.f.latent(ds.X)
	}()
	if err != nil {
		t.Fatal(err)
	}
	fm, fsd := rep.Diagnostics["f_mean"], rep.Diagnostics["f_sd"]
	for i := range m {
		if math.Abs(m[i]-fm[i]) > 1e-8*(1+math.Abs(fm[i])) || math.Abs(vr[i]-fsd[i]*fsd[i]) > 1e-8*(1+fsd[i]*fsd[i]) {
			t.Fatalf("sample %d: predictive (%.12g, %.12g), EP marginal (%.12g, %.12g)", i, m[i], vr[i], fm[i], fsd[i]*fsd[i])
		}
	}
}

// stallPoint is the lupi2d data (n = 400) and the θ where GPC+'s type-II ML
// used to stall: EP skipped f-site updates there before f allowed negative
// site precisions.
func stallPoint(t *testing.T) (*data.Dataset, []float64, []float64) {
	t.Helper()
	ds, err := data.GenerateByName("lupi2d", 400, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	y, err := ds.BinaryY()
	if err != nil {
		t.Fatal(err)
	}
	return ds, y, []float64{0, 1.1431, 0, -0.1219, -1.3082}
}

// centralDiff is the reference ∂log Z/∂θ_k: (log Z(θ + h e_k) − log Z(θ − h
// e_k))/2h with h = 1e-5, each EP warm-started from center and converged at
// ps's tolerance; with skips false, a run that skipped updates fails.
func centralDiff(t *testing.T, ps *gpcPlusState, center *ep.Sites, theta []float64, k int, skips bool) float64 {
	t.Helper()
	const h = 1e-5
	var f [2]float64
	for j, d := range []float64{h, -h} {
		th := append([]float64(nil), theta...)
		th[k] += d
		ps.warm = center
		r := mustRun(t, ps, th)
		if !r.Converged || (!skips && r.Skipped > 0) {
			t.Fatalf("reference EP at θ%d %+g: converged %v, %d skipped", k, d, r.Converged, r.Skipped)
		}
		f[j] = r.LogZ
	}
	return (f[0] - f[1]) / (2 * h)
}
