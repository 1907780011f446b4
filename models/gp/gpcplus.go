package gp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

// GPC+ (paper 002): f ~ GP(0, k_f) on X, g ~ GP(m_g, k_g) on the privileged
// Z (eq 6, plus a constant prior mean m_g for g — our documented extension;
// m_g = 0 is the paper's model), and the likelihood
// P(yₙ | f, g) = Φ(yₙ f(xₙ)/√exp(g(zₙ))) (eq 7). EP uses factorised
// bivariate Gaussian sites (eq 10) so that the posterior is Q(f)Q(g)
// (eq 11); log Zₙ integrates f analytically and g by quadrature (eq 12;
// ep.HeteroTilted: Gauss–Hermite centred on the cavity, or a trapezoid rule
// through the tilted mode where that one would be inaccurate — confidently
// misclassified samples, a wide g cavity).
// Both blocks allow negative site precisions (ep.Block.AllowNegative: the
// likelihood is log-convex in g for well-classified samples and, integrated
// over g, a scale mixture of probits in f). EP damping is available as the
// "damping" parameter (default 1: undamped); an update that would make the
// posterior improper, or whose cavity is improper, is skipped (and reported).
//
// Hyper-parameters θ = (log θ_f, log ℓ_f…, log θ_g, log ℓ_g…, m_g). Type-II
// ML optimises the length-scales and m_g. log θ_f is held at its parameter
// value: the model is invariant under θ_f → a²θ_f, m_g → m_g + 2 log a
// (f/√e^g is unchanged), so m_g carries the overall noise level (GPC's
// amplitude). θ_g is held too unless optimize_gamplitude is set: the paper
// fixes both amplitudes to 1 (§4) and learns the length-scales; letting θ_g
// grow makes exp(g) span orders of magnitude for a small evidence gain and
// slows the search.

// gpcPlusState evaluates the GPC+ EP evidence for one data set.
type gpcPlusState struct {
	ctx       context.Context
	X, Z      *mat.Dense
	y         []float64
	nf        int // length of the f part of θ (1 + #length-scales)
	maxSweeps int
	tol       float64
	damping   float64
	gh        *ep.GaussHermite
	epRuns
	accel    *ep.Accel
	tick     func(sweep, site int)
	gtick    func() // progress inside the evidence gradient
	noRetry  bool   // no damped reruns (tests: the behaviour before them)
	noExtrap bool   // disable ep.Options.Extrapolate (tests)
	// skipNegF skips f-site updates to a negative precision (the behaviour
	// before f allowed them; tests of the finite-difference fallback).
	skipNegF bool
	// fdFree marks the coordinates of θ whose gradient is taken by finite
	// differences when EP skipped site updates (see evidence); nil means
	// all. The others keep the fixed-point formula (they are not optimised).
	fdFree []bool
	// analyticOnly disables the finite-difference fallback (tests).
	analyticOnly bool
	// watch, when set, sees every accepted evidence evaluation (the
	// type-II ML steps of a watched fit).
	watch func(res *ep.Result, theta []float64)
	// fdGrads counts the evidence gradients taken by finite differences,
	// fdSweeps the EP sweeps they cost.
	fdGrads, fdSweeps int
	last              *ep.Result // the last EP result of evidence (plusSettings.observe)
}

// Finite-difference gradient settings (gpcPlusState.fdGradient): the step
// in θ (log-parameters: a relative step of the parameter; m_g: scaled by
// max(1, |m_g|)) and the EP tolerance of the perturbed runs (site
// tolerance 1e-6). At n = 400 (lupi2d) they reproduce differences with
// h = 1e-5 at EP tolerance 1e-12 to < 1e-6.
const (
	fdStep = 1e-4
	fdTol  = 1e-10
)

func (s *gpcPlusState) retryLimit() int {
	if s.noRetry {
		return 0
	}
	return epRetries
}

