package qp

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
)

// progressBlockN is the problem size from which Options.Progress is also
// called inside factorisations (every 64 block columns of the Cholesky).
const progressBlockN = 256

// eps is the float64 unit roundoff.
const eps = 0x1p-52

// stallInfeasTol is the certificate tolerance accepted when the iteration
// stalls on its way to τ = 0.
const stallInfeasTol = 1e-6

// maxCorrectors is the number of Gondzio centrality correctors tried per
// iteration (each costs one solve, not a factorisation).
const maxCorrectors = 2

// iterate is the homogeneous-embedding state.
type iterate struct {
	x, y, z, s []float64
	tau, kappa float64
}

// residuals of the embedding at an iterate (see the package comment).
type residuals struct {
	rx, ry, rz []float64
	rtau       float64
	px         []float64 // Px
	gx         []float64 // Gx
	ex         []float64 // Ex
	eTy, gTz   []float64
	xPx        float64
}

func (s *setup) residuals(it *iterate, r *residuals) {
	s.pMul(it.x, r.px)
	r.xPx = floats.Dot(it.x, r.px)
	for i := range r.eTy {
		r.eTy[i], r.gTz[i] = 0, 0
	}
	s.eTMulAdd(1, it.y, r.eTy)
	s.gTMulAdd(1, it.z, r.gTz)
	for i := range r.rx {
		r.rx[i] = r.px[i] + r.eTy[i] + r.gTz[i] + s.q[i]*it.tau
	}
	for i := range r.ex {
		r.ex[i] = 0
	}
	s.eMulAdd(1, it.x, r.ex)
	for i := range r.ry {
		r.ry[i] = r.ex[i] - s.d[i]*it.tau
	}
	s.gMul(it.x, r.gx)
	for i := range r.rz {
		r.rz[i] = r.gx[i] + it.s[i] - s.h[i]*it.tau
	}
	r.rtau = it.kappa + floats.Dot(s.q, it.x) + floats.Dot(s.d, it.y) + floats.Dot(s.h, it.z) + r.xPx/it.tau
}

// solve runs the interior-point iteration on s with the KKT solver k (whose
// buffers may already have been used as scratch) and maps the outcome back.
func (s *setup) solve(ctx context.Context, k *kkt, opt Options) (*Result, error) {
	e := newIPM(ctx, s, k, opt)
	if err := e.start(); err != nil {
		return nil, err
	}
	status, err := e.run()
	if err != nil {
		return nil, err
	}
	return e.finish(status)
}

// ipm is the state of one interior-point run: the iterate and its
// residuals, the work vectors of the directions (allocated once), and what
// the stopping rules remember from iteration to iteration.
type ipm struct {
	ctx  context.Context
	s    *setup
	k    *kkt
	opt  Options
	it   *iterate
	r    *residuals
	iter int

	negq                    []float64
	x1, y1, z1              []float64 // the τ-direction
	x2, y2, z2              []float64 // a direction's solve
	dxa, dya, dza, dsa      []float64 // the step direction
	r1, r2, r3              []float64 // right-hand sides
	ds                      []float64
	dxc, dyc, dzc, dsc, dsC []float64 // a centrality corrector's direction
	w                       []float64 // the scaling z/s
	qp2                     []float64 // q + 2Pξ
	tau, den                float64   // of the current iteration's τ-direction
	normQ, normH, normD     float64   // scales of the relative stopping tests
	stallCount              int
	lastStep, mu0           float64
	prevP, prevD            float64 // certificate ratios of the previous iteration
	best                    *iterate
	bestMeasure             float64
	bestIter                int
}

