// Package gp implements Gaussian-process classifiers with expectation
// propagation: "gpc", the probit GP classifier of Rasmussen & Williams
// (2006, ch. 3, algorithms 3.5–3.7) and "gpcplus", GPC+ of paper 002
// (Hernández-Lobato et al., "Mind the Nuisance: Gaussian Process
// Classification using Privileged Noise", NIPS 2014, eqs 3–12), whose latent
// noise variance exp(g(x*)) is a second GP on the privileged features.
// Hyper-parameters are set by type-II maximum likelihood (EP evidence and its
// gradient, L-BFGS with restarts). The numerics (stable normal functions,
// tilted moments, quadrature, the EP engine) live in models/solver/ep.
// The package also registers the "gpcplus" experiment (paper 002 §4).
package gp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

// seName names coordinate i of a squared-exponential kernel's log
// hyper-parameters (amplitude, then one length-scale or one per feature),
// of the function what ("f", "g"; "" for GPC's only one), for messages.
func seName(what string, i int, ard bool) string {
	if what != "" {
		what += " "
	}
	switch {
	case i == 0:
		return "the " + what + "amplitude θ"
	case ard:
		return fmt.Sprintf("the %slength-scale of feature %d", what, i)
	}
	return "the " + what + "length-scale"
}

// Bounds of the log hyper-parameters during type-II ML: amplitudes in
// [1e-4, 1e4], length-scales in [1e-3, 1e4] (the float64 values of
// math.Log of those, exactly).
const (
	logAmpLo, logAmpHi = -9.210340371976182, 9.210340371976184
	logLenLo, logLenHi = -6.907755278982137, 9.210340371976184
)

// EP convergence tolerances (ep.Options.Tol; the site tolerance is derived
// from it): loose while type-II ML evaluates the evidence, tight for the
// final fit at the chosen hyper-parameters. Reported in the fit report as
// ep_tol_search and ep_tol_final.
const (
	epTolSearch = 1e-6
	epTolFinal  = 1e-10
)

// epRetries is ep.Options.Retries for every EP run: a run that stalls or
// fails numerically is repeated with damping 0.5, 0.25 and 0.125 (GPC+
// at extreme hyper-parameters; never GPC in our tests).
const epRetries = 3

// errUnconverged is returned by the evidence functions of type-II ML for an
// EP run that did not converge (also after its damped retries).
var errUnconverged = errors.New("EP did not converge")

// unconverged returns a wrapped errUnconverged for an unconverged EP result
// and nil otherwise. Such an evidence is not the EP evidence at θ (it
// depends on the warm start and on where the sweeps stopped: undamped
// GPC+ EP left cycling at extreme hyper-parameters reports log Z up to
// several nats above the fixed point) and its gradient formula (R&W eq
// 3.74) assumes the fixed point, so type-II ML must not be steered by it:
// optimizeHyper rejects the evaluation.
func unconverged(res *ep.Result) error {
	if res.Converged {
		return nil
	}
	msg := fmt.Sprintf("%d sweeps at damping %g", res.Sweeps, res.Damping)
	if len(res.Retried) > 0 {
		msg += " after " + res.Attempts()
	}
	return fmt.Errorf("%w (%s)", errUnconverged, msg)
}

// epWarnings returns the fit's warnings about its final EP run: not
// converged, or converged only after damped retries.
func epWarnings(res *ep.Result) []string {
	var w []string
	switch {
	case !res.Converged:
		msg := fmt.Sprintf("EP did not converge in %d sweeps (max_sweeps) at damping %g", res.Sweeps, res.Damping)
		if len(res.Retried) > 0 {
			msg += " after " + res.Attempts()
		}
		w = append(w, msg+": the evidence and the predictions come from an unconverged approximation")
	case len(res.Retried) > 0:
		w = append(w, fmt.Sprintf("EP at the final hyper-parameters %s; it converged with damping %g in %d sweeps", res.Attempts(), res.Damping, res.Sweeps))
	}
	return w
}

// checkBinary validates one input block (name: "X", or "Z" for the
// privileged features) and the ±1 labels of a binary fit; its errors name
// the block, the row and the column of a bad value.
func checkBinary(name string, X *mat.Dense, y []float64) error {
	if X == nil {
		return data.ErrNoData
	}
	n, d := X.Dims()
	if n < 2 || d == 0 {
		return fmt.Errorf("gp: need at least 2 samples with at least one feature in %s (got %d×%d)", name, n, d)
	}
	if len(y) != n {
		return fmt.Errorf("gp: %d labels for %d rows of %s", len(y), n, name)
	}
	if err := model.CheckBinaryLabels(y); err != nil {
		return fmt.Errorf("gp: %w", err)
	}
	if err := data.CheckFinite(name, X); err != nil {
		return fmt.Errorf("gp: %w", err)
	}
	return nil
}