func (s *gpcPlusState) split(theta []float64) (kf, kg seKernel, mg float64) {
	kf = seKernel{LogAmp: theta[0], LogLen: append([]float64(nil), theta[1:s.nf]...)}
	rest := theta[s.nf : len(theta)-1]
	kg = seKernel{LogAmp: rest[0], LogLen: append([]float64(nil), rest[1:]...)}
	return kf, kg, theta[len(theta)-1]
}

func (s *gpcPlusState) run(theta []float64) (*ep.Result, *mat.SymDense, *mat.SymDense, error) {
	kf, kg, mg := s.split(theta)
	Kf, Kg := kf.gram(s.X), kg.gram(s.Z)
	n := len(s.y)
	m0 := make([]float64, n)
	for i := range m0 {
		m0[i] = mg
	}
	site := func(i int, m, v, dm, d2 []float64) float64 {
		h := ep.HeteroTilted(s.gh, s.y[i], m[0], v[0], m[1], v[1])
		dm[0], d2[0], dm[1], d2[1] = h.DMf, h.D2f, h.DMg, h.D2g
		return h.LogZ
	}
	res, err := ep.Run(s.ctx, []ep.Block{{K: Kf, AllowNegative: !s.skipNegF}, {K: Kg, Mean: m0, AllowNegative: true}}, site,
		ep.Options{MaxSweeps: s.maxSweeps, Tol: s.tol, SiteTol: math.Min(math.Sqrt(s.tol), 1e4*s.tol), Damping: s.damping, Extrapolate: !s.noExtrap, Accel: s.accel, Init: s.warm, Progress: s.tick, Retries: s.retryLimit()})
	if err != nil {
		return nil, nil, nil, err
	}
	s.note(res)
	return res, Kf, Kg, nil
}

// evidence returns log Z_EP and its gradient: ½ tr(W_f ∂K_f/∂θ) for the f
// kernel, ½ tr(W_g ∂K_g/∂θ) for the g kernel and Σᵢ α_gᵢ for m_g (the
// gradient of the EP evidence at its fixed point, R&W eq 3.74, per block).
//
// That formula holds only when every site is moment-matched. Both blocks
// allow negative site precisions (ep.Block.AllowNegative), so EP skips an
// update only when it would make the posterior improper — rare. When it
// did skip in its last sweep, the frozen sites are not matched, the
// evidence is not stationary in the sites and eq 3.74 can be wrong in sign
// (with f-site updates to τ̃ < 0 skipped, n = 400: (−0.88, 0.012, 0.12)
// against (0.24, −0.42, −0.52) for ℓ_f, ℓ_g, m_g). The gradient of the
// fdFree coordinates is then taken by central finite differences of the
// evidence (fdGradient).
//
// An unconverged EP is an error (see unconverged): type-II ML rejects the
// evaluation.
func (s *gpcPlusState) evidence(theta []float64) (float64, []float64, error) {
	res, Kf, Kg, err := s.run(theta)
	if err != nil {
		return 0, nil, err
	}
	s.last = res
	if err := unconverged(res); err != nil {
		return 0, nil, err
	}
	if s.watch != nil {
		s.watch(res, theta)
	}
	kf, kg, _ := s.split(theta)
	Wf, err := res.GradWeights(0)
	if err != nil {
		return 0, nil, err
	}
	Wg, err := res.GradWeights(1)
	if err != nil {
		return 0, nil, err
	}
	grad := append(kf.grad(s.X, Kf, Wf, s.gtick), kg.grad(s.Z, Kg, Wg, s.gtick)...)
	var sm float64
	for _, a := range res.Alpha(1) {
		sm += a
	}
	grad = append(grad, sm)
	if res.Skipped > 0 && !s.analyticOnly {
		if err := s.fdGradient(theta, grad); err != nil {
			return 0, nil, err
		}
	}
	return res.LogZ, grad, nil
}

