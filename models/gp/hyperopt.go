package gp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"gonum.org/v1/gonum/optimize"

	"lupilab/models/model"
)

// evidenceFunc returns the EP log marginal likelihood at the hyper-parameter
// vector θ and its gradient.
type evidenceFunc func(theta []float64) (logZ float64, grad []float64, err error)

// hyperSearch describes a type-II maximum-likelihood search: θ0 is the
// starting point, free marks the coordinates that are optimised (the others
// stay at θ0), [lo, hi] box the free coordinates (log-parameters).
type hyperSearch struct {
	theta0, lo, hi []float64
	free           []bool
	// name names coordinate i in messages ("the amplitude θ"); nil: "θ[i]"
	name     func(i int) string
	starts   [][]float64 // extra deterministic starting points (full vectors)
	restarts int         // random restarts in addition to the starts
	maxIter  int
	seed     int64
	// stall > 0 ends an L-BFGS run (as a line-search failure: it is
	// restarted with an empty memory if it made progress) after that many
	// consecutive evaluations without an evidence gain of 1e-7·(1+|log Z|).
	// GPC+ sets it: with sites skipped by EP the EP result is not a
	// stationary point of the evidence in the other sites and the
	// fixed-point gradient formula is wrong (More–Thuente then spent many
	// evaluations on steps of 10⁻⁶ without meeting its curvature
	// condition); GPC+ now allows negative f-site precisions (no skips
	// in practice) and takes finite-difference gradients where EP still
	// skips (gpcPlusState.fdGradient); the rule remains a safeguard.
	stall int
	// farPenalty overrides defaultFarPenalty (0: the default; +Inf
	// evaluates every point).
	farPenalty float64
}

// errStalled ends an L-BFGS run that stopped improving (hyperSearch.stall).
var errStalled = errors.New("type-II ML: no evidence gain over several evaluations")

type searchResult struct {
	theta       []float64
	logZ        float64
	evaluations int
	converged   bool
	warnings    []string
	// rejected counts the evaluations that failed (optimizeHyper), the
	// first one's reason is rejectReason.
	rejected     int
	rejectReason string
}

// ticker throttles progress reports to about one per 5 ms.
type ticker struct {
	opt  model.Options
	last time.Time
}

func (t *ticker) report(p model.Progress) {
	if t.opt.Progress == nil {
		return
	}
	if now := time.Now(); now.Sub(t.last) >= 5*time.Millisecond {
		t.last = now
		t.opt.Report(p)
	}
}

// optimizeHyper maximises the evidence over the free coordinates with
// gonum/optimize's L-BFGS (log-parameterised θ) from the better of θ0 and the extra starts, and from
// `restarts` random perturbations of θ0 (N(0, 1) in log space, seeded), keeping the best
// evidence seen. Outside the box the objective is the evidence at the
// clamped point minus a quadratic penalty, so the search stays bounded.
//
// An evaluation that fails (ev returns an error: EP failed numerically, or
// did not converge — gpcState/gpcPlusState.evidence refuse an unconverged
// evidence) is rejected: the optimiser sees a value worse than any it has
// evaluated, with a zero gradient, so the line search backs off from the
// step and the point is never accepted or kept as the best; the number of
// rejections and the first reason are reported in the warnings. A start
// whose own evaluation fails is not optimised from.
func optimizeHyper(ctx context.Context, hs hyperSearch, ev evidenceFunc, tick func(frac float64, msg string)) (*searchResult, error) {
	s := &searcher{ctx: ctx, hs: hs, ev: ev, tick: tick, best: &searchResult{logZ: math.Inf(-1)}, maxIter: hs.maxIter}
	for i, f := range hs.free {
		if f {
			s.idx = append(s.idx, i)
		}
	}
	if s.maxIter <= 0 {
		s.maxIter = 60
	}
	starts, err := s.starts()
	if err != nil {
		return nil, err
	}
	s.nStarts = len(starts)
	for si, st := range starts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.fromStart(si, st); err != nil {
			return nil, err
		}
	}
	return s.finish()
}

// searcher is the state of one optimizeHyper call.
type searcher struct {
	ctx     context.Context
	hs      hyperSearch
	ev      evidenceFunc
	tick    func(frac float64, msg string)
	idx     []int // the free coordinates
	maxIter int
	nStarts int
	best    *searchResult
	// screened keeps the evidence of the chosen deterministic start, so that
	// the first evaluation of its L-BFGS run is not repeated.
	screened struct {
		theta, grad []float64
		logZ        float64
	}
	anyConverged bool
	lastErr      error // the last failed evaluation's error
	rejected     int   // evaluations that failed (see optimizeHyper)
}