// epRuns is what the evidence evaluations of one fit carry from EP run to
// EP run: the warm start (the sites of the last converged run) and the
// sweeps and damped reruns (ep.Options.Retries) over all runs.
type epRuns struct {
	warm    *ep.Sites
	sweeps  int
	retries int
}

// note records a finished EP run.
func (r *epRuns) note(res *ep.Result) {
	r.sweeps += res.TotalSweeps()
	r.retries += len(res.Retried)
	if res.Converged {
		r.warm = &ep.Sites{Tau: res.Tau, Nu: res.Nu}
	}
}

// gpcState evaluates GPC's EP evidence for one data set, warm-starting EP
// from the previous sites (as GPML's infEP does).
type gpcState struct {
	ctx       context.Context
	X         *mat.Dense
	y         []float64
	ard       bool
	maxSweeps int
	tol       float64
	epRuns
	tick  func(sweep, site int)
	gtick func() // progress inside the evidence gradient
	// watch, when set, sees every accepted evidence evaluation (the
	// type-II ML steps of a watched fit).
	watch func(res *ep.Result, k seKernel)
}

func (s *gpcState) kernel(theta []float64) seKernel {
	return seKernel{LogAmp: theta[0], LogLen: append([]float64(nil), theta[1:]...)}
}

// run performs EP for hyper-parameters θ = (log θ, log ℓ…) and returns the
// result, the kernel matrix and the kernel.
func (s *gpcState) run(theta []float64) (*ep.Result, *mat.SymDense, seKernel, error) {
	k := s.kernel(theta)
	K := k.gram(s.X)
	site := func(i int, m, v, dm, d2 []float64) float64 {
		lz, a, b := ep.ProbitTilted(s.y[i], m[0], v[0], 1)
		dm[0], d2[0] = a, b
		return lz
	}
	res, err := ep.Run(s.ctx, []ep.Block{{K: K}}, site, ep.Options{MaxSweeps: s.maxSweeps, Tol: s.tol, SiteTol: math.Min(math.Sqrt(s.tol), 1e4*s.tol), Init: s.warm, Progress: s.tick, Retries: epRetries})
	if err != nil {
		return nil, nil, k, err
	}
	s.note(res)
	return res, K, k, nil
}

// evidence is the evidenceFunc of GPC: log Z_EP and ½ tr(W ∂K/∂θ) (R&W eq 3.74).
// An unconverged EP is an error (see unconverged).
func (s *gpcState) evidence(theta []float64) (float64, []float64, error) {
	res, K, k, err := s.run(theta)
	if err != nil {
		return 0, nil, err
	}
	if err := unconverged(res); err != nil {
		return 0, nil, err
	}
	if s.watch != nil {
		s.watch(res, k)
	}
	W, err := res.GradWeights(0)
	if err != nil {
		return 0, nil, err
	}
	return res.LogZ, k.grad(s.X, K, W, s.gtick), nil
}

// GPC is a fitted binary probit GP classifier.
//
// Saved form: the EP sites as site_tau (τ̃, signed) and alpha. Files saved
// before this form held sqrt_tau = √τ̃ instead, with τ̃ < 0 written as 0 and
// the signed values added in site_tau only when one was negative (GPC+'s
// f block); they are still read: site_tau when present, else sqrt_tau.
type GPC struct {
	Kernel seKernel      `json:"kernel"`
	X      *model.Matrix `json:"x"`
	// SiteTau are EP's site precisions τ̃ (R&W eq 3.56), signed: GPC's are
	// ≥ 0, GPC+'s f block can have τ̃ < 0 (its likelihood integrated over
	// g is not log-concave). The posterior is (K⁻¹ + diag τ̃)⁻¹ for any
	// sign.
	SiteTau []float64 `json:"site_tau,omitempty"`
	// SqrtTau is √τ̃ as older files store it (see above); never written.
	SqrtTau []float64     `json:"sqrt_tau,omitempty"`
	Alpha   []float64     `json:"alpha"`
	Rep     *model.Report `json:"report"`
	post    *ep.Posterior
	x       *mat.Dense
}

// Report implements model.BinaryModel.
func (g *GPC) Report() *model.Report { return g.Rep }

