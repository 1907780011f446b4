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
	n, m, pE := s.n, s.m, s.pE
	it := &iterate{x: make([]float64, n), y: make([]float64, pE), z: make([]float64, m), s: make([]float64, m), tau: 1, kappa: 1}
	r := &residuals{rx: make([]float64, n), ry: make([]float64, pE), rz: make([]float64, m),
		px: make([]float64, n), gx: make([]float64, m), ex: make([]float64, pE),
		eTy: make([]float64, n), gTz: make([]float64, n)}

	// Work vectors.
	negq := make([]float64, n)
	for i, v := range s.q {
		negq[i] = -v
	}
	x1, y1, z1 := make([]float64, n), make([]float64, pE), make([]float64, m)
	x2, y2, z2 := make([]float64, n), make([]float64, pE), make([]float64, m)
	dxa, dya, dza, dsa := make([]float64, n), make([]float64, pE), make([]float64, m), make([]float64, m)
	r1, r2, r3 := make([]float64, n), make([]float64, pE), make([]float64, m)
	ds := make([]float64, m)
	// Second direction buffers for the centrality correctors.
	dxc, dyc, dzc, dsc, dsC := make([]float64, n), make([]float64, pE), make([]float64, m), make([]float64, m), make([]float64, m)
	w := make([]float64, m)
	qp2 := make([]float64, n) // q + 2Pξ

	// Initial point (as cvxopt's coneqp): with W = I solve
	// min ½xᵀPx + qᵀx + ½‖s‖² s.t. Gx + s = h, Ex = d, then shift s and z
	// into the positive orthant.
	for i := range w {
		w[i] = 1
	}
	iter := 0
	// tick runs between blocks of each factorisation: cancellation is
	// honoured within an iteration, and for large problems Progress is also
	// called there (same iteration number) so a browser caller can yield.
	tick := func() error {
		if opt.Progress != nil && n >= progressBlockN {
			opt.Progress(iter)
		}
		return ctx.Err()
	}
	k.tick = tick
	if ok, err := k.factor(w, tick); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: could not factorise the initial KKT system", ErrInput)
	}
	k.solve(negq, s.d, s.h, it.x, it.y, z1)
	if k.tickErr != nil {
		return nil, k.tickErr
	}
	if m > 0 {
		for i := range z1 {
			it.s[i] = -z1[i]
		}
		shift := func(v []float64) {
			a := -floats.Min(v)
			if a >= 0 {
				for i := range v {
					v[i] += 1 + a
				}
			}
		}
		copy(it.z, z1)
		shift(it.s)
		shift(it.z)
	}

	// Scales for the relative stopping tests.
	normQ := normInf(s.q)
	normH := normInf(s.h)
	normD := normInf(s.d)

	res := &Result{}
	var status Status
	stallCount := 0
	lastStep, mu0 := 0.0, 0.0
	prevP, prevD := math.Inf(1), math.Inf(1) // certificate ratios of the previous iteration
	// The best iterate so far (by the worst of the three relative measures)
	// is what a run that stalls or hits MaxIter returns.
	best := &iterate{x: make([]float64, n), y: make([]float64, pE), z: make([]float64, m), s: make([]float64, m)}
	bestMeasure := math.Inf(1)
	bestIter := 0
	for ; ; iter++ {
		s.residuals(it, r)
		tau := it.tau
		// Measures on the de-homogenised point.
		xPxbar := r.xPx / (tau * tau)
		qx := floats.Dot(s.q, it.x) / tau
		pobj := 0.5*xPxbar + qx
		dobj := -0.5*xPxbar - (floats.Dot(s.d, it.y)+floats.Dot(s.h, it.z))/tau
		sz := floats.Dot(it.s, it.z) / (tau * tau)
		// Primal scale from the data only (b, d, bounds): a residual that
		// is small only relative to a huge ‖Ax‖ must not pass, or the x/τ
		// → ∞ of an infeasible problem would. Rounding in Ax, Ex is allowed
		// on top (pfloor).
		pscale := 1 + math.Max(normD, normH)
		pfloor := 100 * eps * math.Max(normInf(r.ex), normInf(r.gx)) / tau
		dscale := 1 + math.Max(normQ, math.Max(normInf(r.px), math.Max(normInf(r.eTy), normInf(r.gTz)))/tau)
		relP := math.Max(0, math.Max(normInf(r.ry), normInf(r.rz))/tau-pfloor) / pscale
		relD := normInf(r.rx) / tau / dscale
		gap := math.Max(math.Abs(pobj-dobj), sz)
		relGap := gap / math.Max(1, math.Min(math.Abs(pobj), math.Abs(dobj)))
		mu := (floats.Dot(it.s, it.z) + it.tau*it.kappa) / float64(m+1)

		// κ < τ: an optimal solution of the embedding has τ > 0 = κ, while
		// τ → 0 < κ means infeasibility; without this guard x/τ → ∞ could
		// make the relative residuals of an infeasible problem look small.
		if relP <= opt.Tol && relD <= opt.Tol && relGap <= opt.Tol && it.kappa < it.tau {
			status = StatusOptimal
			break
		}
		// Certificates (only once τ has fallen below κ, i.e. the embedding
		// is heading for τ = 0).
		if it.tau < it.kappa {
			pRatio, dRatio := s.primalCertRatio(it, r), s.dualCertRatio(it, r)
			tol := opt.InfeasTol
			if it.tau < 1e-10*it.kappa && pRatio > 0.5*prevP && dRatio > 0.5*prevD {
				// τ is numerically zero and the certificates have stopped
				// improving (x/τ and the KKT weights have exploded):
				// accept one at the looser tolerance.
				tol = math.Max(tol, stallInfeasTol)
			}
			prevP, prevD = pRatio, dRatio
			if pRatio <= tol {
				status = StatusInfeasible
				opt.InfeasTol = tol
				break
			}
			if dRatio <= tol {
				status = StatusUnbounded
				opt.InfeasTol = tol
				break
			}
		}
		if math.IsNaN(relP) || math.IsNaN(relD) || math.IsNaN(relGap) || math.IsNaN(mu) {
			status = StatusStalled
			break
		}
		if meas := math.Max(relP, math.Max(relD, relGap)); meas < bestMeasure {
			bestMeasure, bestIter = meas, iter
			copyIterate(best, it)
		}
		if opt.Trace != nil {
			opt.Trace(Info{Iter: iter, PrimalObj: pobj / s.cost, DualObj: dobj / s.cost, PrimalRes: relP, DualRes: relD, Gap: relGap,
				Mu: mu, Tau: it.tau, Kappa: it.kappa, Step: lastStep, Regularization: k.reg})
		}
		if iter >= opt.MaxIter {
			status = StatusMaxIter
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(iter)
		}
		if iter == 0 {
			mu0 = mu
		}
		if stallCount >= 5 || mu < 1e-30*mu0 {
			// Tiny steps, or μ collapsing far below any useful accuracy
			// without convergence (τ and κ both → 0: an ill-posed problem).
			status = StatusStalled
			break
		}

		// Factorise the reduced KKT system for this iterate.
		for i := range w {
			// Capped so that an s that underflows cannot make H infinite.
			w[i] = math.Min(it.z[i]/it.s[i], 1e30)
		}
		if ok, err := k.factor(w, tick); err != nil {
			return nil, err
		} else if !ok {
			status = StatusStalled
			break
		}
		// τ-direction: K v1 = [−q; d; h].
		k.solve(negq, s.d, s.h, x1, y1, z1)
		xi := 1 / tau
		for i := range qp2 {
			qp2[i] = s.q[i] + 2*r.px[i]*xi
		}
		xiPxi := r.xPx * xi * xi
		den := -it.kappa/tau + floats.Dot(qp2, x1) + floats.Dot(s.d, y1) + floats.Dot(s.h, z1) - xiPxi

		// direction solves K v2 = [−η r_x; −η r_y; −η r_z + d_s/z] and
		// combines with v1 into (dx, dy, dz, ds, dtau, dkappa).
		direction := func(eta float64, dS []float64, dK float64, dx, dy, dz, dsv []float64) (dtau, dkap float64) {
			for i := range r1 {
				r1[i] = -eta * r.rx[i]
			}
			for i := range r2 {
				r2[i] = -eta * r.ry[i]
			}
			for i := range r3 {
				r3[i] = -eta*r.rz[i] + dS[i]/it.z[i]
			}
			k.solve(r1, r2, r3, x2, y2, z2)
			num := -eta*r.rtau + dK/tau - floats.Dot(qp2, x2) - floats.Dot(s.d, y2) - floats.Dot(s.h, z2)
			dtau = num / den
			for i := range dx {
				dx[i] = x2[i] + dtau*x1[i]
			}
			for i := range dy {
				dy[i] = y2[i] + dtau*y1[i]
			}
			for i := range dz {
				dz[i] = z2[i] + dtau*z1[i]
				dsv[i] = (-dS[i] - it.s[i]*dz[i]) / it.z[i]
			}
			dkap = (-dK - it.kappa*dtau) / tau
			return dtau, dkap
		}

		// Predictor (affine scaling): η = 1, d_s = s∘z, d_κ = τκ.
		for i := range ds {
			ds[i] = it.s[i] * it.z[i]
		}
		dtauA, dkapA := direction(1, ds, it.tau*it.kappa, dxa, dya, dza, dsa)
		alphaA := math.Min(1, maxStep(it, dza, dsa, dtauA, dkapA))
		muA := 0.0
		for i := range it.s {
			muA += (it.s[i] + alphaA*dsa[i]) * (it.z[i] + alphaA*dza[i])
		}
		muA += (it.tau + alphaA*dtauA) * (it.kappa + alphaA*dkapA)
		muA /= float64(m + 1)
		sigma := math.Min(1, math.Pow(math.Max(muA, 0)/mu, 3))

		// Corrector: η = 1 − σ, d_s = s∘z + Δs_a∘Δz_a − σμ, d_κ likewise.
		for i := range ds {
			ds[i] = it.s[i]*it.z[i] + dsa[i]*dza[i] - sigma*mu
		}
		dK := it.tau*it.kappa + dtauA*dkapA - sigma*mu
		// Reuse the affine buffers for the combined direction.
		dtau, dkap := direction(1-sigma, ds, dK, dxa, dya, dza, dsa)
		alphaMax := maxStep(it, dza, dsa, dtau, dkap)

		if k.tickErr != nil {
			return nil, k.tickErr
		}

		// Gondzio's multiple centrality correctors (Gondzio 1996, "Multiple
		// centrality corrections in a primal-dual method for linear
		// programming"; Colombo & Gondzio 2008): aim at a longer trial step
		// α̃ and correct the complementarity products at the trial point
		// that leave [0.1σμ, 10σμ]. Each costs one solve with the existing
		// factorisation; it is kept only if it lengthens the step enough.
		for corr := 0; corr < maxCorrectors && alphaMax < 1; corr++ {
			trial := math.Min(1, alphaMax+0.2)
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
			for i := range ds {
				dsC[i] = ds[i] - proj((it.s[i]+trial*dsa[i])*(it.z[i]+trial*dza[i]))
			}
			dKC := dK - proj((it.tau+trial*dtau)*(it.kappa+trial*dkap))
			dtauC, dkapC := direction(1-sigma, dsC, dKC, dxc, dyc, dzc, dsc)
			aC := maxStep(it, dzc, dsc, dtauC, dkapC)
			if !(aC >= alphaMax+0.02) {
				break
			}
			dxa, dxc = dxc, dxa
			dya, dyc = dyc, dya
			dza, dzc = dzc, dza
			dsa, dsc = dsc, dsa
			ds, dsC = dsC, ds
			dK, dtau, dkap, alphaMax = dKC, dtauC, dkapC, aC
		}
		if k.tickErr != nil {
			return nil, k.tickErr
		}
		alpha := math.Min(1, 0.99*alphaMax)
		if !(alpha > 0) || math.IsNaN(alpha) {
			status = StatusStalled
			break
		}
		if alpha < 1e-8 {
			stallCount++
		} else {
			stallCount = 0
		}
		lastStep = alpha
		floats.AddScaled(it.x, alpha, dxa)
		floats.AddScaled(it.y, alpha, dya)
		floats.AddScaled(it.z, alpha, dza)
		floats.AddScaled(it.s, alpha, dsa)
		it.tau += alpha * dtau
		it.kappa += alpha * dkap
	}
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
	if (status == StatusStalled || status == StatusMaxIter) && bestMeasure < math.Inf(1) && bestIter != iter {
		// Return the best iterate seen (the last one may be worse, or NaN).
		copyIterate(it, best)
		s.residuals(it, r)
	}
	s.fillResult(it, r, res, status, iter, opt)
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