// evaluate calls the evidence function, counting the evaluation and
// recording a failure.
func (s *searcher) evaluate(th []float64) (float64, []float64, error) {
	lz, g, err := s.ev(th)
	s.best.evaluations++
	if err == nil && (math.IsNaN(lz) || math.IsInf(lz, 0)) {
		err = fmt.Errorf("non-finite evidence %v", lz)
	}
	if err != nil {
		if s.rejected == 0 {
			s.best.rejectReason = err.Error()
		}
		s.rejected++
		s.lastErr = err
	}
	return lz, g, err
}

// starts returns the starting points: the best of θ0 and the extra
// deterministic starts (screened by their evidence; only the best one is
// optimised), then the random restarts (optimised each).
func (s *searcher) starts() ([][]float64, error) {
	hs := s.hs
	starts := [][]float64{hs.theta0}
	if len(hs.starts) > 0 && len(s.idx) > 0 {
		bestStart, bestLZ := hs.theta0, math.Inf(-1)
		for k, st := range append([][]float64{hs.theta0}, hs.starts...) {
			if err := s.ctx.Err(); err != nil {
				return nil, err
			}
			if k > 0 && sameStart(st, hs.theta0) {
				continue
			}
			lz, g, err := s.evaluate(st)
			if err == nil && lz > bestLZ {
				bestStart, bestLZ = st, lz
				s.screened.theta, s.screened.grad, s.screened.logZ = st, g, lz
			}
		}
		starts[0] = bestStart
	}
	rng := rand.New(rand.NewPCG(uint64(hs.seed), 0x9e3779b97f4a7c15))
	for r := 0; r < hs.restarts; r++ {
		st := append([]float64(nil), hs.theta0...)
		for _, i := range s.idx {
			st[i] += rng.NormFloat64()
			st[i] = math.Max(hs.lo[i], math.Min(hs.hi[i], st[i]))
		}
		starts = append(starts, st)
	}
	if len(s.idx) == 0 {
		starts = starts[:1]
	}
	return starts, nil
}

// fromStart runs the search from one start. Active set: when a run ends
// with coordinates at their bounds (e.g. GPC's amplitude on separable data,
// where the evidence keeps growing with it), they are fixed there and
// L-BFGS runs again on the others; the quadratic penalty alone leaves
// L-BFGS stalled on the kink with the free coordinates unconverged.
func (s *searcher) fromStart(si int, start []float64) error {
	base, cur := s.hs.theta0, s.idx
	for ph := 0; ph < 2; ph++ {
		p := &phase{s: s, si: si, base: base, cur: cur, bestF: math.Inf(1), worstF: math.Inf(-1)}
		x0 := make([]float64, len(cur))
		for k, i := range cur {
			x0[k] = start[i]
		}
		if len(s.idx) == 0 {
			p.eval(x0)
			s.anyConverged = true
			return nil
		}
		lastX, converged, err := p.minimize(x0)
		if err != nil {
			return err
		}
		if lastX == nil {
			return nil // the start itself was rejected
		}
		th, _, _ := p.full(lastX)
		var keep []int
		for k, i := range cur {
			if lastX[k] > s.hs.lo[i]+1e-8 && lastX[k] < s.hs.hi[i]-1e-8 {
				keep = append(keep, i)
			}
		}
		if ph == 1 || len(keep) == len(cur) || len(keep) == 0 {
			s.anyConverged = s.anyConverged || converged
			return nil
		}
		base, cur, start = th, keep, th
	}
	return nil
}

// finish returns the best evidence found, with the search's warnings.
func (s *searcher) finish() (*searchResult, error) {
	best := s.best
	if best.theta == nil {
		if s.lastErr != nil {
			return nil, fmt.Errorf("no hyper-parameters gave a finite, converged EP evidence (%d evaluations): %w", best.evaluations, s.lastErr)
		}
		return nil, errors.New("no hyper-parameters gave a finite EP evidence")
	}
	best.converged = s.anyConverged
	best.rejected = s.rejected
	if !s.anyConverged && len(s.idx) > 0 {
		best.warnings = append(best.warnings, fmt.Sprintf("type-II ML: no L-BFGS run met its convergence test within %d iterations; the best evidence found is used", s.maxIter))
	}
	if s.rejected > 0 {
		best.warnings = append(best.warnings, fmt.Sprintf("type-II ML: %d of %d evidence evaluations were rejected (%s); the search backed off from those hyper-parameters and never used their evidence", s.rejected, best.evaluations, best.rejectReason))
	}
	best.warnings = append(best.warnings, s.atBounds(best.theta)...)
	return best, nil
}

