package ncqp

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"lupilab/models/fastblas"
)

// SoftProblem is the convex problem
//
//	min  ½ xᵀHx + pᵀx + Σ_g ψ_g(Σ_{i∈G_g} xᵢ − c_g)   s.t. x ≥ 0,
//	ψ_g(s) = max_{ξ≥0} [ sξ − (ρ/2)(ξ − ξ⁰_g)² ],
//
// with H positive semidefinite. It is the dual of a QP whose slack ξ_g has a
// linear cost c_g, a proximal term (ρ/2)(ξ − ξ⁰_g)² and enters the
// constraints of the variables of group g with coefficient 1: the
// majorisation step MPWTSVM uses (see models/twin). ψ is convex and C¹ with
// ψ'(s) = max(0, ξ⁰ + s/ρ), which is the slack ξ* at the optimum.
type SoftProblem struct {
	H      Operator
	P      []float64
	Groups [][]int   // disjoint; variables in no group are only x ≥ 0
	C      []float64 // c_g
	Xi0    []float64 // ξ⁰_g ≥ 0
	Rho    float64   // ρ > 0
	X0     []float64 // optional warm start (clipped at 0)
	// Cache, when not nil, keeps the last factorisation of the active-set
	// polish for reuse: the pattern matrix depends only on H, ρ and the
	// pattern, so a sequence of problems with the same H, Groups and Rho
	// (MPWTSVM's majorisation steps) may share one Cache; problems that
	// differ in those must not.
	Cache *SoftCache
}

// SoftCache holds a factorised pattern system of SolveSoft's polish (see
// SoftProblem.Cache). The zero value is empty.
type SoftCache struct {
	free []int
	on   []bool
	kd   []float64         // the pattern matrix
	u    blas64.Triangular // Cholesky factor of kd + δI
}

func (c *SoftCache) matches(free []int, on []bool) bool {
	if c.kd == nil || len(free) != len(c.free) {
		return false
	}
	for a := range free {
		if free[a] != c.free[a] || on[a] != c.on[a] {
			return false
		}
	}
	return true
}

// SoftResult is the minimiser of a SoftProblem.
type SoftResult struct {
	X         []float64
	Xi        []float64 // ψ'_g at X: the slack of each group
	Obj       float64
	Sweeps    int
	Residual  float64 // largest projected-gradient component (absolute)
	Converged bool
}

// SolveSoft minimises a SoftProblem by cyclic coordinate descent with exact
// one-dimensional steps (the objective restricted to one coordinate is a
// convex piecewise quadratic), stopping when the projected gradient is below
// Tol·max(1, ‖p‖∞).
func SolveSoft(ctx context.Context, pr *SoftProblem, opt Options) (*SoftResult, error) {
	grp, diag, tol, err := checkSoft(pr, opt)
	if err != nil {
		return nil, err
	}
	n := len(grp)
	maxSweeps := opt.MaxSweeps
	if maxSweeps <= 0 {
		maxSweeps = 20000
	}
	x := make([]float64, n)
	if pr.X0 != nil {
		for i := range x {
			x[i] = math.Max(0, pr.X0[i])
		}
	}
	sum := groupSums(pr, x) // Σ x over each group
	g := gradientOf(pr.H, pr.P, x)
	res := &SoftResult{}
	sched := schedule{maxSweeps: maxSweeps, tol: tol, firstPolish: 10, polishEvery: polishEvery}
	sweep, r, err := sched.run(ctx, opt, n, moves{
		sweep:    func() (int, error) { return softSweep(pr, grp, diag, x, g, sum) },
		refresh:  func() { g = gradientOf(pr.H, pr.P, x) },
		residual: func() float64 { return softResidual(pr, grp, x, g, sum) },
		polish: func(r float64, tick func()) (float64, int) {
			var w int
			x, g, sum, r, w = softTryPolish(pr, grp, x, g, sum, r, tick)
			return r, w
		},
	})
	if err != nil {
		return nil, err
	}
	res.Residual = r
	res.Sweeps = sweep
	res.Converged = res.Residual <= tol
	res.X = x
	res.Xi = make([]float64, len(pr.Groups))
	for gi := range pr.Groups {
		res.Xi[gi] = math.Max(0, pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho) // ψ'_g
	}
	res.Obj = softObjective(pr, x, g, sum)
	return res, nil
}