func newIPM(ctx context.Context, s *setup, k *kkt, opt Options) *ipm {
	n, m, pE := s.n, s.m, s.pE
	vec := func(l int) []float64 { return make([]float64, l) }
	e := &ipm{ctx: ctx, s: s, k: k, opt: opt,
		it:   &iterate{x: vec(n), y: vec(pE), z: vec(m), s: vec(m), tau: 1, kappa: 1},
		r:    &residuals{rx: vec(n), ry: vec(pE), rz: vec(m), px: vec(n), gx: vec(m), ex: vec(pE), eTy: vec(n), gTz: vec(n)},
		negq: vec(n), x1: vec(n), y1: vec(pE), z1: vec(m), x2: vec(n), y2: vec(pE), z2: vec(m),
		dxa: vec(n), dya: vec(pE), dza: vec(m), dsa: vec(m), r1: vec(n), r2: vec(pE), r3: vec(m), ds: vec(m),
		dxc: vec(n), dyc: vec(pE), dzc: vec(m), dsc: vec(m), dsC: vec(m), w: vec(m), qp2: vec(n),
		prevP: math.Inf(1), prevD: math.Inf(1),
		best:        &iterate{x: vec(n), y: vec(pE), z: vec(m), s: vec(m)},
		bestMeasure: math.Inf(1),
	}
	for i, v := range s.q {
		e.negq[i] = -v
	}
	// tick runs between blocks of each factorisation: cancellation is
	// honoured within an iteration, and for large problems Progress is also
	// called there (same iteration number) so a browser caller can yield.
	k.tick = e.tick
	return e
}

func (e *ipm) tick() error {
	if e.opt.Progress != nil && e.s.n >= progressBlockN {
		e.opt.Progress(e.iter)
	}
	return e.ctx.Err()
}

// start sets the initial point (as cvxopt's coneqp): with W = I solve
// min ½xᵀPx + qᵀx + ½‖s‖² s.t. Gx + s = h, Ex = d, then shift s and z
// into the positive orthant.
func (e *ipm) start() error {
	s, k, it := e.s, e.k, e.it
	for i := range e.w {
		e.w[i] = 1
	}
	if ok, err := k.factor(e.w, e.tick); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: could not factorise the initial KKT system", ErrInput)
	}
	k.solve(e.negq, s.d, s.h, it.x, it.y, e.z1)
	if k.tickErr != nil {
		return k.tickErr
	}
	if s.m > 0 {
		for i := range e.z1 {
			it.s[i] = -e.z1[i]
		}
		shift := func(v []float64) {
			a := -floats.Min(v)
			if a >= 0 {
				for i := range v {
					v[i] += 1 + a
				}
			}
		}
		copy(it.z, e.z1)
		shift(it.s)
		shift(it.z)
	}
	e.normQ, e.normH, e.normD = normInf(s.q), normInf(s.h), normInf(s.d)
	return nil
}

// measures are an iteration's objectives and stopping measures on the
// de-homogenised point.
type measures struct {
	pobj, dobj, relP, relD, relGap, mu float64
}

func (e *ipm) measure() measures {
	s, it, r := e.s, e.it, e.r
	s.residuals(it, r)
	tau := it.tau
	xPxbar := r.xPx / (tau * tau)
	qx := floats.Dot(s.q, it.x) / tau
	var m measures
	m.pobj = 0.5*xPxbar + qx
	m.dobj = -0.5*xPxbar - (floats.Dot(s.d, it.y)+floats.Dot(s.h, it.z))/tau
	sz := floats.Dot(it.s, it.z) / (tau * tau)
	// Primal scale from the data only (b, d, bounds): a residual that
	// is small only relative to a huge ‖Ax‖ must not pass, or the x/τ
	// → ∞ of an infeasible problem would. Rounding in Ax, Ex is allowed
	// on top (pfloor).
	pscale := 1 + math.Max(e.normD, e.normH)
	pfloor := 100 * eps * math.Max(normInf(r.ex), normInf(r.gx)) / tau
	dscale := 1 + math.Max(e.normQ, math.Max(normInf(r.px), math.Max(normInf(r.eTy), normInf(r.gTz)))/tau)
	m.relP = math.Max(0, math.Max(normInf(r.ry), normInf(r.rz))/tau-pfloor) / pscale
	m.relD = normInf(r.rx) / tau / dscale
	gap := math.Max(math.Abs(m.pobj-m.dobj), sz)
	m.relGap = gap / math.Max(1, math.Min(math.Abs(m.pobj), math.Abs(m.dobj)))
	m.mu = (floats.Dot(it.s, it.z) + it.tau*it.kappa) / float64(s.m+1)
	return m
}