// atBounds says which free coordinates of theta ended at an end of their
// search range: the evidence grows beyond it (on separable classes it
// grows without limit with the amplitude), so the value shown is the
// range's end, not an optimum.
func (s *searcher) atBounds(theta []float64) []string {
	var out []string
	for _, i := range s.idx {
		end := ""
		switch {
		case i < len(s.hs.hi) && theta[i] >= s.hs.hi[i]-1e-6:
			end = "upper"
		case i < len(s.hs.lo) && theta[i] <= s.hs.lo[i]+1e-6:
			end = "lower"
		default:
			continue
		}
		name := fmt.Sprintf("θ[%d]", i)
		if s.hs.name != nil {
			name = s.hs.name(i)
		}
		out = append(out, fmt.Sprintf("type-II ML stopped %s at the %s end of its search range: the evidence still grows beyond it (as it does with the amplitude on separable classes), so the value is the range's end, not an optimum; the classifier is valid", name, end))
	}
	return out
}

// phase is one L-BFGS optimisation of the coordinates cur (the others at
// base) from one start.
type phase struct {
	s         *searcher
	si        int
	base      []float64
	cur       []int
	evals     int
	rejectedF bool // the last evaluation was rejected
	// a two-point cache: the last point and the best point of the
	// phase (Func and Grad are called separately at the same point;
	// restarts begin at the best point)
	cacheX, cacheG, bestX, bestG []float64
	cacheF, bestF                float64
	worstF                       float64 // largest finite objective evaluated (rejections are set above it)
	// best −log Z of the current L-BFGS run and the evaluations since
	// it last improved (hyperSearch.stall)
	runBest float64
	stalled int
}

// full returns the full θ of the phase's point x (clamped into the box),
// the box penalty and its gradient.
func (p *phase) full(x []float64) ([]float64, float64, []float64) {
	hs := p.s.hs
	th := append([]float64(nil), p.base...)
	var pen float64
	dpen := make([]float64, len(x))
	for k, i := range p.cur {
		v := x[k]
		if v < hs.lo[i] {
			pen += 50 * (v - hs.lo[i]) * (v - hs.lo[i])
			dpen[k] = 100 * (v - hs.lo[i])
			v = hs.lo[i]
		} else if v > hs.hi[i] {
			pen += 50 * (v - hs.hi[i]) * (v - hs.hi[i])
			dpen[k] = 100 * (v - hs.hi[i])
			v = hs.hi[i]
		}
		th[i] = v
	}
	return th, pen, dpen
}

// eval is the objective −log Z + penalty and its gradient at x.
func (p *phase) eval(x []float64) (float64, []float64) {
	s := p.s
	if p.cacheX != nil && equalSlices(p.cacheX, x) {
		return p.cacheF, p.cacheG
	}
	if p.bestX != nil && equalSlices(p.bestX, x) {
		// an L-BFGS restart from the best point of the last run
		return p.bestF, p.bestG
	}
	if s.ctx.Err() != nil {
		// Minimize is stopped through Status; until it looks, the
		// objective refuses every point.
		return math.Inf(1), make([]float64, len(x))
	}
	th, pen, dpen := p.full(x)
	farPen := s.hs.farPenalty
	if farPen == 0 {
		farPen = defaultFarPenalty
	}
	if pen > farPen && !math.IsInf(p.bestF, 1) {
		// Far outside the box (see defaultFarPenalty): no EP run.
		grad := append([]float64(nil), dpen...)
		f := p.bestF + pen
		p.cacheX, p.cacheF, p.cacheG = append(p.cacheX[:0], x...), f, grad
		return f, grad
	}
	var lz float64
	var g []float64
	var err error
	if pen == 0 && s.screened.theta != nil && equalSlices(th, s.screened.theta) {
		lz, g = s.screened.logZ, s.screened.grad
		s.screened.theta = nil
	} else {
		lz, g, err = s.evaluate(th)
		p.evals++
	}
	if s.tick != nil {
		s.tick((float64(p.si)+math.Min(1, float64(p.evals)/float64(3*s.maxIter)))/float64(s.nStarts),
			fmt.Sprintf("start %d of %d, evidence %d", p.si+1, s.nStarts, p.evals))
	}
	grad := make([]float64, len(x))
	var f float64
	p.rejectedF = err != nil
	if err != nil {
		// Rejected (see optimizeHyper): worse than every evaluated point.
		f = math.Inf(1)
		if !math.IsInf(p.worstF, -1) {
			f = p.worstF + 1 + math.Abs(p.worstF)
		}
		p.stalled++
	} else {
		f = -lz + pen
		if math.IsInf(p.runBest, 1) || f < p.runBest-1e-7*(1+math.Abs(p.runBest)) {
			p.runBest, p.stalled = f, 0
		} else {
			p.stalled++
		}
		p.worstF = math.Max(p.worstF, f)
		for k, i := range p.cur {
			grad[k] = -g[i] + dpen[k]
		}
		if lz > s.best.logZ && pen == 0 {
			s.best.logZ = lz
			s.best.theta = th
		}
	}
	p.cacheX, p.cacheF, p.cacheG = append(p.cacheX[:0], x...), f, grad
	if err == nil && (math.IsInf(p.bestF, 1) || f < p.bestF) {
		p.bestX, p.bestF, p.bestG = append(p.bestX[:0], x...), f, grad
	}
	return f, grad
}