// checkSoft checks pr and returns the group of each variable (−1: none),
// H's diagonal and the absolute tolerance.
func checkSoft(pr *SoftProblem, opt Options) (grp []int, diag []float64, tol float64, err error) {
	if pr == nil || pr.H == nil {
		return nil, nil, 0, fmt.Errorf("%w: no Hessian", ErrInput)
	}
	n := pr.H.Dim()
	if len(pr.P) != n || len(pr.C) != len(pr.Groups) || len(pr.Xi0) != len(pr.Groups) || !(pr.Rho > 0) {
		return nil, nil, 0, fmt.Errorf("%w: dimensions disagree or ρ ≤ 0", ErrInput)
	}
	if pr.X0 != nil && len(pr.X0) != n {
		return nil, nil, 0, fmt.Errorf("%w: X0 has %d entries for %d variables", ErrInput, len(pr.X0), n)
	}
	grp = make([]int, n)
	for i := range grp {
		grp[i] = -1
	}
	for g, idx := range pr.Groups {
		if !(pr.Xi0[g] >= 0) {
			return nil, nil, 0, fmt.Errorf("%w: ξ⁰ of group %d is %v", ErrInput, g, pr.Xi0[g])
		}
		for _, i := range idx {
			if i < 0 || i >= n || grp[i] >= 0 {
				return nil, nil, 0, fmt.Errorf("%w: variable %d repeated or out of range", ErrInput, i)
			}
			grp[i] = g
		}
	}
	pmax := 1.0
	for _, v := range pr.P {
		pmax = math.Max(pmax, math.Abs(v))
	}
	tol = opt.Tol
	if tol <= 0 {
		tol = 1e-7
	}
	diag = make([]float64, n)
	for i := range diag {
		if diag[i] = pr.H.At(i, i); diag[i] < 0 || math.IsNaN(diag[i]) {
			return nil, nil, 0, fmt.Errorf("%w: H[%d][%d] = %v < 0", ErrInput, i, i, diag[i])
		}
	}
	return grp, diag, tol * pmax, nil
}

// groupSums returns Σ x over each group.
func groupSums(pr *SoftProblem, x []float64) []float64 {
	sum := make([]float64, len(pr.Groups))
	for g, idx := range pr.Groups {
		for _, i := range idx {
			sum[g] += x[i]
		}
	}
	return sum
}

// softSweep is one cyclic sweep of exact coordinate steps, keeping the
// gradient g and the group sums in step; it returns the work done.
func softSweep(pr *SoftProblem, grp []int, diag, x, g, sum []float64) (int, error) {
	n := len(x)
	work := 0
	for i := 0; i < n; i++ {
		h, q := diag[i], g[i]-diag[i]*x[i]
		var v float64
		if gi := grp[i]; gi < 0 {
			if h > 0 {
				v = math.Max(0, -q/h)
			} else if q < 0 {
				return work, ErrUnbounded
			}
		} else {
			rest := sum[gi] - x[i]
			x0, c, rho := pr.Xi0[gi], pr.C[gi], pr.Rho
			deriv := func(v float64) float64 { return h*v + q + math.Max(0, x0+(v+rest-c)/rho) }
			if deriv(0) >= 0 {
				v = 0
			} else {
				v = -(q + x0 + (rest-c)/rho) / (h + 1/rho) // region ξ* > 0
				if x0+(v+rest-c)/rho < 0 {
					v = -q / h // region ξ* = 0 (then h > 0)
				}
				v = math.Max(0, v)
			}
			sum[gi] += v - x[i]
		}
		if d := v - x[i]; d != 0 {
			x[i] = v
			pr.H.AddColumn(i, d, g)
			work += n
		}
	}
	return work, nil
}