// run iterates until a stopping rule holds and returns the status.
func (e *ipm) run() (Status, error) {
	for ; ; e.iter++ {
		m := e.measure()
		if status, done := e.check(m); done {
			return status, nil
		}
		if e.opt.Trace != nil {
			e.opt.Trace(Info{Iter: e.iter, PrimalObj: m.pobj / e.s.cost, DualObj: m.dobj / e.s.cost, PrimalRes: m.relP, DualRes: m.relD, Gap: m.relGap,
				Mu: m.mu, Tau: e.it.tau, Kappa: e.it.kappa, Step: e.lastStep, Regularization: e.k.reg})
		}
		if e.iter >= e.opt.MaxIter {
			return StatusMaxIter, nil
		}
		if err := e.ctx.Err(); err != nil {
			return 0, err
		}
		if e.opt.Progress != nil {
			e.opt.Progress(e.iter)
		}
		if e.iter == 0 {
			e.mu0 = m.mu
		}
		if e.stallCount >= 5 || m.mu < 1e-30*e.mu0 {
			// Tiny steps, or μ collapsing far below any useful accuracy
			// without convergence (τ and κ both → 0: an ill-posed problem).
			return StatusStalled, nil
		}
		if moved, err := e.step(m.mu); err != nil || !moved {
			return StatusStalled, err
		}
	}
}

// check applies the stopping rules that end a run at an iterate
// (optimality, the certificates, NaN) and remembers the best iterate.
func (e *ipm) check(m measures) (Status, bool) {
	it := e.it
	// κ < τ: an optimal solution of the embedding has τ > 0 = κ, while
	// τ → 0 < κ means infeasibility; without this guard x/τ → ∞ could
	// make the relative residuals of an infeasible problem look small.
	if m.relP <= e.opt.Tol && m.relD <= e.opt.Tol && m.relGap <= e.opt.Tol && it.kappa < it.tau {
		return StatusOptimal, true
	}
	// Certificates (only once τ has fallen below κ, i.e. the embedding
	// is heading for τ = 0).
	if it.tau < it.kappa {
		pRatio, dRatio := e.s.primalCertRatio(it, e.r), e.s.dualCertRatio(it, e.r)
		tol := e.opt.InfeasTol
		if it.tau < 1e-10*it.kappa && pRatio > 0.5*e.prevP && dRatio > 0.5*e.prevD {
			// τ is numerically zero and the certificates have stopped
			// improving (x/τ and the KKT weights have exploded):
			// accept one at the looser tolerance.
			tol = math.Max(tol, stallInfeasTol)
		}
		e.prevP, e.prevD = pRatio, dRatio
		if pRatio <= tol {
			e.opt.InfeasTol = tol
			return StatusInfeasible, true
		}
		if dRatio <= tol {
			e.opt.InfeasTol = tol
			return StatusUnbounded, true
		}
	}
	if math.IsNaN(m.relP) || math.IsNaN(m.relD) || math.IsNaN(m.relGap) || math.IsNaN(m.mu) {
		return StatusStalled, true
	}
	if meas := math.Max(m.relP, math.Max(m.relD, m.relGap)); meas < e.bestMeasure {
		e.bestMeasure, e.bestIter = meas, e.iter
		copyIterate(e.best, it)
	}
	return 0, false
}

