package gp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
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

// wantErr fails the test unless err is non-nil and its message contains
// every one of subs (the message must name the problem).
func wantErr(t *testing.T, label string, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", label)
		return
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: error %q does not say %q", label, err, s)
		}
	}
}

// Bad training input is rejected with a message that names the problem
// (and, for a non-finite value, the block, row, column and value): through
// the registry (model.Spec.Fit, whose data validation comes first) and
// through the models' own checks (fitGPC, fitGPCPlus).
func TestBadInput(t *testing.T) {
	ds, y := lupiData(20, 5)
	noZ := *ds
	noZ.Z = nil
	_, err := fitSpec(t, "gpcplus", &noZ, nil)
	wantErr(t, "no Z", err, "privileged")
	one := *ds
	one.Y = make([]int, 20)
	for _, id := range []string{"gpc", "gpcplus"} {
		_, err := fitSpec(t, id, &one, nil)
		wantErr(t, id+": one class", err, "only one class")
		for _, bad := range []float64{math.NaN(), math.Inf(1)} {
			nan := *ds
			nan.X = mat.DenseCopyOf(ds.X)
			nan.X.Set(3, 1, bad)
			_, err := fitSpec(t, id, &nan, nil)
			wantErr(t, fmt.Sprintf("%s: %v in X", id, bad), err, "X row 4 column 2", fmt.Sprint(bad), "not a finite number")
			nz := *ds
			nz.Z = mat.DenseCopyOf(ds.Z)
			nz.Z.Set(5, 0, bad)
			_, err = fitSpec(t, id, &nz, nil)
			wantErr(t, fmt.Sprintf("%s: %v in Z", id, bad), err, "Z row 6 column 1", fmt.Sprint(bad), "not a finite number")
		}
		tiny := model.Subset(ds, []int{0})
		_, err = fitSpec(t, id, tiny, nil)
		wantErr(t, id+": one sample", err, "only one class")
	}
	// the models' own checks (reached without the registry's validation)
	ctx := context.Background()
	pv := func() model.Values {
		spec, _ := model.Lookup("gpcplus")
		return spec.Defaults()
	}
	_, err = fitGPC(ctx, ds, []float64{1, 2}, gpcValues(t, nil), model.Options{})
	wantErr(t, "label count mismatch", err, "2 labels for 20 rows of X")
	bad := append([]float64(nil), y...)
	bad[2] = 0.5
	_, err = fitGPC(ctx, ds, bad, gpcValues(t, nil), model.Options{})
	wantErr(t, "label 0.5", err, "label 0.5 at row 3 is not ±1")
	_, err = fitGPC(ctx, model.Subset(ds, []int{0}), y[:1], gpcValues(t, nil), model.Options{})
	wantErr(t, "one sample (gpc)", err, "at least 2 samples", "1×2")
	same := make([]float64, 20)
	for i := range same {
		same[i] = -1
	}
	_, err = fitGPCPlus(ctx, ds, same, pv(), model.Options{})
	wantErr(t, "one class (gpcplus)", err, "only one class")
	for _, b := range []float64{math.NaN(), math.Inf(-1)} {
		nz := *ds
		nz.Z = mat.DenseCopyOf(ds.Z)
		nz.Z.Set(7, 1, b)
		_, err = fitGPCPlus(ctx, &nz, y, pv(), model.Options{})
		wantErr(t, fmt.Sprintf("%v in Z (gpcplus)", b), err, "privileged", "Z row 8 column 2", fmt.Sprint(b), "not a finite number")
		nx := *ds
		nx.X = mat.DenseCopyOf(ds.X)
		nx.X.Set(0, 0, b)
		_, err = fitGPC(ctx, &nx, y, gpcValues(t, nil), model.Options{})
		wantErr(t, fmt.Sprintf("%v in X (gpc)", b), err, "X row 1 column 1", fmt.Sprint(b), "not a finite number")
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
	_, err = f.Predict(&wide)
	wantErr(t, "wrong feature count at prediction", err, "5 features", "trained on 2")
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

// expectN returns E[h(g)] for g ~ N(m, v) by composite 20-point
// Gauss–Legendre over c ± 12√v (c: where h·N has its mass), doubling the
// number of panels from 8 until two successive values agree to 1e-13
// (relative to 1 + |value|; fails after 2¹² panels).
func expectN(t *testing.T, h func(float64) float64, m, v, c float64) float64 {
	t.Helper()
	sd := math.Sqrt(v)
	lo, hi := c-12*sd, c+12*sd
	f := func(g float64) float64 {
		return h(g) * math.Exp(-0.5*(g-m)*(g-m)/v) / math.Sqrt(2*math.Pi*v)
	}
	prev := math.NaN()
	for panels := 8; panels <= 1<<12; panels *= 2 {
		w := (hi - lo) / float64(panels)
		var s float64
		for p := 0; p < panels; p++ {
			s += quad.Fixed(f, lo+float64(p)*w, lo+float64(p+1)*w, 20, quad.Legendre{}, 0)
		}
		if math.Abs(s-prev) <= 1e-13*(1+math.Abs(s)) {
			return s
		}
		prev = s
	}
	t.Fatalf("expectN(m=%g, v=%g): no agreement to 1e-13", m, v)
	return 0
}

// fitPlusFixed fits GPC+ on ds with type-II ML off at θ = (log θ_f,
// log ℓ_f, log θ_g, log ℓ_g, m_g), returning the binary model, and the same
// final EP run again (gpcPlusState.run, same options) for independent
// checks.
func fitPlusFixed(t *testing.T, ds *data.Dataset, y, theta []float64) (*GPCPlus, *ep.Result) {
	t.Helper()
	set := map[string]string{"optimize": "false", "amplitude": ftoa(math.Exp(theta[0])), "lengthscale": ftoa(math.Exp(theta[1])),
		"gamplitude": ftoa(math.Exp(theta[2])), "glengthscale": ftoa(math.Exp(theta[3])), "gmean": ftoa(theta[4])}
	fit, err := fitSpec(t, "gpcplus", ds, set)
	if err != nil {
		t.Fatal(err)
	}
	g := fit.(*model.Classifier).Models[0].(*GPCPlus)
	ps := plusState(ds, y, epTolFinal)
	ps.maxSweeps, ps.accel = 100, new(ep.Accel)
	res := mustRun(t, ps, theta)
	if !res.Converged || res.Skipped != 0 {
		t.Fatalf("EP: converged %v, %d skipped", res.Converged, res.Skipped)
	}
	if math.Abs(res.LogZ-g.Rep.Extras["log_marginal_likelihood"]) > 1e-12 {
		t.Fatalf("re-run EP log Z %.15g, fit %.15g", res.LogZ, g.Rep.Extras["log_marginal_likelihood"])
	}
	return g, res
}

// GPC+'s predictive probability (eq 9) recomputed independently:
// p(y=+1|x*) = ∫ Φ(m*/√(v* + e^g)) N(g; m_g, θ_g) dg, with m*, v* the f
// predictive from the EP sites by dense algebra (m* = k*ᵀ(I + S̃K)⁻¹ν̃,
// v* = k** − k*ᵀ(I + S̃K)⁻¹S̃k*, valid for any sign of τ̃), g the prior
// marginal of g at a point without privileged features (θ_g = 1.5, m_g =
// −0.4 here), and the integral by refined Gauss–Legendre (expectN). The
// model's f predictive must match to 1e-9 and its probability (32-node
// Gauss–Hermite) to 1e-9; a model that used g's mean alone (θ_g = 0) or
// GPC's unit noise would differ by ≫ 1e-3.
func TestGPCPlusPredictiveProbability(t *testing.T) {
	ds, y := lupiData(40, 11)
	theta := []float64{0, math.Log(1.2), math.Log(1.5), math.Log(0.8), -0.4}
	g, res := fitPlusFixed(t, ds, y, theta)
	test, _ := lupiData(12, 12)
	p, err := g.Probability(test)
	if err != nil {
		t.Fatal(err)
	}
	mModel, vModel, err := g.f.latent(test.X)
	if err != nil {
		t.Fatal(err)
	}
	// reference f predictive
	n := len(y)
	kf, _, _ := plusState(ds, y, 0).split(theta)
	K := kf.gram(ds.X)
	thF, ell := math.Exp(theta[0]), math.Exp(theta[1])
	m := test.Rows()
	Ks := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			var d2 float64
			for c := 0; c < 2; c++ {
				d := ds.X.At(i, c) - test.X.At(j, c)
				d2 += d * d
			}
			Ks.Set(i, j, thF*math.Exp(-0.5*d2/(ell*ell)))
		}
	}
	A := mat.NewDense(n, n, nil) // I + S̃K
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, res.Tau[0][i]*K.At(i, j))
		}
		A.Set(i, i, A.At(i, i)+1)
	}
	var a, B mat.Dense
	if err := a.Solve(A, mat.NewVecDense(n, res.Nu[0])); err != nil {
		t.Fatal(err)
	}
	SKs := mat.DenseCopyOf(Ks)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			SKs.Set(i, j, res.Tau[0][i]*Ks.At(i, j))
		}
	}
	if err := B.Solve(A, SKs); err != nil {
		t.Fatal(err)
	}
	mg, thG := theta[4], math.Exp(theta[2])
	worstNoVar, worst := 0.0, 0.0
	for j := 0; j < m; j++ {
		var ms, q float64
		for i := 0; i < n; i++ {
			ms += Ks.At(i, j) * a.At(i, 0)
			q += Ks.At(i, j) * B.At(i, j)
		}
		vs := thF - q
		if math.Abs(mModel[j]-ms) > 1e-9 || math.Abs(vModel[j]-vs) > 1e-9 {
			t.Errorf("test %d: model f predictive (%.12g, %.12g), dense EP posterior (%.12g, %.12g)", j, mModel[j], vModel[j], ms, vs)
		}
		want := expectN(t, func(gg float64) float64 { return ep.Phi(ms / math.Sqrt(vs+math.Exp(gg))) }, mg, thG, mg)
		if math.Abs(p[j]-want) > 1e-9 {
			t.Errorf("test %d (m* %.4g, v* %.4g): P(y=+1) = %.12g, integral %.12g", j, ms, vs, p[j], want)
		}
		worst = math.Max(worst, math.Abs(p[j]-want))
		worstNoVar = math.Max(worstNoVar, math.Abs(want-ep.Phi(ms/math.Sqrt(vs+math.Exp(mg)))))
	}
	t.Logf("max |P − integral| %.2g; with g pinned at m_g the integral moves by up to %.3g", worst, worstNoVar)
	// the case must discriminate the test-time noise distribution
	if worstNoVar < 1e-3 {
		t.Errorf("with g pinned at m_g the probabilities move by only %g: the case does not test θ_g", worstNoVar)
	}
}

