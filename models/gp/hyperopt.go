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
	starts         [][]float64 // extra deterministic starting points (full vectors)
	restarts       int         // random restarts in addition to the starts
	maxIter        int
	seed           int64
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
}

// errStalled ends an L-BFGS run that stopped improving (hyperSearch.stall).
var errStalled = errors.New("type-II ML: no evidence gain over several evaluations")

type searchResult struct {
	theta       []float64
	logZ        float64
	evaluations int
	converged   bool
	warnings    []string
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
func optimizeHyper(ctx context.Context, hs hyperSearch, ev evidenceFunc, tick func(frac float64, msg string)) (*searchResult, error) {
	var idx []int
	for i, f := range hs.free {
		if f {
			idx = append(idx, i)
		}
	}
	// base and cur are the fixed coordinates' values and the optimised
	// coordinates of the current phase (see the active-set step below).
	base, cur := hs.theta0, idx
	full := func(x []float64) ([]float64, float64, []float64) {
		th := append([]float64(nil), base...)
		var pen float64
		dpen := make([]float64, len(x))
		for k, i := range cur {
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
	best := &searchResult{logZ: math.Inf(-1)}
	// The deterministic starts (θ0 and hs.starts) are screened by their
	// evidence and only the best one is optimised; random restarts are
	// optimised each.
	starts := [][]float64{hs.theta0}
	// screened keeps the evidence of the chosen deterministic start, so that
	// the first evaluation of its L-BFGS run is not repeated.
	var screened struct {
		theta, grad []float64
		logZ        float64
	}
	if len(hs.starts) > 0 && len(idx) > 0 {
		bestStart, bestLZ := hs.theta0, math.Inf(-1)
		for k, s := range append([][]float64{hs.theta0}, hs.starts...) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if k > 0 && sameStart(s, hs.theta0) {
				continue
			}
			lz, g, err := ev(s)
			best.evaluations++
			if err == nil && lz > bestLZ {
				bestStart, bestLZ = s, lz
				screened.theta, screened.grad, screened.logZ = s, g, lz
			}
		}
		starts[0] = bestStart
	}
	rng := rand.New(rand.NewPCG(uint64(hs.seed), 0x9e3779b97f4a7c15))
	for r := 0; r < hs.restarts; r++ {
		s := append([]float64(nil), hs.theta0...)
		for _, i := range idx {
			s[i] += rng.NormFloat64()
			s[i] = math.Max(hs.lo[i], math.Min(hs.hi[i], s[i]))
		}
		starts = append(starts, s)
	}
	if len(idx) == 0 {
		starts = starts[:1]
	}
	maxIter := hs.maxIter
	if maxIter <= 0 {
		maxIter = 60
	}
	anyConverged := false
	var lastErr error
	for si, s := range starts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Active set: when a run ends with coordinates at their bounds
		// (e.g. GPC's amplitude on separable data, where the evidence keeps
		// growing with it), they are fixed there and L-BFGS runs again on
		// the others; the quadratic penalty alone leaves L-BFGS stalled on
		// the kink with the free coordinates unconverged.
		base, cur = hs.theta0, idx
		for phase := 0; phase < 2; phase++ {
			x0 := make([]float64, len(cur))
			for k, i := range cur {
				x0[k] = s[i]
			}
			// a two-point cache: the last point and the best point of the
			// phase (Func and Grad are called separately at the same point;
			// restarts begin at the best point)
			var cacheX, cacheG, bestX, bestG []float64
			var cacheF float64
			bestF := math.Inf(1)
			// best −log Z of the current L-BFGS run and the evaluations since
			// it last improved (hyperSearch.stall)
			runBest, stalled := math.Inf(1), 0
			evals := 0
			eval := func(x []float64) (float64, []float64) {
				if cacheX != nil && equalSlices(cacheX, x) {
					return cacheF, cacheG
				}
				if bestX != nil && equalSlices(bestX, x) {
					// an L-BFGS restart from the best point of the last run
					return bestF, bestG
				}
				if ctx.Err() != nil {
					// Minimize is stopped through Status; until it looks, the
					// objective refuses every point.
					return math.Inf(1), make([]float64, len(x))
				}
				th, pen, dpen := full(x)
				if pen > farPenalty && !math.IsInf(bestF, 1) {
					// Far outside the box (see farPenalty): no EP run.
					grad := append([]float64(nil), dpen...)
					f := bestF + pen
					cacheX, cacheF, cacheG = append(cacheX[:0], x...), f, grad
					return f, grad
				}
				var lz float64
				var g []float64
				var err error
				if pen == 0 && screened.theta != nil && equalSlices(th, screened.theta) {
					lz, g = screened.logZ, screened.grad
					screened.theta = nil
				} else {
					lz, g, err = ev(th)
					evals++
					best.evaluations++
				}
				if tick != nil {
					tick((float64(si)+math.Min(1, float64(evals)/float64(3*maxIter)))/float64(len(starts)),
						fmt.Sprintf("start %d of %d, evidence %d", si+1, len(starts), evals))
				}
				f := math.Inf(1)
				grad := make([]float64, len(x))
				keepBest := false
				if err == nil && !math.IsNaN(lz) && !math.IsInf(lz, 0) {
					f = -lz + pen
					if math.IsInf(runBest, 1) || f < runBest-1e-7*(1+math.Abs(runBest)) {
						runBest, stalled = f, 0
					} else {
						stalled++
					}
					keepBest = math.IsInf(bestF, 1) || f < bestF
					for k, i := range cur {
						grad[k] = -g[i] + dpen[k]
					}
					if lz > best.logZ && pen == 0 {
						best.logZ = lz
						best.theta = th
					}
				} else if err != nil {
					lastErr = err
				}
				cacheX, cacheF, cacheG = append(cacheX[:0], x...), f, grad
				if keepBest {
					bestX, bestF, bestG = append(bestX[:0], x...), f, grad
				}
				return f, grad
			}
			if len(idx) == 0 {
				eval(x0)
				anyConverged = true
				break
			}
			prob := optimize.Problem{
				Func: func(x []float64) float64 { f, _ := eval(x); return f },
				Grad: func(grad, x []float64) { _, g := eval(x); copy(grad, g) },
				Status: func() (optimize.Status, error) {
					if err := ctx.Err(); err != nil {
						return optimize.Failure, err
					}
					if hs.stall > 0 && stalled >= hs.stall {
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
				MajorIterations: maxIter,
				FuncEvaluations: 3 * maxIter,
			}
			// A line search that fails on the slightly noisy EP evidence (or on a
			// poor curvature memory near a bound) ends a run; L-BFGS is then
			// restarted from the point reached with an empty memory, at most
			// twice. Other statuses are final.
			lastX := x0
			phaseConverged := false
			for run := 0; run < 3; run++ {
				runBest, stalled = math.Inf(1), 0
				fStart, _ := eval(x0)
				res, err := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{Store: 7, Linesearcher: &optimize.MoreThuente{}})
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
				if res == nil {
					break
				}
				lastX = res.X
				if err == nil {
					switch res.Status {
					case optimize.GradientThreshold, optimize.FunctionConvergence, optimize.MethodConverge:
						phaseConverged = true
					}
					break
				}
				// Restart only a run that was still making progress: one that
				// improved −log Z by less than the convergence tolerance ends
				// the start (converged if its gradient is small).
				if math.IsInf(res.F, 0) || math.IsNaN(res.F) || !(fStart-res.F > 1e-6*(1+math.Abs(res.F))) {
					if infNorm(res.Gradient) < 1e-2 {
						phaseConverged = true
					}
					break
				}
				x0 = append(x0[:0], res.X...)
			}
			th, _, _ := full(lastX)
			var keep []int
			for k, i := range cur {
				if lastX[k] > hs.lo[i]+1e-8 && lastX[k] < hs.hi[i]-1e-8 {
					keep = append(keep, i)
				}
			}
			if phase == 1 || len(keep) == len(cur) || len(keep) == 0 {
				anyConverged = anyConverged || phaseConverged
				break
			}
			base, cur, s = th, keep, th
			cacheX = nil
		}
	}
	if best.theta == nil {
		if lastErr != nil {
			return nil, fmt.Errorf("no hyper-parameters gave a finite EP evidence: %w", lastErr)
		}
		return nil, errors.New("no hyper-parameters gave a finite EP evidence")
	}
	best.converged = anyConverged
	if !anyConverged && len(idx) > 0 {
		best.warnings = append(best.warnings, fmt.Sprintf("type-II ML: no L-BFGS run met its convergence test within %d iterations; the best evidence found is used", maxIter))
	}
	return best, nil
}

// farPenalty: a trial point whose box penalty exceeds it (more than
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
var farPenalty = 100.0

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