// step factorises the reduced KKT system at the iterate, computes the
// Mehrotra predictor–corrector direction with up to maxCorrectors
// centrality correctors, and moves along it; moved is false when the
// iteration cannot go on (the factorisation failed, or no positive step).
func (e *ipm) step(mu float64) (moved bool, err error) {
	s, k, it, r := e.s, e.k, e.it, e.r
	for i := range e.w {
		// Capped so that an s that underflows cannot make H infinite.
		e.w[i] = math.Min(it.z[i]/it.s[i], 1e30)
	}
	if ok, err := k.factor(e.w, e.tick); err != nil || !ok {
		return false, err
	}
	// τ-direction: K v1 = [−q; d; h].
	k.solve(e.negq, s.d, s.h, e.x1, e.y1, e.z1)
	e.tau = it.tau
	xi := 1 / e.tau
	for i := range e.qp2 {
		e.qp2[i] = s.q[i] + 2*r.px[i]*xi
	}
	xiPxi := r.xPx * xi * xi
	e.den = -it.kappa/e.tau + floats.Dot(e.qp2, e.x1) + floats.Dot(s.d, e.y1) + floats.Dot(s.h, e.z1) - xiPxi

	// Predictor (affine scaling): η = 1, d_s = s∘z, d_κ = τκ.
	for i := range e.ds {
		e.ds[i] = it.s[i] * it.z[i]
	}
	dtauA, dkapA := e.direction(1, e.ds, it.tau*it.kappa, e.dxa, e.dya, e.dza, e.dsa)
	alphaA := math.Min(1, maxStep(it, e.dza, e.dsa, dtauA, dkapA))
	muA := 0.0
	for i := range it.s {
		muA += (it.s[i] + alphaA*e.dsa[i]) * (it.z[i] + alphaA*e.dza[i])
	}
	muA += (it.tau + alphaA*dtauA) * (it.kappa + alphaA*dkapA)
	muA /= float64(s.m + 1)
	sigma := math.Min(1, math.Pow(math.Max(muA, 0)/mu, 3))

	// Corrector: η = 1 − σ, d_s = s∘z + Δs_a∘Δz_a − σμ, d_κ likewise.
	for i := range e.ds {
		e.ds[i] = it.s[i]*it.z[i] + e.dsa[i]*e.dza[i] - sigma*mu
	}
	dK := it.tau*it.kappa + dtauA*dkapA - sigma*mu
	// Reuse the affine buffers for the combined direction.
	dtau, dkap := e.direction(1-sigma, e.ds, dK, e.dxa, e.dya, e.dza, e.dsa)
	alphaMax := maxStep(it, e.dza, e.dsa, dtau, dkap)
	if k.tickErr != nil {
		return false, k.tickErr
	}
	dtau, dkap, alphaMax = e.centrality(sigma, mu, dK, dtau, dkap, alphaMax)
	if k.tickErr != nil {
		return false, k.tickErr
	}
	alpha := math.Min(1, 0.99*alphaMax)
	if !(alpha > 0) || math.IsNaN(alpha) {
		return false, nil
	}
	if alpha < 1e-8 {
		e.stallCount++
	} else {
		e.stallCount = 0
	}
	e.lastStep = alpha
	floats.AddScaled(it.x, alpha, e.dxa)
	floats.AddScaled(it.y, alpha, e.dya)
	floats.AddScaled(it.z, alpha, e.dza)
	floats.AddScaled(it.s, alpha, e.dsa)
	it.tau += alpha * dtau
	it.kappa += alpha * dkap
	return true, nil
}

// centrality applies Gondzio's multiple centrality correctors (Gondzio
// 1996, "Multiple centrality corrections in a primal-dual method for
// linear programming"; Colombo & Gondzio 2008) to the direction in the
// step buffers (right-hand side e.ds, dK; σ and μ): aim at a longer trial
// step α̃ and correct the complementarity products at the trial point that
// leave [0.1σμ, 10σμ]. Each costs one solve with the existing
// factorisation; it is kept only if it lengthens the step enough.
func (e *ipm) centrality(sigma, mu, dK, dtau, dkap, alphaMax float64) (float64, float64, float64) {
	it := e.it
	smu := sigma * mu
	lo, hi := 0.1*smu, 10*smu
	proj := func(v float64) float64 {
		switch {
		case v < lo:
			return lo - v
		case v > hi:
			return math.Max(hi-v, -hi)
		}
		return 0
	}
	for corr := 0; corr < maxCorrectors && alphaMax < 1; corr++ {
		trial := math.Min(1, alphaMax+0.2)
		for i := range e.ds {
			e.dsC[i] = e.ds[i] - proj((it.s[i]+trial*e.dsa[i])*(it.z[i]+trial*e.dza[i]))
		}
		dKC := dK - proj((it.tau+trial*dtau)*(it.kappa+trial*dkap))
		dtauC, dkapC := e.direction(1-sigma, e.dsC, dKC, e.dxc, e.dyc, e.dzc, e.dsc)
		aC := maxStep(it, e.dzc, e.dsc, dtauC, dkapC)
		if !(aC >= alphaMax+0.02) {
			break
		}
		e.dxa, e.dxc = e.dxc, e.dxa
		e.dya, e.dyc = e.dyc, e.dya
		e.dza, e.dzc = e.dzc, e.dza
		e.dsa, e.dsc = e.dsc, e.dsa
		e.ds, e.dsC = e.dsC, e.ds
		dK, dtau, dkap, alphaMax = dKC, dtauC, dkapC, aC
	}
	return dtau, dkap, alphaMax
}