// softTryPolish runs the active-set polish from x and returns its point
// (with gradient, group sums and residual) when it lowers the objective, or
// the residual without raising the objective; else x's. The last result is
// the work it cost.
func softTryPolish(pr *SoftProblem, grp []int, x, g, sum []float64, r float64, tick func()) ([]float64, []float64, []float64, float64, int) {
	xp, cost := softPolish(pr, grp, x, g, sum, tick)
	if xp == nil {
		return x, g, sum, r, 0
	}
	sp := groupSums(pr, xp)
	gp := gradientOf(pr.H, pr.P, xp)
	fp, f := softObjective(pr, xp, gp, sp), softObjective(pr, x, g, sum)
	if rp := softResidual(pr, grp, xp, gp, sp); fp < f || (rp < r && fp <= f+1e-13*math.Abs(f)) {
		return xp, gp, sp, rp, cost
	}
	return x, g, sum, r, cost
}

// softObjective is the SoftProblem objective at x (g = Hx + p, sum the
// group sums).
func softObjective(pr *SoftProblem, x, g, sum []float64) float64 {
	obj := 0.0
	for i := range x {
		obj += 0.5 * x[i] * (g[i] + pr.P[i])
	}
	for gi := range pr.Groups {
		s := sum[gi] - pr.C[gi]
		if xi := math.Max(0, pr.Xi0[gi]+s/pr.Rho); xi > 0 {
			obj += s*xi - pr.Rho/2*(xi-pr.Xi0[gi])*(xi-pr.Xi0[gi])
		} else {
			obj -= pr.Rho / 2 * pr.Xi0[gi] * pr.Xi0[gi]
		}
	}
	return obj
}

// polishEvery is the period (in sweeps) of the active-set polish after the
// first one at sweep 10.
const polishEvery = 25

// softResidual is the largest projected-gradient component of the
// SoftProblem objective at x (g = Hx + p, sum the group sums).
func softResidual(pr *SoftProblem, grp []int, x, g, sum []float64) float64 {
	r := 0.0
	for i := range x {
		gr := g[i]
		if gi := grp[i]; gi >= 0 {
			gr += math.Max(0, pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho)
		}
		if x[i] > 0 {
			r = math.Max(r, math.Abs(gr))
		} else {
			r = math.Max(r, math.Max(0, -gr))
		}
	}
	return r
}

// softPolish fixes the pattern coordinate descent has found — which
// variables are positive and which groups have a positive slack ψ' — and
// solves the resulting linear system (H_FF + E/ρ)x_F = −p_F − ξ⁰ + c/ρ (E
// joins the variables of a group with positive slack) by Cholesky: the
// minimiser of the objective's quadratic model on that pattern, which agrees
// with the objective to first order at x (ψ is C¹) and lies below it
// elsewhere. When the solution leaves x ≥ 0, the step from x towards it is
// cut at the first bound it crosses, that variable leaves the free set and
// the system is solved again (the classical primal active-set iteration, at
// most polishRounds times, with tick called after each factorisation); a
// cut step is kept only if the true objective decreases. It returns nil when no step helps, and the work done in
// multiply–adds. The caller keeps the point only if it lowers the
// objective, or the residual without raising the objective (the problem is
// convex, so this is a safe acceleration of the same method).
func softPolish(pr *SoftProblem, grp []int, x, g, sum []float64, tick func()) ([]float64, int) {
	var free []int
	for i, v := range x {
		if v > 0 {
			free = append(free, i)
		}
	}
	if len(free) == 0 || len(free) > 600 { // bounded: one dense factorisation must stay short (the browser waits on it)
		return nil, 0
	}
	on := make([]bool, len(pr.Groups))
	for gi := range on {
		on[gi] = pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho > 0
	}
	cost := 0
	cur := append([]float64(nil), x...)
	fcur := softObjective(pr, x, g, sum)
	improved := false
	sp := make([]float64, len(sum))
	objAt := func(xp []float64) float64 {
		for gi := range sp {
			sp[gi] = 0
		}
		for i, v := range xp {
			if gi := grp[i]; gi >= 0 {
				sp[gi] += v
			}
		}
		cost += len(xp) * len(free)
		f := softObjective(pr, xp, gradientOf(pr.H, pr.P, xp), sp)
		tick()
		return f
	}
	for round := 0; round < polishRounds && len(free) > 0; round++ {
		sol, c := solvePattern(pr, grp, on, free, tick)
		cost += c
		tick() // a dense factorisation: let the caller report progress
		if sol == nil {
			break
		}
		t, hit := 1.0, -1
		for a, i := range free {
			if v := sol[a]; v < 0 {
				if s := cur[i] / (cur[i] - v); s < t {
					t, hit = s, a
				}
			}
		}
		xp := append([]float64(nil), cur...)
		if hit < 0 {
			for a, i := range free {
				xp[i] = sol[a]
			}
			if improved && objAt(xp) > fcur {
				break
			}
			return xp, cost
		}
		for a, i := range free {
			xp[i] = math.Max(0, cur[i]+t*(sol[a]-cur[i]))
		}
		xp[free[hit]] = 0
		f := objAt(xp)
		if !(f < fcur) {
			break
		}
		cur, fcur, improved = xp, f, true
		var nf []int
		for _, i := range free {
			if cur[i] > 0 {
				nf = append(nf, i)
			}
		}
		free = nf
	}
	if improved {
		return cur, cost
	}
	return nil, cost
}