// The report's per-sample noise diagnostics against the EP posterior
// marginals of g, Q(gᵢ) = N(μᵢ, σᵢ²) (from a re-run of the final EP):
// g_mean = μᵢ, g_sd = σᵢ, and the log-normal moments exp_g_mean =
// E[e^g] = exp(μ + σ²/2), exp_g_sd = E[e^g]·√(exp(σ²) − 1) and slope =
// E[e^{−g/2}] = exp(−μ/2 + σ²/8) for every sample (1e-12 relative), and
// the same three by numerical integration over Q(gᵢ) (expectN) at the
// samples with the smallest, median and largest σᵢ (1e-10 relative).
func TestGPCPlusNoiseDiagnostics(t *testing.T) {
	ds, y := lupiData(40, 13)
	theta := []float64{0, 0, 0, 0, -0.5}
	g, res := fitPlusFixed(t, ds, y, theta)
	d := g.Rep.Diagnostics
	rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
	order := make([]int, len(y))
	for i := range y {
		order[i] = i
		mu, s2 := res.Mu[1][i], res.Var[1][i]
		e := math.Exp(mu + s2/2)
		want := map[string]float64{"g_mean": mu, "g_sd": math.Sqrt(s2), "exp_g_mean": e,
			"exp_g_sd": e * math.Sqrt(math.Exp(s2)-1), "slope": math.Exp(-mu/2 + s2/8)}
		for k, w := range want {
			if rel(d[k][i], w) > 1e-12 {
				t.Errorf("sample %d: %s = %.15g, closed form %.15g", i, k, d[k][i], w)
			}
		}
	}
	sort.Slice(order, func(a, b int) bool { return res.Var[1][order[a]] < res.Var[1][order[b]] })
	t.Logf("σ² from %.3g to %.3g", res.Var[1][order[0]], res.Var[1][order[len(order)-1]])
	for _, i := range []int{order[0], order[len(order)/2], order[len(order)-1]} {
		mu, s2 := res.Mu[1][i], res.Var[1][i]
		e1 := expectN(t, math.Exp, mu, s2, mu+s2)
		e2 := expectN(t, func(x float64) float64 { return math.Exp(2 * x) }, mu, s2, mu+2*s2)
		sl := expectN(t, func(x float64) float64 { return math.Exp(-x / 2) }, mu, s2, mu-s2/2)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"exp_g_mean", d["exp_g_mean"][i], e1}, {"exp_g_sd", d["exp_g_sd"][i], math.Sqrt(e2 - e1*e1)}, {"slope", d["slope"][i], sl}} {
			if rel(c.got, c.want) > 1e-10 {
				t.Errorf("sample %d (σ² = %.3g): %s = %.15g, integral %.15g", i, s2, c.name, c.got, c.want)
			}
		}
	}
}