// direction solves K v2 = [−η r_x; −η r_y; −η r_z + d_s/z] and combines
// it with the τ-direction v1 into (dx, dy, dz, ds, dτ, dκ).
func (e *ipm) direction(eta float64, dS []float64, dK float64, dx, dy, dz, dsv []float64) (dtau, dkap float64) {
	s, it, r := e.s, e.it, e.r
	for i := range e.r1 {
		e.r1[i] = -eta * r.rx[i]
	}
	for i := range e.r2 {
		e.r2[i] = -eta * r.ry[i]
	}
	for i := range e.r3 {
		e.r3[i] = -eta*r.rz[i] + dS[i]/it.z[i]
	}
	e.k.solve(e.r1, e.r2, e.r3, e.x2, e.y2, e.z2)
	num := -eta*r.rtau + dK/e.tau - floats.Dot(e.qp2, e.x2) - floats.Dot(s.d, e.y2) - floats.Dot(s.h, e.z2)
	dtau = num / e.den
	for i := range dx {
		dx[i] = e.x2[i] + dtau*e.x1[i]
	}
	for i := range dy {
		dy[i] = e.y2[i] + dtau*e.y1[i]
	}
	for i := range dz {
		dz[i] = e.z2[i] + dtau*e.z1[i]
		dsv[i] = (-dS[i] - it.s[i]*dz[i]) / it.z[i]
	}
	dkap = (-dK - it.kappa*dtau) / e.tau
	return dtau, dkap
}

// finish maps the run's outcome back: a stalled run heading for τ = 0
// gets its certificates checked at a looser tolerance, a run that stalled
// or hit the limit returns its best iterate, and infeasible and unbounded
// problems return their errors.
func (e *ipm) finish(status Status) (*Result, error) {
	s, it, r, opt := e.s, e.it, e.r, &e.opt
	if status == StatusStalled && it.tau < it.kappa {
		// The embedding was heading for τ = 0 when it stalled: accept a
		// certificate at a looser tolerance (it still proves that any
		// feasible point, or any bounded objective, is 1/stallInfeasTol
		// away in relative units).
		tol := math.Max(opt.InfeasTol, stallInfeasTol)
		if s.primalCertRatio(it, r) <= tol {
			status = StatusInfeasible
			opt.InfeasTol = tol
		} else if s.dualCertRatio(it, r) <= tol {
			status = StatusUnbounded
			opt.InfeasTol = tol
		}
	}
	if (status == StatusStalled || status == StatusMaxIter) && e.bestMeasure < math.Inf(1) && e.bestIter != e.iter {
		// Return the best iterate seen (the last one may be worse, or NaN).
		copyIterate(it, e.best)
		s.residuals(it, r)
	}
	res := &Result{}
	s.fillResult(it, r, res, status, e.iter, *opt)
	switch status {
	case StatusInfeasible:
		return res, fmt.Errorf("%w: no x satisfies Ax ≤ b, Ex = d, l ≤ x ≤ u; conflicting constraints: %s "+
			"(Farkas certificate in Result.Y/Z/ZLower/ZUpper: ‖Aᵀz + Eᵀy − zLower + zUpper‖∞ ≤ %.0e·(−(bᵀz + dᵀy − lᵀzLower + uᵀzUpper)))",
			ErrInfeasible, conflicting(res), opt.InfeasTol)
	case StatusUnbounded:
		return res, fmt.Errorf("%w: along the direction d in Result.Certificate (largest components %s) the objective falls linearly "+
			"(qᵀd = %.3g < 0) while Pd ≈ 0, Ed ≈ 0, Ad ≤ 0 and the bounds hold (to %.0e relative), so it decreases without limit from any feasible point",
			ErrUnbounded, topIndices(res.Certificate, "x"), floats.Dot(s.q, res.Certificate)/s.cost, opt.InfeasTol)
	}
	return res, nil
}

// conflicting names the constraints carrying the largest Farkas multipliers
// (at most 6 with multiplier ≥ 1e-3 of the largest, which is 1), e.g.
// "A row 3, x[2] ≥ lower".
func conflicting(r *Result) string {
	type item struct {
		name string
		v    float64
	}
	var items []item
	for i, v := range r.Z {
		items = append(items, item{fmt.Sprintf("A row %d", i), v})
	}
	for i, v := range r.Y {
		items = append(items, item{fmt.Sprintf("E row %d", i), math.Abs(v)})
	}
	for i := range r.ZLower {
		items = append(items, item{fmt.Sprintf("x[%d] ≥ lower", i), r.ZLower[i]}, item{fmt.Sprintf("x[%d] ≤ upper", i), r.ZUpper[i]})
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].v > items[b].v })
	out := ""
	for k, it := range items {
		if k == 6 || it.v < 1e-3 {
			if it.v >= 1e-3 {
				out += ", …"
			}
			break
		}
		if k > 0 {
			out += ", "
		}
		out += it.name
	}
	return out
}