// cholBlock is the block size of cholTick.
const cholBlock = 48

// cholTick overwrites the upper triangle of the row-major n×n matrix a with
// its Cholesky factor U (a = UᵀU), by a right-looking blocked algorithm
// (Potrf on a diagonal block, Trsm on its row panel, Syrk on the trailing
// matrix) calling tick between blocks, so that a browser caller can yield
// during a large factorisation. It reports false when a is not positive
// definite.
func cholTick(a []float64, n int, tick func()) bool {
	return choleskyTickEvery(a, n, tick, tickWork)
}

// CholeskyTick overwrites the upper triangle of the row-major n×n symmetric
// matrix a (upper triangle read) with its Cholesky factor U, a = UᵀU, calling
// tick (when not nil) about every million multiply–adds; false when a is not
// positive definite. The strict lower triangle is left as it was.
func CholeskyTick(a []float64, n int, tick func()) bool {
	return choleskyTickEvery(a, n, tick, tickWork)
}

// choleskyTickEvery is CholeskyTick with a tick about every work
// multiply–adds.
func choleskyTickEvery(a []float64, n int, tick func(), work int) bool {
	for k0 := 0; k0 < n; k0 += cholBlock {
		k1 := min(n, k0+cholBlock)
		d := blas64.Symmetric{Uplo: blas.Upper, N: k1 - k0, Stride: n, Data: a[k0*n+k0:]}
		ukk, ok := fastblas.Potrf(d)
		if !ok {
			return false
		}
		if k1 < n {
			fastblas.TrsmLeft(ukk, true, blas64.General{Rows: k1 - k0, Cols: n - k1, Stride: n, Data: a[k0*n+k1:]})
			// Trailing update A22 −= PᵀP (upper triangle) in column chunks of
			// about work multiply–adds, with a tick after each chunk.
			w := k1 - k0
			step := max(8, work/max(1, (n-k1)*w))
			for j0 := k1; j0 < n; j0 += step {
				j1 := min(n, j0+step)
				pj := blas64.General{Rows: w, Cols: j1 - j0, Stride: n, Data: a[k0*n+j0:]}
				if j0 > k1 {
					pl := blas64.General{Rows: w, Cols: j0 - k1, Stride: n, Data: a[k0*n+k1:]}
					fastblas.GemmAcc(true, -1, pl, pj, blas64.General{Rows: j0 - k1, Cols: j1 - j0, Stride: n, Data: a[k1*n+j0:]})
				}
				fastblas.SyrkTUpper(-1, pj, blas64.Symmetric{Uplo: blas.Upper, N: j1 - j0, Stride: n, Data: a[j0*n+j0:]})
				if tick != nil && j1 < n {
					tick()
				}
			}
		}
		if tick != nil && n > cholBlock {
			tick()
		}
	}
	return true
}

