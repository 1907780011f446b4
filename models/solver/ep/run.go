package ep

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Anderson acceleration settings (Options.Extrapolate): the memory (number
// of residual differences) and the largest relative site change of a sweep
// at which acceleration starts (before that EP is far from its linear
// regime and the history would mislead it).
const (
	andersonMemory = 5
	andersonStart  = 0.5
)

// evidenceNear: Run evaluates the evidence only for sweeps that moved no
// site by more than evidenceNear·SiteTol (see Run). Late sweeps shrink the
// site changes by 3–80× each (GPC+ … GPC), so the sweep before the one
// that converges is always within 1000·SiteTol and no sweep is added.
const evidenceNear = 1000

// Stall detection (Options.Retries): a run has stalled when the largest
// relative site change of a sweep (the quantity SiteTol bounds) has not
// fallen below half of its last record low for stallSweeps sweeps.
// Converging EP shrinks it geometrically: over the default fits of GPC and
// GPC+ on lupi2d (n = 100–400), wdbc and the digits 3 v. 5 task (every
// evidence evaluation of their type-II ML searches) the longest such wait
// was 22 sweeps (a transient of one GPC+ search on digits), most are 1–3.
// Undamped GPC+ EP at extreme hyper-parameters instead wanders with site
// changes of 10⁻²…10 for hundreds of sweeps, or cycles (period ≈ 10–30
// sweeps) without ever converging.
const stallSweeps = 50

// ErrNumerical is returned when EP meets a non-finite quantity.
var ErrNumerical = errors.New("ep: numerical failure (non-finite site or evidence)")

// Attempt is an EP run that Run abandoned and repeated with more damping
// (Options.Retries).
type Attempt struct {
	Damping float64 // the run's damping δ
	Sweeps  int     // sweeps it made
	Reason  string  // "stalled" (see stallSweeps) or the numerical failure
}

// Run performs sequential EP (R&W algorithm 3.5 generalised to independent
// blocks sharing one site per sample, paper 002 eqs 10–11): for each site the
// cavity is formed per block, the tilted moments come from site, the site is
// updated (damped; an update whose cavity is invalid, or that would make a
// site precision negative in a block without AllowNegative, or the
// posterior improper, is skipped), and the posterior is updated by a
// rank-one downdate. After each sweep the posterior is recomputed from
// scratch through L = chol(I + S̃^½ K S̃^½) and, once the sites are close to
// converged (evidenceNear), the EP evidence is evaluated. Run stops when the
// evidence changes by less than Tol between two sweeps and no site moves by
// more than SiteTol (relative) in the second, or after MaxSweeps sweeps
// (Converged = false).
//
// With Options.Retries > 0, a run that stalls (stallSweeps) or fails
// numerically (ErrNumerical) is abandoned and EP goes on with the damping
// halved, at most Retries times: after a stall from the sites reached (a
// proper posterior: damping is turned down in place), after a failure from
// the initial sites (Options.Init, or zero). The abandoned runs are listed
// in Result.Retried. A run that converges is
// never affected: the rule acts only on runs that would have ended
// unconverged or in an error. The last permitted run goes on to MaxSweeps
// as without retries (Result.Stalled then reports that it stalled).
func Run(ctx context.Context, blocks []Block, site SiteFunc, opt Options) (*Result, error) {
	if err := checkBlocks(blocks); err != nil {
		return nil, err
	}
	opt.setDefaults()
	var tried []Attempt
	damping := opt.Damping
	init0 := opt.Init
	for {
		last := len(tried) >= opt.Retries
		res, err := runOnce(ctx, blocks, site, opt, damping, !last)
		var se *sweepError
		if err != nil {
			// Only a numerical failure during the sweeps is retried (one
			// at the starting sites would recur at any damping).
			if !errors.As(err, &se) || last || !errors.Is(err, ErrNumerical) || ctx.Err() != nil {
				if se != nil {
					err = se.err
				}
				if len(tried) > 0 && errors.Is(err, ErrNumerical) {
					err = fmt.Errorf("%w (after %s)", err, describeAttempts(tried))
				}
				return nil, err
			}
			tried = append(tried, Attempt{Damping: damping, Sweeps: se.sweeps, Reason: se.err.Error()})
			opt.Init = init0
		} else {
			if last || !res.Stalled {
				res.Retried = tried
				return res, nil
			}
			tried = append(tried, Attempt{Damping: damping, Sweeps: res.Sweeps, Reason: "stalled"})
			opt.Init = &Sites{Tau: res.Tau, Nu: res.Nu}
		}
		damping /= 2
	}
}

// describeAttempts says which runs were abandoned: "stalled at damping 1
// (57 sweeps), failed at damping 0.5 (12 sweeps: …)".
func describeAttempts(tried []Attempt) string {
	s := ""
	for i, a := range tried {
		if i > 0 {
			s += ", "
		}
		if a.Reason == "stalled" {
			s += fmt.Sprintf("stalled at damping %g (%d sweeps)", a.Damping, a.Sweeps)
		} else {
			s += fmt.Sprintf("failed at damping %g (%d sweeps: %s)", a.Damping, a.Sweeps, a.Reason)
		}
	}
	return s
}

// Attempts describes the runs Run abandoned before this one (empty without
// retries), e.g. "stalled at damping 1 (57 sweeps)".
func (r *Result) Attempts() string { return describeAttempts(r.Retried) }

// TotalSweeps is the number of sweeps Run made: the returned run's and
// those of the runs it abandoned.
func (r *Result) TotalSweeps() int {
	s := r.Sweeps
	for _, a := range r.Retried {
		s += a.Sweeps
	}
	return s
}

// sweepError is a numerical failure after some sweeps of a run.
type sweepError struct {
	err    error
	sweeps int
}

func (e *sweepError) Error() string { return e.err.Error() }
func (e *sweepError) Unwrap() error { return e.err }

func checkBlocks(blocks []Block) error {
	if len(blocks) == 0 {
		return errors.New("ep: no latent blocks")
	}
	n, _ := blocks[0].K.Dims()
	if n == 0 {
		return errors.New("ep: no samples")
	}
	for _, b := range blocks {
		if r, _ := b.K.Dims(); r != n || (b.Mean != nil && len(b.Mean) != n) {
			return errors.New("ep: blocks of different sizes")
		}
	}
	return nil
}

func (opt *Options) setDefaults() {
	if opt.MaxSweeps <= 0 {
		opt.MaxSweeps = 100
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-6
	}
	if opt.SiteTol <= 0 {
		opt.SiteTol = 1e-4
	}
	if opt.Damping <= 0 || opt.Damping > 1 {
		opt.Damping = 1
	}
	if opt.Retries < 0 {
		opt.Retries = 0
	}
}

// newResult sets up the sites (a copy of opt.Init, or zero) and the blocks'
// state.
func newResult(ctx context.Context, blocks []Block, opt Options) *Result {
	n, _ := blocks[0].K.Dims()
	nb := len(blocks)
	res := &Result{Sites: Sites{Tau: make([][]float64, nb), Nu: make([][]float64, nb)},
		Mu: make([][]float64, nb), Var: make([][]float64, nb), blocks: make([]*blockState, nb), ctx: ctx}
	for b, blk := range blocks {
		res.Tau[b] = make([]float64, n)
		res.Nu[b] = make([]float64, n)
		if opt.Init != nil && len(opt.Init.Tau) == nb && len(opt.Init.Tau[b]) == n && len(opt.Init.Nu[b]) == n {
			copy(res.Tau[b], opt.Init.Tau[b])
			copy(res.Nu[b], opt.Init.Nu[b])
		}
		m0 := blk.Mean
		if m0 == nil {
			m0 = make([]float64, n)
		}
		res.blocks[b] = &blockState{neg: blk.AllowNegative, k: blk.K, m0: m0, sigma: mat.NewSymDense(n, nil), mu: make([]float64, n), sW: make([]float64, n)}
	}
	return res
}

// initPosterior computes the posterior of the starting sites; a warm start
// that does not factorise is replaced by zero sites.
func (r *Result) initPosterior(warm bool) error {
	err := r.recompute()
	if err == nil || !warm {
		return err
	}
	for b := range r.Tau {
		for i := range r.Tau[b] {
			r.Tau[b][i], r.Nu[b][i] = 0, 0
		}
	}
	return r.recompute()
}

// stallWatch detects a stalled run (see stallSweeps).
type stallWatch struct {
	low  float64 // record low of the largest site change
	last int     // sweep at which it was set
}

// observe records a sweep's largest site change and reports whether the run
// has stalled.
func (w *stallWatch) observe(sweep int, moved float64) bool {
	if sweep == 1 || moved < w.low/2 {
		w.low, w.last = moved, sweep
	}
	return sweep-w.last >= stallSweeps
}

// runOnce is one EP run at the given damping; with stopOnStall it returns
// as soon as the run has stalled (Result.Stalled, Converged = false).
func runOnce(ctx context.Context, blocks []Block, site SiteFunc, opt Options, damping float64, stopOnStall bool) (*Result, error) {
	res := newResult(ctx, blocks, opt)
	res.Damping = damping
	sw := newSweeper(res, site, damping, opt.Progress)
	if err := res.initPosterior(opt.Init != nil); err != nil {
		return nil, err
	}
	ac := newAccelerator(res, opt, damping)
	// The evidence costs a tilted normaliser per site (a quadrature for
	// GPC+) and only the convergence test reads it, at two consecutive
	// sweeps of which the second moved no site by SiteTol: it is computed
	// once the sweeps come within evidenceNear·SiteTol, and after the last.
	var prev float64
	havePrev := false
	var watch stallWatch
	for sweep := 1; sweep <= opt.MaxSweeps; sweep++ {
		moved, err := sw.sweep(ctx, sweep)
		if err != nil {
			return nil, &sweepError{err, sweep}
		}
		if err := ac.afterSweep(moved); err != nil {
			return nil, &sweepError{err, sweep}
		}
		res.Sweeps = sweep
		res.Stalled = res.Stalled || watch.observe(sweep, moved)
		if res.Stalled && stopOnStall {
			break
		}
		if moved >= evidenceNear*opt.SiteTol && sweep < opt.MaxSweeps {
			havePrev = false
			continue
		}
		lz, err := res.evidence(site)
		if err != nil {
			return nil, &sweepError{err, sweep}
		}
		res.LogZ = lz
		if havePrev && math.Abs(lz-prev) < opt.Tol && moved < opt.SiteTol {
			res.Converged = true
			break
		}
		prev, havePrev = lz, true
	}
	res.marginals()
	return res, nil
}

// marginals copies the posterior means and variances into Mu and Var.
func (r *Result) marginals() {
	for b, bs := range r.blocks {
		n := len(bs.mu)
		r.Mu[b] = append([]float64(nil), bs.mu...)
		r.Var[b] = make([]float64, n)
		for i := range r.Var[b] {
			r.Var[b][i] = bs.sigma.At(i, i)
		}
	}
}

// sweeper performs the site updates of one sweep.
type sweeper struct {
	res            *Result
	site           SiteFunc
	damping        float64
	progress       func(sweep, site int)
	m, v, dm, d2   []float64 // per block: cavity, tilted derivatives
	cols           [][]float64
	every, current int
}

func newSweeper(res *Result, site SiteFunc, damping float64, progress func(sweep, site int)) *sweeper {
	nb, n := len(res.blocks), len(res.blocks[0].mu)
	sw := &sweeper{res: res, site: site, damping: damping, progress: progress,
		m: make([]float64, nb), v: make([]float64, nb), dm: make([]float64, nb), d2: make([]float64, nb), cols: make([][]float64, nb)}
	for b := range sw.cols {
		sw.cols[b] = make([]float64, n)
	}
	// Progress and ctx every `every` sites: each site costs O(n²) per block
	// (the rank-one update), so about 2¹⁷·blocks flops between reports.
	sw.every = max(1, min(8, (1<<17)/(n*n)))
	res.tick = func() {
		if progress != nil {
			progress(sw.current, n)
		}
	}
	if progress != nil {
		for _, bs := range res.blocks {
			bs.tick = res.tick
		}
	}
	return sw
}

// sweep updates every site once (in order) and returns the largest relative
// change of a site parameter.
func (sw *sweeper) sweep(ctx context.Context, sweep int) (float64, error) {
	sw.current = sweep
	sw.res.Skipped = 0
	moved := 0.0
	n := len(sw.res.blocks[0].mu)
	for i := 0; i < n; i++ {
		if i%sw.every == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if sw.progress != nil {
				sw.progress(sweep, i)
			}
		}
		mv, err := sw.updateSite(i)
		if err != nil {
			return 0, err
		}
		moved = math.Max(moved, mv)
	}
	return moved, nil
}