// minimize runs L-BFGS from x0. A line search that fails on the slightly
// noisy EP evidence (or on a poor curvature memory near a bound) ends a
// run; L-BFGS is then restarted from the point reached with an empty
// memory, at most twice. Other statuses are final. It returns the last
// point and whether a run met its convergence test; a nil point when the
// evaluation at x0 was rejected.
func (p *phase) minimize(x0 []float64) ([]float64, bool, error) {
	s := p.s
	prob := optimize.Problem{
		Func: func(x []float64) float64 { f, _ := p.eval(x); return f },
		Grad: func(grad, x []float64) { _, g := p.eval(x); copy(grad, g) },
		Status: func() (optimize.Status, error) {
			if err := s.ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			if s.hs.stall > 0 && p.stalled >= s.hs.stall {
				return optimize.Failure, errStalled
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-4,
		// Stop when −log Z improved by less than 1e-6·|f| + 1e-6 over 2
		// major iterations: at the search's EP tolerance (1e-6 on the
		// evidence, 1e-3 on the sites) smaller gains are below the
		// accuracy of the evidence itself. (1e-7 over 3 iterations cost
		// GPC+ about 40 % more evaluations for changes < 1e-6.)
		Converger:       &flatConverge{FunctionConverge: optimize.FunctionConverge{Absolute: 1e-6, Relative: 1e-6, Iterations: 2}, gmax: 1e-3},
		MajorIterations: s.maxIter,
		FuncEvaluations: 3 * s.maxIter,
	}
	lastX := x0
	converged := false
	for run := 0; run < 3; run++ {
		p.runBest, p.stalled = math.Inf(1), 0
		fStart, _ := p.eval(x0)
		if run == 0 && p.rejectedF {
			return nil, false, nil
		}
		res, err := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{Store: 7, Linesearcher: &optimize.MoreThuente{}})
		if cerr := s.ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		if res == nil {
			break
		}
		lastX = res.X
		if err == nil {
			switch res.Status {
			case optimize.GradientThreshold, optimize.FunctionConvergence, optimize.MethodConverge:
				converged = true
			}
			break
		}
		// Restart only a run that was still making progress: one that
		// improved −log Z by less than the convergence tolerance ends
		// the start (converged if its gradient is small).
		if math.IsInf(res.F, 0) || math.IsNaN(res.F) || !(fStart-res.F > 1e-6*(1+math.Abs(res.F))) {
			if infNorm(res.Gradient) < 1e-2 {
				converged = true
			}
			break
		}
		x0 = append(x0[:0], res.X...)
	}
	return lastX, converged, nil
}

// defaultFarPenalty (hyperSearch.farPenalty): a trial point whose box penalty exceeds it (more than
// √(farPenalty/50) = 1.4 beyond a bound in log-parameters, i.e. a factor of
// four past length-scale bounds that already span 10⁻³…10⁴) is not evaluated.
// L-BFGS proposes such points when its curvature memory is degenerate along
// a nearly flat direction of the evidence (wdbc's g length-scale: a step to
// (ℓ_f, ℓ_g, m_g) = (e⁶⁵, e⁻²⁷³, −60)); an EP run at the clamped point costs
// as many sweeps as a cold start, and it leaves the next warm start far from
// where the line search returns. The objective there is the phase's best value
// plus the penalty (the penalty alone is 10³ times any evidence difference
// the search meets), its gradient the penalty's, so the line search backs off
// exactly as it would from the evaluated point.
const defaultFarPenalty = 100.0

// flatConverge is optimize.FunctionConverge that only accepts a stalled
// objective where the gradient is small too (‖∇‖∞ ≤ gmax): on a nearly flat
// evidence (e.g. GPC's amplitude on separable data) the evidence may change
// by less than the tolerance per iteration while the length-scales are still
// far from stationary.
type flatConverge struct {
	optimize.FunctionConverge
	gmax float64
}

// Converged implements optimize.Converger.
func (c *flatConverge) Converged(l *optimize.Location) optimize.Status {
	st := c.FunctionConverge.Converged(l)
	if st != optimize.NotTerminated && l.Gradient != nil && infNorm(l.Gradient) > c.gmax {
		return optimize.NotTerminated
	}
	return st
}

// sameStart reports whether two starts agree to 10⁻⁴ in every
// log-parameter (0.01 %): a length-scale given as the median distance to six
// digits (the gpcplus experiment) is the median-distance start, and
// screening it again would cost an EP run for nothing.
func sameStart(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-4 {
			return false
		}
	}
	return true
}

func infNorm(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortFloats(a []float64) { sort.Float64s(a) }