// fdGradient overwrites grad[k] for the fdFree coordinates with the central
// difference (log Z(θ + h e_k) − log Z(θ − h e_k))/2h of the EP evidence,
// every perturbed EP warm-started from the sites just converged at θ (so
// that the frozen sites keep their values) and converged to fdTol. The
// warm start is left at θ's sites.
func (s *gpcPlusState) fdGradient(theta, grad []float64) error {
	center, tol, sw := s.warm, s.tol, s.sweeps
	defer func() {
		s.warm, s.tol = center, tol
		s.fdSweeps += s.sweeps - sw
	}()
	s.tol = fdTol
	s.fdGrads++
	th := append([]float64(nil), theta...)
	for k := range theta {
		if s.fdFree != nil && !s.fdFree[k] {
			continue
		}
		h := fdStep
		if k == len(theta)-1 {
			h *= math.Max(1, math.Abs(theta[k]))
		}
		var lz [2]float64
		for j, d := range []float64{h, -h} {
			th[k] = theta[k] + d
			s.warm = center
			res, _, _, err := s.run(th)
			if err == nil {
				err = unconverged(res)
			}
			if err != nil {
				return fmt.Errorf("finite-difference gradient: %w", err)
			}
			lz[j] = res.LogZ
		}
		th[k] = theta[k]
		grad[k] = (lz[0] - lz[1]) / (2 * h)
	}
	return nil
}

// GPCPlus is a fitted binary GPC+ classifier. Only the f block is needed at
// test time; the test-time noise is described at Probability.
type GPCPlus struct {
	KernelF seKernel      `json:"kernel_f"`
	KernelG seKernel      `json:"kernel_g"`
	GMean   float64       `json:"g_mean"`
	X       *model.Matrix `json:"x"`
	SiteTau []float64     `json:"site_tau,omitempty"` // EP's signed site precisions τ̃ of f (see GPC.SiteTau)
	SqrtTau []float64     `json:"sqrt_tau,omitempty"` // read from older files only (see GPC.SqrtTau)
	Alpha   []float64     `json:"alpha"`
	Nodes   int           `json:"quad_nodes"`
	Rep     *model.Report `json:"report"`
	f       *GPC
	gh      *ep.GaussHermite
}

// Report implements model.BinaryModel.
func (g *GPCPlus) Report() *model.Report { return g.Rep }

func (g *GPCPlus) prepare() error {
	if g.f == nil {
		g.f = &GPC{Kernel: g.KernelF, X: g.X, SqrtTau: g.SqrtTau, SiteTau: g.SiteTau, Alpha: g.Alpha}
		if len(g.KernelG.LogLen) == 0 {
			return errors.New("gpcplus: malformed saved model")
		}
		nodes := g.Nodes
		if nodes < 1 {
			nodes = 32
		}
		g.gh = ep.NewGaussHermite(nodes)
	}
	return g.f.prepare()
}

// Decision returns the latent predictive mean of f (> 0 ⇔ P(y=+1) > ½
// whatever the test-time noise).
func (g *GPCPlus) Decision(ds *data.Dataset) ([]float64, error) {
	if err := g.prepare(); err != nil {
		return nil, err
	}
	return g.f.Decision(ds)
}

// Probability returns eq 9 for a new x without privileged features:
//
//	P(y=1 | x) = ∫ Φ(m*/√(v* + e^g)) N(g | m_g, θ_g) dg,
//
// with (m*, v*) the EP predictive of f at x. The privileged z of a test
// point is unknown, so its g is drawn from the GP prior marginal of g at an
// unseen point, N(m_g, k_g(z, z) = θ_g): the same noise distribution for
// every test point (homoscedastic, as the paper prescribes), centred on the
// learnt global noise level m_g. For g pinned (θ_g → 0) it is GPC's
// Φ(m*/√(v* + e^{m_g})). The noise only calibrates the probability; the
// predicted label (sign of m*) does not depend on it.
func (g *GPCPlus) Probability(ds *data.Dataset) ([]float64, error) {
	if err := g.prepare(); err != nil {
		return nil, err
	}
	m, v, err := g.f.latent(ds.X)
	if err != nil {
		return nil, err
	}
	nm := ep.NewNoiseMixture(g.gh, g.GMean, math.Exp(g.KernelG.LogAmp))
	p := make([]float64, len(m))
	for i := range m {
		p[i] = nm.Prob(m[i], v[i])
	}
	return p, nil
}