// updateSite forms the cavities of site i, matches the tilted moments and
// updates the site in every block; it returns the largest relative change.
func (sw *sweeper) updateSite(i int) (float64, error) {
	res, m, v, dm, d2 := sw.res, sw.m, sw.v, sw.dm, sw.d2
	for b, bs := range res.blocks {
		bs.column(i, sw.cols[b])
		sii := sw.cols[b][i]
		tauC := 1/sii - res.Tau[b][i]
		nuC := bs.mu[i]/sii - res.Nu[b][i]
		if !(tauC > 0) || math.IsInf(tauC, 0) {
			res.Skipped++
			return 0, nil
		}
		v[b] = 1 / tauC
		m[b] = nuC / tauC
	}
	lz := sw.site(i, m, v, dm, d2)
	if math.IsNaN(lz) {
		return 0, fmt.Errorf("%w: site %d", ErrNumerical, i)
	}
	moved := 0.0
	for b, bs := range res.blocks {
		// den ≤ 0: the tilted variance v·den is not positive (a
		// failed site function; the probit and GPC+ sites give a
		// positive one in exact arithmetic).
		den := 1 + d2[b]*v[b]
		if !(den > 0) || math.IsNaN(dm[b]) || math.IsInf(dm[b], 0) {
			res.Skipped++
			continue
		}
		tauNew := -d2[b] / den
		nuNew := (dm[b] - m[b]*d2[b]) / den
		tauOld, nuOld := res.Tau[b][i], res.Nu[b][i]
		tauNew = (1-sw.damping)*tauOld + sw.damping*tauNew
		nuNew = (1-sw.damping)*nuOld + sw.damping*nuNew
		// Without AllowNegative a negative τ̃ (a log-convex site,
		// d2 > 0) is skipped. With it, the update is kept if the
		// posterior stays proper: 1 + Δτ̃ Σᵢᵢ = Σᵢᵢ (τ₋ + τ̃_new) > 0.
		// Given τ₋ > 0 and den > 0 that holds in exact arithmetic
		// (τ₋ + τ̃_new = (1−δ)/Σᵢᵢ + δ τ₋²/(τ₋ + d2) > 0), so this
		// check only catches round-off, when d2·v ≳ 1e16 makes
		// τ₋ + τ̃_new cancel (TestRunSkipsRoundOffImproperUpdate).
		if tauNew < 0 && (!bs.neg || !(1+(tauNew-tauOld)*sw.cols[b][i] > 0)) {
			res.Skipped++
			continue
		}
		dTau, dNu := tauNew-tauOld, nuNew-nuOld
		moved = math.Max(moved, math.Max(math.Abs(dTau)/(1+math.Abs(tauNew)), math.Abs(dNu)/(1+math.Abs(nuNew))))
		res.Tau[b][i], res.Nu[b][i] = tauNew, nuNew
		bs.update(i, dTau, dNu, sw.cols[b])
	}
	return moved, nil
}