// topIndices lists the (at most 6) largest |v[i]| ≥ 1e-3 (‖v‖∞ = 1) as name[i].
func topIndices(v []float64, name string) string {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(v[idx[a]]) > math.Abs(v[idx[b]]) })
	out := ""
	for k, i := range idx {
		if k == 6 || math.Abs(v[i]) < 1e-3 {
			if math.Abs(v[i]) >= 1e-3 {
				out += ", …"
			}
			break
		}
		if k > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s[%d]", name, i)
	}
	return out
}

func copyIterate(dst, src *iterate) {
	copy(dst.x, src.x)
	copy(dst.y, src.y)
	copy(dst.z, src.z)
	copy(dst.s, src.s)
	dst.tau, dst.kappa = src.tau, src.kappa
}

// maxStep returns the largest α with s+αΔs, z+αΔz, τ+αΔτ, κ+αΔκ ≥ 0
// (+Inf if the direction never leaves the orthant).
func maxStep(it *iterate, dz, ds []float64, dtau, dkap float64) float64 {
	a := math.Inf(1)
	for i, v := range dz {
		if v < 0 {
			a = math.Min(a, -it.z[i]/v)
		}
	}
	for i, v := range ds {
		if v < 0 {
			a = math.Min(a, -it.s[i]/v)
		}
	}
	if dtau < 0 {
		a = math.Min(a, -it.tau/dtau)
	}
	if dkap < 0 {
		a = math.Min(a, -it.kappa/dkap)
	}
	return a
}

// primalCertRatio measures the Farkas certificate in (y, z): it returns
// ‖Eᵀy + Gᵀz‖∞ / (−(hᵀz + dᵀy)) when hᵀz + dᵀy < 0 (z ≥ 0 always holds for
// iterates) and +Inf otherwise. A ratio ≤ tol certifies infeasibility: any
// feasible x would need ‖x‖₁ ≥ 1/tol.
func (s *setup) primalCertRatio(it *iterate, r *residuals) float64 {
	bz := floats.Dot(s.h, it.z) + floats.Dot(s.d, it.y)
	if !(bz < 0) {
		return math.Inf(1)
	}
	worst := 0.0
	for i := range r.eTy {
		worst = math.Max(worst, math.Abs(r.eTy[i]+r.gTz[i]))
	}
	return worst / -bz
}

// dualCertRatio measures the recession certificate in x: it returns
// max(‖Px‖∞, ‖Ex‖∞, max(Gx)₊) / (−qᵀx) when qᵀx < 0 and +Inf otherwise.
func (s *setup) dualCertRatio(it *iterate, r *residuals) float64 {
	qx := floats.Dot(s.q, it.x)
	if !(qx < 0) {
		return math.Inf(1)
	}
	worst := math.Max(normInf(r.px), normInf(r.ex))
	for _, v := range r.gx {
		worst = math.Max(worst, v)
	}
	return worst / -qx
}

// fillResult maps the internal iterate back to the user's problem.
func (s *setup) fillResult(it *iterate, r *residuals, res *Result, status Status, iter int, opt Options) {
	n := s.n
	res.Status = status
	res.Converged = status == StatusOptimal
	res.Iter = iter
	res.X = make([]float64, n)
	res.Y = make([]float64, s.pE0)
	res.Z = make([]float64, s.mA0)
	res.ZLower = make([]float64, n)
	res.ZUpper = make([]float64, n)
	xscale := 1 / it.tau
	mscale := 1 / (it.tau * s.cost) // multipliers: undo τ and the cost scale
	switch status {
	case StatusInfeasible:
		// Normalise the multipliers to ‖(y, z)‖∞ = 1.
		mscale = 1 / math.Max(normInf(it.y), normInf(it.z))
	case StatusUnbounded:
		res.Certificate = make([]float64, n)
		nx := normInf(it.x)
		for i := range it.x {
			res.Certificate[i] = it.x[i] / nx
		}
	}
	if status == StatusInfeasible || status == StatusUnbounded {
		res.X = nil
	} else {
		for i := range it.x {
			res.X[i] = it.x[i] * xscale
		}
	}
	// The fixed variables are exact.
	if status != StatusUnbounded && status != StatusInfeasible {
		for _, i := range s.fix {
			res.X[i] = s.lower[i]
		}
	}
	if status != StatusUnbounded {
		for i := 0; i < s.pE0; i++ {
			res.Y[i] = it.y[i] * mscale
		}
		for j, i := range s.rowA {
			res.Z[i] = it.z[j] * mscale
		}
		off := s.mA
		for j, i := range s.lo {
			res.ZLower[i] = it.z[off+j] * mscale
		}
		off += len(s.lo)
		for j, i := range s.up {
			res.ZUpper[i] = it.z[off+j] * mscale
		}
		for j, i := range s.fix {
			v := it.y[s.pE0+j] * mscale
			if v > 0 {
				res.ZUpper[i] = v
			} else {
				res.ZLower[i] = -v
			}
		}
	}
	if status == StatusInfeasible || status == StatusUnbounded {
		return
	}
	s.measure(res, opt)
}