func fitGPCPlus(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	return fitGPCPlusWith(ctx, train, y, v, opt, plusSettings{fdGradients: true})
}

// plusSettings are GPC+ fit settings that are not model parameters
// (benchmarks and tests change them).
type plusSettings struct {
	// fdGradients enables the finite-difference gradient where EP skipped
	// site updates (gpcPlusState.fdGradient); benchmarks switch it off to
	// measure the fixed-point formula alone.
	fdGradients bool
	// observe, when set, sees every evidence evaluation of type-II ML:
	// θ, the EP result (nil after an error) and what evidence returned.
	observe func(theta []float64, res *ep.Result, err error)
}

// plusFit is one GPC+ fit: the EP state, the starting θ and the progress
// reporting.
type plusFit struct {
	st       *gpcPlusState
	train    *data.Dataset
	v        model.Values
	opt      model.Options
	theta    []float64
	ard      bool
	nodes    int
	tk       *ticker
	frac     float64
	warnings []string
	evals    int
	rejected int
}

func newPlusFit(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (*plusFit, error) {
	if err := checkBinary("X", train.X, y); err != nil {
		return nil, err
	}
	if train.Z == nil {
		return nil, errors.New("gpcplus: the training data has no privileged block Z (GPC+ needs it at training time)")
	}
	if err := checkBinary("Z", train.Z, y); err != nil {
		return nil, fmt.Errorf("gpcplus: privileged block: %w", err)
	}
	_, d := train.X.Dims()
	_, dz := train.Z.Dims()
	pf := &plusFit{train: train, v: v, opt: opt, ard: v.Bool("ard"), nodes: v.Int("quad_nodes"), tk: &ticker{opt: opt}}
	st := &gpcPlusState{ctx: ctx, X: train.X, Z: train.Z, y: y, maxSweeps: v.Int("max_sweeps"), tol: epTolSearch, accel: new(ep.Accel),
		damping: v.Float("damping"), gh: ep.NewGaussHermite(pf.nodes)}
	thF := startTheta(v.Float("amplitude"), v.Float("lengthscale"), pf.ard, d)
	thG := startTheta(v.Float("gamplitude"), v.Float("glengthscale"), pf.ard, dz)
	st.nf = len(thF)
	pf.theta = append(append(append([]float64(nil), thF...), thG...), v.Float("gmean"))
	st.tick = func(sweep, site int) {
		pf.tk.report(model.Progress{Fraction: pf.frac, Stage: fmt.Sprintf("EP sweep %d (approximating the posterior)", st.sweeps+sweep), Iter: st.sweeps + sweep}) // counted over every evidence evaluation: it never goes back
	}
	st.gtick = func() { pf.tk.report(model.Progress{Fraction: pf.frac, Stage: "evidence gradient", Iter: st.sweeps}) }
	if opt.Watch != nil {
		n := len(y)
		step := 0
		st.watch = func(res *ep.Result, theta []float64) {
			if step++; opt.Watching(step) {
				kf, kg, mg := st.split(theta)
				g := &GPCPlus{KernelF: kf, KernelG: kg, GMean: mg, X: model.MatrixOf(train.X), SiteTau: append([]float64(nil), res.Tau[0]...),
					Alpha: res.Alpha(0), Nodes: pf.nodes, Rep: &model.Report{Model: "gpcplus", NTrain: n}}
				opt.Snapshot(model.Snapshot{Iter: step, Stage: "type-II ML step", Quantity: "log evidence (EP)", Value: res.LogZ, Binary: g})
			}
		}
	}
	pf.st = st
	return pf, nil
}

func fitGPCPlusWith(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options, set plusSettings) (model.BinaryModel, error) {
	pf, err := newPlusFit(ctx, train, y, v, opt)
	if err != nil {
		return nil, err
	}
	if v.Bool("optimize") {
		if err := pf.typeII(ctx, set); err != nil {
			return nil, err
		}
	}
	return pf.final()
}

// typeII sets θ by type-II ML: the length-scales and the g mean (and θ_g
// with optimize_gamplitude) from the parameters' values and from a
// median-distance start.
func (pf *plusFit) typeII(ctx context.Context, set plusSettings) error {
	st, v, theta := pf.st, pf.v, pf.theta
	hs := hyperSearch{theta0: theta, restarts: v.Int("restarts"), seed: pf.opt.Seed, stall: 4,
		name: func(i int) string {
			switch {
			case i == len(theta)-1:
				return "the g mean"
			case i < st.nf:
				return seName("f", i, st.nf > 2)
			}
			return seName("g", i-st.nf, len(theta)-1-st.nf > 2)
		}}
	for i := range theta {
		isAmp := i == 0 || i == st.nf
		isMean := i == len(theta)-1
		hs.free = append(hs.free, i != 0 && (i != st.nf || v.Bool("optimize_gamplitude")))
		switch {
		case isMean:
			hs.lo, hs.hi = append(hs.lo, -20), append(hs.hi, 20)
		case isAmp:
			hs.lo, hs.hi = append(hs.lo, logAmpLo), append(hs.hi, logAmpHi)
		default:
			hs.lo, hs.hi = append(hs.lo, logLenLo), append(hs.hi, logLenHi)
		}
	}
	_, d := pf.train.X.Dims()
	_, dz := pf.train.Z.Dims()
	alt := append(append(append([]float64(nil), startTheta(v.Float("amplitude"), medianDistance(pf.train.X), pf.ard, d)...),
		startTheta(v.Float("gamplitude"), medianDistance(pf.train.Z), pf.ard, dz)...), v.Float("gmean"))
	hs.starts = [][]float64{alt}
	st.fdFree, st.analyticOnly = hs.free, !set.fdGradients
	ev := st.evidence
	if set.observe != nil {
		ev = func(th []float64) (float64, []float64, error) {
			st.last = nil
			lz, g, err := st.evidence(th)
			set.observe(th, st.last, err)
			return lz, g, err
		}
	}
	sr, err := optimizeHyper(ctx, hs, ev, func(f float64, msg string) {
		pf.frac = 0.95 * f
		pf.tk.report(model.Progress{Fraction: pf.frac, Stage: "type-II ML (fitting the kernel to the data)", Message: msg, Iter: st.sweeps})
	})
	if err != nil {
		return fmt.Errorf("gpcplus: %w", err)
	}
	pf.theta, pf.evals, pf.rejected = sr.theta, sr.evaluations, sr.rejected
	pf.warnings = append(pf.warnings, sr.warnings...)
	return nil
}

// final runs EP at θ to the final tolerance and builds the model and its
// report.
func (pf *plusFit) final() (*GPCPlus, error) {
	st := pf.st
	st.tol = epTolFinal
	res, _, _, err := st.run(pf.theta)
	if err != nil {
		return nil, fmt.Errorf("gpcplus: EP failed: %w", err)
	}
	warnings := append(pf.warnings, epWarnings(res)...)
	if st.fdGrads > 0 {
		warnings = append(warnings, fmt.Sprintf("type-II ML: EP skipped site updates at %d of the %d evidence evaluations; their gradients were taken by central finite differences (the fixed-point formula assumes every site moment-matched)", st.fdGrads, pf.evals))
	}
	if res.Skipped > 0 {
		warnings = append(warnings, fmt.Sprintf("EP skipped %d site updates in its last sweep (they would have made the posterior improper)", res.Skipped))
	}
	kf, kg, mg := st.split(pf.theta)
	g := &GPCPlus{KernelF: kf, KernelG: kg, GMean: mg, X: model.MatrixOf(pf.train.X), SiteTau: append([]float64(nil), res.Tau[0]...), Alpha: res.Alpha(0), Nodes: pf.nodes}
	negF := 0
	for _, t := range res.Tau[0] {
		if t < 0 {
			negF++
		}
	}
	diag := plusDiagnostics(res)
	n := len(pf.st.y)
	eg := append([]float64(nil), diag["exp_g_mean"]...)
	sort.Float64s(eg)
	q := func(p float64) float64 { return eg[int(math.Round(p*float64(n-1)))] }
	thetaG := math.Exp(kg.LogAmp)
	rep := &model.Report{Model: "gpcplus", Params: pf.v.Clone(), NTrain: n, Converged: res.Converged,
		Iterations: res.Sweeps, Objective: -res.LogZ, NSupport: n,
		Extras: map[string]float64{
			"log_marginal_likelihood": res.LogZ,
			"amplitude":               math.Exp(kf.LogAmp),
			"lengthscale":             math.Exp(geoMean(kf.LogLen)),
			"gamplitude":              thetaG,
			"glengthscale":            math.Exp(geoMean(kg.LogLen)),
			"gmean":                   mg,
			// The test-time noise variance e^{g*}, g* ~ N(gmean,
			// gamplitude) (see Probability): its mean and median. They
			// summarise the distribution that prediction (eq 9)
			// integrates over; no prediction plugs either in.
			"test_noise_variance_mean":   math.Exp(mg + thetaG/2),
			"test_noise_variance_median": math.Exp(mg),
			// easy / typical / hard training samples for the likelihood-slope
			// plot (paper Fig. 1): Φ(f/√s) with s these exp(g) values
			"exp_g_q10":            q(0.1),
			"exp_g_median":         q(0.5),
			"exp_g_q90":            q(0.9),
			"ep_sweeps":            float64(res.Sweeps),
			"ep_sweeps_total":      float64(st.sweeps),
			"ep_damping":           res.Damping,
			"ep_retries":           float64(st.retries),
			"rejected_evaluations": float64(pf.rejected),
			"ep_tol_search":        epTolSearch,
			"ep_tol_final":         epTolFinal,
			"ep_skipped_updates":   float64(res.Skipped),
			"f_negative_sites":     float64(negF),
			"evidence_evaluations": float64(pf.evals),
			"fd_gradients":         float64(st.fdGrads),
			"fd_gradient_sweeps":   float64(st.fdSweeps),
		},
		Diagnostics: diag,
		Warnings:    warnings,
	}
	for i := 0; i < n; i++ {
		rep.Support = append(rep.Support, i)
	}
	g.Rep = rep
	pf.opt.Report(model.Progress{Fraction: 1, Stage: "done", Iter: st.sweeps})
	return g, nil
}

// plusDiagnostics are the per-sample posterior summaries of f and g.
func plusDiagnostics(res *ep.Result) map[string][]float64 {
	n := len(res.Mu[0])
	diag := map[string][]float64{}
	for _, k := range []string{"f_mean", "f_sd", "g_mean", "g_sd", "exp_g_mean", "exp_g_sd", "slope"} {
		diag[k] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		mu, s2 := res.Mu[1][i], res.Var[1][i]
		diag["f_mean"][i] = res.Mu[0][i]
		diag["f_sd"][i] = math.Sqrt(res.Var[0][i])
		diag["g_mean"][i] = mu
		diag["g_sd"][i] = math.Sqrt(s2)
		// log-normal moments of exp(g) under Q(g) = N(mu, s2)
		diag["exp_g_mean"][i] = math.Exp(mu + s2/2)
		diag["exp_g_sd"][i] = math.Exp(mu+s2/2) * math.Sqrt(math.Expm1(s2))
		// posterior mean of the likelihood slope factor e^{−g/2} (Φ(y f e^{−g/2}))
		diag["slope"][i] = math.Exp(-mu/2 + s2/8)
	}
	return diag
}