// accelerator applies Anderson acceleration (Options.Extrapolate) between
// sweeps; without it, it only recomputes the posterior.
type accelerator struct {
	res          *Result
	aa           *anderson
	xs, gs, cand []float64
}

func newAccelerator(res *Result, opt Options, damping float64) *accelerator {
	ac := &accelerator{res: res}
	if opt.Extrapolate {
		if opt.Accel != nil {
			if opt.Accel.damping != damping {
				// secant pairs of another sweep map (Run's retries)
				opt.Accel.a.reset()
				opt.Accel.damping = damping
			}
			ac.aa = &opt.Accel.a
			ac.aa.m = andersonMemory
			ac.aa.restart(2 * len(res.blocks) * len(res.blocks[0].mu))
		} else {
			ac.aa = &anderson{m: andersonMemory}
		}
		ac.xs = res.Sites.flatten(ac.xs)
	}
	return ac
}

// afterSweep recomputes the posterior after a sweep that changed sites by
// at most moved: once the sweeps are in their linear regime (andersonStart)
// at the accelerated point, if that point has a proper posterior, else at
// the swept sites. It records the sites the next sweep starts from.
func (ac *accelerator) afterSweep(moved float64) error {
	res, aa := ac.res, ac.aa
	accelerated := false
	if aa != nil {
		if moved < andersonStart {
			ac.gs = res.Sites.flatten(ac.gs)
			if len(ac.cand) != len(ac.gs) {
				ac.cand = make([]float64, len(ac.gs))
			}
			if aa.step(ac.xs, ac.gs, ac.cand) {
				res.Sites.unflatten(ac.cand, res.blocks)
				if res.recompute() == nil && res.proper() {
					accelerated = true
				} else {
					res.Sites.unflatten(ac.gs, nil)
					aa.reset()
				}
			}
		} else {
			aa.reset()
		}
	}
	if !accelerated {
		if err := res.recompute(); err != nil {
			return err
		}
	}
	if aa != nil {
		ac.xs = res.Sites.flatten(ac.xs)
	}
	return nil
}