// measure fills Obj, DualObj and the residuals of res from its X and
// multipliers. The work is done on the cost-scaled data (cP, cq) with the
// multipliers times c, where the relative measures are those of the
// stopping test; absolute values are then divided by c.
func (s *setup) measure(res *Result, opt Options) {
	n, c := s.n, s.cost
	px := make([]float64, n)
	s.pMul(res.X, px)
	xPx := floats.Dot(res.X, px)
	obj := 0.5*xPx + floats.Dot(s.q, res.X)
	// Dual residual Px + q + Aᵀz + Eᵀy − zL + zU, and dual objective.
	dr := make([]float64, n)
	for i := range dr {
		dr[i] = px[i] + s.q[i] + c*(res.ZUpper[i]-res.ZLower[i])
	}
	dobj := -0.5 * xPx
	pres := 0.0
	for j, i := range s.rowA {
		row := s.a[j*n : (j+1)*n]
		floats.AddScaled(dr, c*res.Z[i], row)
		dobj -= s.h[j] * c * res.Z[i]
		pres = math.Max(pres, floats.Dot(row, res.X)-s.h[j])
	}
	for i := 0; i < s.pE0; i++ {
		row := s.e[i*n : (i+1)*n]
		floats.AddScaled(dr, c*res.Y[i], row)
		dobj -= s.d[i] * c * res.Y[i]
		pres = math.Max(pres, math.Abs(floats.Dot(row, res.X)-s.d[i]))
	}
	for i := 0; i < n; i++ {
		if l := s.lower[i]; !math.IsInf(l, -1) {
			dobj += l * c * res.ZLower[i]
			pres = math.Max(pres, l-res.X[i])
		}
		if u := s.upper[i]; !math.IsInf(u, 1) {
			dobj -= u * c * res.ZUpper[i]
			pres = math.Max(pres, res.X[i]-u)
		}
	}
	dres := normInf(dr)
	// Scale of the dual residual as in the stopping test: the largest of
	// ‖q‖, ‖Px‖, ‖Aᵀz‖, ‖Eᵀy‖ and the bound multipliers (cost-scaled).
	terms := make([]float64, n)
	for j, i := range s.rowA {
		floats.AddScaled(terms, c*res.Z[i], s.a[j*n:(j+1)*n])
	}
	mscale := normInf(terms)
	for i := range terms {
		terms[i] = 0
	}
	for i := 0; i < s.pE0; i++ {
		floats.AddScaled(terms, c*res.Y[i], s.e[i*n:(i+1)*n])
	}
	mscale = math.Max(mscale, normInf(terms))
	mscale = math.Max(mscale, c*math.Max(normInf(res.ZLower), normInf(res.ZUpper)))
	gap := math.Abs(obj - dobj)
	res.Obj = obj / c
	res.DualObj = dobj / c
	res.PrimalRes = pres
	res.DualRes = dres / c
	res.Gap = gap / c
	pscale := 1 + math.Max(normInf(s.h), normInf(s.d))
	dscale := 1 + math.Max(math.Max(normInf(s.q), normInf(px)), mscale)
	res.RelPrimalRes = pres / pscale
	res.RelDualRes = dres / dscale
	res.RelGap = gap / math.Max(1, math.Min(math.Abs(obj), math.Abs(dobj)))
}