func (g *GPC) prepare() error {
	if g.post != nil {
		return nil
	}
	X, err := g.X.Dense()
	if err != nil {
		return err
	}
	if X == nil {
		return errors.New("gpc: saved model without training inputs")
	}
	n, _ := X.Dims()
	if len(g.Alpha) != n || len(g.Kernel.LogLen) == 0 {
		return errors.New("gpc: malformed saved model")
	}
	var p *ep.Posterior
	switch {
	case len(g.SiteTau) == n:
		p, err = ep.NewPosteriorSigned(g.Kernel.gram(X), g.SiteTau, g.Alpha)
	case g.SiteTau == nil && len(g.SqrtTau) == n: // an older file
		p, err = ep.NewPosterior(g.Kernel.gram(X), g.SqrtTau, g.Alpha)
	default:
		return errors.New("gpc: malformed saved model (site precisions)")
	}
	if err != nil {
		return err
	}
	g.post, g.x = p, X
	return nil
}

func (g *GPC) checkX(X *mat.Dense) error {
	if X == nil {
		return data.ErrNoData
	}
	if _, d := X.Dims(); d != g.x.RawMatrix().Cols {
		return fmt.Errorf("gpc: %d features, the model was trained on %d", d, g.x.RawMatrix().Cols)
	}
	return nil
}

// latent returns the predictive mean and variance of f at the rows of X.
func (g *GPC) latent(X *mat.Dense) ([]float64, []float64, error) {
	if err := g.prepare(); err != nil {
		return nil, nil, err
	}
	if err := g.checkX(X); err != nil {
		return nil, nil, err
	}
	mean, vr := g.predict(X, true)
	return mean, vr, nil
}

// predict evaluates the latent predictive at the rows of X in blocks of
// ep.PredictChunk rows: the cross-kernel block and the solver's work matrix
// are reused, so a grid of 40 000 points needs O(n·chunk) memory and no
// per-point allocations. withVar = false skips the variances (Decision).
func (g *GPC) predict(X *mat.Dense, withVar bool) (mean, variance []float64) {
	m, _ := X.Dims()
	n, _ := g.x.Dims()
	mean = make([]float64, m)
	if withVar {
		variance = make([]float64, m)
	}
	const c = ep.PredictChunk
	kss := make([]float64, min(c, m))
	for j := range kss {
		kss[j] = math.Exp(g.Kernel.LogAmp)
	}
	kbuf := make([]float64, n*min(c, m))
	work := make([]float64, n*min(c, m))
	for j0 := 0; j0 < m; j0 += c {
		w := min(c, m-j0)
		Ks := mat.NewDense(n, w, kbuf[:n*w])
		g.Kernel.crossTo(Ks, g.x, X.Slice(j0, j0+w, 0, X.RawMatrix().Cols).(*mat.Dense))
		var vo []float64
		if withVar {
			vo = variance[j0 : j0+w]
		}
		g.post.PredictTo(mean[j0:j0+w], vo, Ks, kss[:w], work)
	}
	return mean, variance
}

// Decision returns the latent predictive mean m* (> 0 ⇔ P(y=+1) > ½).
func (g *GPC) Decision(ds *data.Dataset) ([]float64, error) {
	if err := g.prepare(); err != nil {
		return nil, err
	}
	if err := g.checkX(ds.X); err != nil {
		return nil, err
	}
	m, _ := g.predict(ds.X, false)
	return m, nil
}

// Probability returns Φ(m*/√(1 + v*)) (R&W eq 3.80 for the probit).
func (g *GPC) Probability(ds *data.Dataset) ([]float64, error) {
	m, v, err := g.latent(ds.X)
	if err != nil {
		return nil, err
	}
	p := make([]float64, len(m))
	for i := range m {
		p[i] = ep.Phi(m[i] / math.Sqrt(1+v[i]))
	}
	return p, nil
}

// gpcTheta0 builds the starting hyper-parameters from the parameter values.
func startTheta(amp, ell float64, ard bool, d int) []float64 {
	th := []float64{math.Log(amp)}
	if ard {
		for j := 0; j < d; j++ {
			th = append(th, math.Log(ell))
		}
	} else {
		th = append(th, math.Log(ell))
	}
	return th
}