// polishRounds bounds the active-set iterations of one softPolish.
const polishRounds = 6

// solvePattern solves the pattern system of softPolish on the free set. The
// system is often singular (H couples variables only through a few
// combinations: in MPWTSVM, αᴬⱼ and λᴮⱼ enter only as αᴬⱼ − λᴮⱼ), so it
// is factorised with a tiny ridge δ and refined against the unregularised
// matrix; the step then minimises the model on its range, or follows a
// direction along which the model keeps decreasing until a bound stops it.
func solvePattern(pr *SoftProblem, grp []int, on []bool, free []int, tick func()) ([]float64, int) {
	nf := len(free)
	rhs := make([]float64, nf)
	onF := make([]bool, nf)
	for a, i := range free {
		gi := grp[i]
		onF[a] = gi >= 0 && on[gi]
		r := -pr.P[i]
		if onF[a] {
			r += -pr.Xi0[gi] + pr.C[gi]/pr.Rho
		}
		rhs[a] = r
	}
	cost := 0
	var kd []float64
	var u blas64.Triangular
	if c := pr.Cache; c != nil && c.matches(free, onF) {
		kd, u = c.kd, c.u // same pattern as a previous solve: same matrix
	} else {
		kd = make([]float64, nf*nf)
		done := 0
		for a, i := range free {
			gi := grp[i]
			row := kd[a*nf : (a+1)*nf]
			for b, j := range free {
				v := pr.H.At(i, j)
				if onF[a] && grp[j] == gi {
					v += 1 / pr.Rho
				}
				row[b] = v
			}
			if done += nf; done > tickWork/8 && tick != nil { // At is costly: tick more often
				done = 0
				tick()
			}
		}
		cost += nf*nf*nf/6 + nf*nf
		dmax := 0.0
		for a := 0; a < nf; a++ {
			dmax = math.Max(dmax, kd[a*nf+a])
		}
		delta := 1e-10 * math.Max(dmax, 1e-300)
		kreg := append([]float64(nil), kd...)
		for a := 0; a < nf; a++ {
			kreg[a*nf+a] += delta
		}
		// Raw LAPACK/BLAS: Cholesky without mat's condition estimate, and
		// triangular solves with one right-hand side (Trsv, not Trsm).
		if !cholTick(kreg, nf, tick) {
			return nil, cost
		}
		u = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: nf, Stride: nf, Data: kreg}
		if c := pr.Cache; c != nil {
			c.free, c.on, c.kd, c.u = append(c.free[:0], free...), onF, kd, u
		}
	}
	solveU := func(v []float64) { // v ← (UᵀU)⁻¹v
		x := blas64.Vector{N: nf, Inc: 1, Data: v}
		blas64.Trsv(blas.Trans, u, x)
		blas64.Trsv(blas.NoTrans, u, x)
	}
	sol := append([]float64(nil), rhs...)
	solveU(sol)
	// Iterative refinement removes the ridge's bias on the range of the
	// matrix (a factor δ/(λ+δ) per pass).
	k := blas64.Symmetric{Uplo: blas.Upper, N: nf, Stride: nf, Data: kd}
	res := make([]float64, nf)
	for pass := 0; pass < 3; pass++ {
		copy(res, rhs)
		blas64.Symv(-1, k, blas64.Vector{N: nf, Inc: 1, Data: sol}, 1, blas64.Vector{N: nf, Inc: 1, Data: res})
		solveU(res)
		for a, v := range res {
			sol[a] += v
		}
		cost += 2 * nf * nf
	}
	for _, v := range sol {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, cost
		}
	}
	return sol, cost
}

// gradientOf computes Hx + p from scratch (removing accumulated
// round-off).
func gradientOf(h Operator, p, x []float64) []float64 {
	g := append([]float64(nil), p...)
	for i, xi := range x {
		if xi != 0 {
			h.AddColumn(i, xi, g)
		}
	}
	return g
}