func fitGPC(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	if err := checkBinary("X", train.X, y); err != nil {
		return nil, err
	}
	n, d := train.X.Dims()
	tk := &ticker{opt: opt}
	st := &gpcState{ctx: ctx, X: train.X, y: y, ard: v.Bool("ard"), maxSweeps: v.Int("max_sweeps"), tol: epTolSearch}
	frac := 0.0
	st.tick = func(sweep, site int) {
		tk.report(model.Progress{Fraction: frac, Stage: fmt.Sprintf("EP sweep %d (approximating the posterior)", st.sweeps+sweep), Iter: st.sweeps + sweep}) // counted over every evidence evaluation: it never goes back
	}
	st.gtick = func() { tk.report(model.Progress{Fraction: frac, Stage: "evidence gradient", Iter: st.sweeps}) }
	if opt.Watch != nil {
		// each evidence evaluation's posterior is a classifier: the one
		// type-II ML would return if it stopped at these hyper-parameters
		step := 0
		st.watch = func(res *ep.Result, k seKernel) {
			if step++; opt.Watching(step) {
				g := &GPC{Kernel: k, X: model.MatrixOf(train.X), SiteTau: append([]float64(nil), res.Tau[0]...), Alpha: res.Alpha(0),
					Rep: &model.Report{Model: "gpc", NTrain: n}}
				opt.Snapshot(model.Snapshot{Iter: step, Stage: "type-II ML step", Quantity: "log evidence (EP)", Value: res.LogZ, Binary: g})
			}
		}
	}
	theta0 := startTheta(v.Float("amplitude"), v.Float("lengthscale"), st.ard, d)
	warnings := []string{}
	theta := theta0
	var evals, rejected int
	if v.Bool("optimize") {
		hs := hyperSearch{theta0: theta0, free: make([]bool, len(theta0)), restarts: v.Int("restarts"), seed: opt.Seed,
			name: func(i int) string { return seName("", i, st.ard) }}
		for i := range theta0 {
			hs.free[i] = true
			hs.lo = append(hs.lo, pick(i == 0, logAmpLo, logLenLo))
			hs.hi = append(hs.hi, pick(i == 0, logAmpHi, logLenHi))
		}
		// A second deterministic start: unit amplitude, median-distance length-scale.
		hs.starts = [][]float64{startTheta(1, medianDistance(train.X), st.ard, d)}
		sr, err := optimizeHyper(ctx, hs, st.evidence, func(f float64, msg string) {
			frac = 0.95 * f
			tk.report(model.Progress{Fraction: frac, Stage: "type-II ML (fitting the kernel to the data)", Message: msg, Iter: st.sweeps})
		})
		if err != nil {
			return nil, fmt.Errorf("gpc: %w", err)
		}
		theta, evals, rejected = sr.theta, sr.evaluations, sr.rejected
		warnings = append(warnings, sr.warnings...)
	}
	// Final EP at the chosen hyper-parameters with a tight tolerance.
	st.tol = epTolFinal
	res, _, k, err := st.run(theta)
	if err != nil {
		return nil, fmt.Errorf("gpc: EP failed: %w", err)
	}
	warnings = append(warnings, epWarnings(res)...)
	g := &GPC{Kernel: k, X: model.MatrixOf(train.X), SiteTau: append([]float64(nil), res.Tau[0]...), Alpha: res.Alpha(0)}
	fm, fsd := res.Mu[0], make([]float64, n)
	for i := range fsd {
		fsd[i] = math.Sqrt(res.Var[0][i])
	}
	rep := &model.Report{Model: "gpc", Params: v.Clone(), NTrain: n, Converged: res.Converged,
		Iterations: res.Sweeps, Objective: -res.LogZ, NSupport: n,
		Extras: map[string]float64{
			"log_marginal_likelihood": res.LogZ,
			"amplitude":               math.Exp(k.LogAmp),
			"lengthscale":             math.Exp(geoMean(k.LogLen)),
			"ep_sweeps":               float64(res.Sweeps),
			"ep_skipped_updates":      float64(res.Skipped),
			"ep_sweeps_total":         float64(st.sweeps),
			"ep_damping":              res.Damping,
			"ep_retries":              float64(st.retries),
			"rejected_evaluations":    float64(rejected),
			"ep_tol_search":           epTolSearch,
			"ep_tol_final":            epTolFinal,
			"evidence_evaluations":    float64(evals),
		},
		Diagnostics: map[string][]float64{"f_mean": append([]float64(nil), fm...), "f_sd": fsd, "site_precision": append([]float64(nil), res.Tau[0]...)},
		Warnings:    warnings,
	}
	for i := 0; i < n; i++ {
		rep.Support = append(rep.Support, i)
	}
	g.Rep = rep
	opt.Report(model.Progress{Fraction: 1, Stage: "done", Iter: st.sweeps})
	return g, nil
}

func pick(c bool, a, b float64) float64 {
	if c {
		return a
	}
	return b
}

func geoMean(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v
	}
	return s / float64(len(a))
}
