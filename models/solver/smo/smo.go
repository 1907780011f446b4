// Package smo solves SVM-form duals
//
//	min ½αᵀQα + pᵀα   s.t.   yᵀα = Δ (when Y != nil),   0 ≤ αᵢ ≤ Uᵢ,
//
// with Q positive semi-definite and served row by row (Matrix), Uᵢ per
// variable and allowed to be +Inf (squared-hinge and SVM2+ duals), and
// yᵢ ∈ {−1, +1}. It is the decomposition method of LIBSVM (Chang & Lin 2011,
// "LIBSVM: a library for support vector machines", ACM TIST 2(3)):
//
//   - working-set selection WSS2 with second-order information (Fan, Chen &
//     Lin 2005, "Working set selection using second order information for
//     training SVM", JMLR 6, Algorithm 2 / eq. (16)), with the τ guard for
//     non-positive curvature (their eq. (19));
//   - LIBSVM's stopping rule m(α) − M(α) < eps on the maximal violating pair;
//   - shrinking with gradient reconstruction (Chang & Lin 2011, §5.1) using
//     Ḡᵢ = Σ_{j at upper bound} Uⱼ Qᵢⱼ;
//   - an LRU cache of Q rows under a memory budget (rows on demand, so large
//     n never needs an n×n matrix);
//   - optionally (Options.Polish) Newton steps on the free set with a
//     box ratio test between SMO iterations, for ill-conditioned duals
//     (polish.go);
//   - rho as LIBSVM computes it (§4.1.5): the average of yᵢ∇ᵢ over free
//     variables, else the midpoint of the feasible interval.
//
// With Y == nil there is no equality constraint (bias-free duals) and the
// method becomes single-variable coordinate descent with greedy
// second-order selection (largest guaranteed decrease ∇ᵢ²/Qᵢᵢ among the
// violators), the same shrinking, and stopping when the largest projected
// gradient is < eps.
//
// The loop, the row cache and the Newton polish are the decomposition
// engine's (lupilab/models/solver/decomp, shared with SVM1+'s generalised
// SMO); this package is its policy for SVM-form duals: the selection and
// the step above, shrinking, rho.
package smo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/decomp"
)

// Matrix serves the rows of the symmetric n×n matrix Q on demand (the
// engine's interface).
type Matrix = decomp.Matrix

// SubRower is optionally implemented by a Matrix that can compute selected
// entries of a row: the solver then computes only the entries of active
// (unshrunk) variables, as LIBSVM does.
type SubRower = decomp.SubRower

// SubRower32 is SubRower rounding to float32; the solver uses it for a
// single-precision cache (Options.Float32) when the Matrix has it.
type SubRower32 = decomp.SubRower32

// Factored is optionally implemented by a Matrix that is exactly WWᵀ for a
// small factor W: the Newton polish then forms Q_FF = W_F W_Fᵀ by one
// rank-k update and changes the gradient by W(W_Fᵀ Δα_F), and computes no
// row of the face (see polish.go).
type Factored = decomp.Factored

// DenseMatrix adapts a dense symmetric matrix to Matrix.
type DenseMatrix = decomp.DenseMatrix

// Dense wraps s as a Matrix.
func Dense(s *mat.SymDense) DenseMatrix { return decomp.Dense(s) }

// Problem is min ½αᵀQα + pᵀα s.t. yᵀα = Δ (when Y != nil), 0 ≤ αᵢ ≤ Uᵢ.
type Problem struct {
	Q Matrix
	P []float64
	// Y holds ±1 per variable; nil means no equality constraint.
	Y     []float64
	Delta float64
	// Upper holds Uᵢ per variable; +Inf is allowed, nil means all +Inf.
	Upper []float64
	// Alpha0 is an optional feasible start; nil starts from a feasible
	// point built by the solver (α = 0 when Δ = 0).
	Alpha0 []float64
}

// Options tune the solver.
type Options struct {
	// Eps is the stopping tolerance on the maximal KKT violation (LIBSVM's
	// -e; default 1e-3).
	Eps float64
	// MaxIter bounds the iterations; 0 means max(10⁷, 100n) as in LIBSVM.
	// Hitting it returns the current iterate with Converged = false.
	MaxIter int
	// Shrinking enables LIBSVM's shrinking heuristic.
	Shrinking bool
	// CacheMB is the row-cache budget in MiB (default 100, as LIBSVM).
	CacheMB float64
	// Progress, when set, is called every ProgressEvery iterations with the
	// iteration count and the current maximal violation.
	Progress func(iter int, violation float64)
	// ProgressEvery is the progress interval in iterations (default 200).
	ProgressEvery int
	// Polish enables Newton steps on the free set between SMO iterations
	// (see polish.go): for ill-conditioned duals (large C with a low-rank
	// kernel, SVM2+) they replace millions of SMO iterations. The stopping
	// rule is unchanged.
	Polish bool
	// Watch, when set, is asked after every iteration whether to call
	// Snapshot with the current iterate (a Result whose Alpha, Rho, Iter
	// and Violation are those of the iterate; Grad and Obj are exact only
	// for variables not shrunk away). Neither changes the solver's path.
	Watch    func(iter int) bool
	Snapshot func(*Result)
	// Float32 stores cached rows of Q in single precision, as LIBSVM does
	// (its Qfloat): half the memory per row and the same solution as LIBSVM
	// to rounding; ∇, α and Q's diagonal stay in float64.
	Float32 bool
}

// Result is the solution.
type Result struct {
	Alpha []float64 // the minimiser
	Grad  []float64 // ∇ = Qα + p at Alpha
	Obj   float64   // ½αᵀQα + pᵀα
	// Rho is LIBSVM's rho (the Lagrange multiplier of the equality
	// constraint: the SVM decision is Σ yᵢαᵢK(xᵢ,x) − Rho); 0 without Y.
	Rho       float64
	Iter      int
	Converged bool
	// Violation is the final maximal KKT violation (m(α) − M(α) with Y, the
	// largest projected gradient without).
	Violation float64
	// NFree and NBound count 0 < αᵢ < Uᵢ and αᵢ = Uᵢ.
	NFree, NBound int
	// Polishes counts the Newton steps taken (Options.Polish).
	Polishes int
}

// ErrUnbounded is returned when the objective decreases without bound
// (Q is not positive semi-definite along a direction with no upper bound).
var ErrUnbounded = errors.New("smo: the problem is unbounded below (Q not positive semi-definite along an unbounded direction)")

// ErrInfeasible is returned when no α satisfies the constraints.
var ErrInfeasible = errors.New("smo: the constraints are infeasible")

const tau = 1e-12

// Status of a variable; bit 0 says α can increase, bit 1 that it can decrease.
const (
	fixed   int8 = 0 // Uᵢ = 0: the variable cannot move
	atLower int8 = 1
	atUpper int8 = 2
	free    int8 = 3
)

func (s *solver[T]) canInc(t int) bool { return s.status[t]&1 != 0 }
func (s *solver[T]) canDec(t int) bool { return s.status[t]&2 != 0 }

// Solve minimises the problem.
func Solve(ctx context.Context, p *Problem, opt Options) (*Result, error) {
	if opt.Float32 {
		return solve[float32](ctx, p, opt)
	}
	return solve[float64](ctx, p, opt)
}

func solve[T decomp.Elem](ctx context.Context, p *Problem, opt Options) (*Result, error) {
	s, err := newSolver[T](p, opt)
	if err != nil {
		return nil, err
	}
	// the cache's rows go back to its pool once the result (which holds
	// none of them) is made
	defer s.cache.Release()
	if err := s.initGradient(ctx); err != nil {
		return nil, err
	}
	cfg := decomp.Config{MaxIter: s.maxIter, Progress: opt.Progress, ProgressEvery: opt.ProgressEvery}
	if opt.Watch != nil && opt.Snapshot != nil {
		cfg.Watch = func(iter int) {
			if opt.Watch(iter) {
				r := s.result()
				r.Iter, r.Converged = iter, false
				if s.eq {
					r.Violation = s.pairViolation()
				} else {
					r.Violation = s.singleViolation()
				}
				opt.Snapshot(r)
			}
		}
	}
	if opt.Shrinking {
		cfg.ShrinkEvery = min(s.l, 1000)
	}
	if opt.Polish {
		eqs := 0
		if s.eq {
			eqs = 1
		}
		cfg.Polish = decomp.NewPolisher(decomp.PolishOptions{Eqs: eqs, MinFace: 2, Widen: true,
			Floor: polishBudgetFloor, Extensions: polishExtensions})
		defer cfg.Polish.Release()
		// The factored faces' storage comes from a pool too (see
		// decomp.NewPolisher).
		if ps, ok := facePool.Get().(*faceScratch); ok {
			s.face = ps
		} else {
			s.face = &faceScratch{}
		}
		s.face.reset(s.l)
		defer facePool.Put(s.face)
	}
	out, err := decomp.Run(ctx, s, cfg)
	if err != nil {
		return nil, err
	}
	s.conv, s.viol, s.polishes = out.Converged, out.Violation, out.Polishes
	return s.result(), nil
}

type solver[T decomp.Elem] struct {
	l, active int
	eq        bool
	perm      []int // position → original index
	y, p, u   []float64
	qd        []float64
	alpha     []float64
	g, gbar   []float64
	status    []int8
	up, down  []bool // α can move along +y / −y (I_up / I_low of Fan et al.)
	pending   [][2]int
	anyUpper  bool // some Uᵢ finite
	eps       float64
	maxIter   int
	shrinking bool
	unshrink  bool
	opt       Options

	q       Matrix
	sub     SubRower
	sub32   SubRower32
	fac     *mat.Dense                   // Q = fac·facᵀ (Factored), or nil
	fillFn  func(pos, from int, dst []T) // s.fill, bound once
	scratch []float64
	cache   *decomp.Cache[T]
	buf     []float64
	iter    int
	viol    float64
	conv    bool
	// nextI / nextGmax: the maximiser of −y∇ over I_up found while updating
	// ∇ (valid while haveNext; shrinking and unshrinking clear it).
	nextI    int
	nextGmax float64
	haveNext bool
	rows     int // full rows computed outside the main loop (progress)
	// lastAlpha is the largest α touched by the last update (unboundedness check).
	lastAlpha float64
	// unbounded is set when a step along a direction of non-positive
	// curvature hit no bound.
	unbounded bool
	// Newton polishing (polish.go): the iteration of the next check, the
	// work units the previous polish spent, what the current one earned and
	// was granted, polishes so far, the factored faces' storage.
	nextPolish    int
	polishCost    float64
	earned, grant float64
	polishes      int
	face          *faceScratch
}

// checkProblem checks the shapes and scalars of p and opt and returns the
// tolerance, the iteration bound and the cache budget with their defaults.
func checkProblem(p *Problem, opt Options) (eps float64, maxIter int, mb float64, err error) {
	if p == nil || p.Q == nil {
		return 0, 0, 0, errors.New("smo: no problem / no Q")
	}
	n := p.Q.Size()
	if n < 1 {
		return 0, 0, 0, errors.New("smo: the problem has no variables")
	}
	for _, v := range []struct {
		name string
		v    []float64
	}{{"p", p.P}, {"y", p.Y}, {"upper", p.Upper}, {"alpha0", p.Alpha0}} {
		if len(v.v) != n && (v.name == "p" || v.v != nil) {
			return 0, 0, 0, fmt.Errorf("smo: %s has %d entries for %d variables", v.name, len(v.v), n)
		}
	}
	if math.IsNaN(p.Delta) || math.IsInf(p.Delta, 0) {
		return 0, 0, 0, errors.New("smo: Δ must be finite")
	}
	if p.Y == nil && p.Delta != 0 {
		return 0, 0, 0, errors.New("smo: Δ ≠ 0 needs Y (the equality constraint)")
	}
	eps = opt.Eps
	if eps == 0 {
		eps = 1e-3
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return 0, 0, 0, fmt.Errorf("smo: eps must be > 0 (got %g)", opt.Eps)
	}
	if opt.MaxIter < 0 {
		return 0, 0, 0, fmt.Errorf("smo: MaxIter must be ≥ 0 (got %d)", opt.MaxIter)
	}
	mb = opt.CacheMB
	if mb == 0 {
		mb = 100
	}
	if !(mb > 0) {
		return 0, 0, 0, fmt.Errorf("smo: CacheMB must be > 0 (got %g)", opt.CacheMB)
	}
	maxIter = opt.MaxIter
	if maxIter == 0 {
		maxIter = max(10000000, 100*n)
	}
	return eps, maxIter, mb, nil
}

func newSolver[T decomp.Elem](p *Problem, opt Options) (*solver[T], error) {
	eps, maxIter, mb, err := checkProblem(p, opt)
	if err != nil {
		return nil, err
	}
	n := p.Q.Size()
	s := &solver[T]{
		l: n, active: n, eq: p.Y != nil, perm: make([]int, n),
		y: make([]float64, n), p: make([]float64, n), u: make([]float64, n), qd: make([]float64, n),
		alpha: make([]float64, n), g: make([]float64, n), gbar: make([]float64, n), status: make([]int8, n),
		up: make([]bool, n), down: make([]bool, n),
		eps: eps, maxIter: maxIter, shrinking: opt.Shrinking, opt: opt, q: p.Q,
		scratch: make([]float64, n), buf: make([]float64, n), cache: decomp.NewCache[T](n, mb, 2),
	}
	s.sub, _ = p.Q.(SubRower)
	if f, ok := p.Q.(Factored); ok {
		if w := f.Factor(); w != nil {
			if r, _ := w.Dims(); r == n {
				s.fac = w
			}
		}
	}
	s.nextPolish = polishFirst(n, s.fac != nil)
	s.sub32, _ = p.Q.(SubRower32)
	s.fillFn = s.fill
	for i := 0; i < n; i++ {
		if err := s.setVar(p, i); err != nil {
			return nil, err
		}
	}
	if err := s.start(p); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		s.updateStatus(i)
	}
	return s, nil
}

// setVar takes variable i's label, linear term, bound and diagonal from
// p, checking them.
func (s *solver[T]) setVar(p *Problem, i int) error {
	s.perm[i] = i
	s.y[i] = 1
	if p.Y != nil {
		switch p.Y[i] {
		case 1, -1:
			s.y[i] = p.Y[i]
		default:
			return fmt.Errorf("smo: y[%d] = %v; labels must be ±1", i, p.Y[i])
		}
	}
	if math.IsNaN(p.P[i]) || math.IsInf(p.P[i], 0) {
		return fmt.Errorf("smo: p[%d] = %v is not finite", i, p.P[i])
	}
	s.p[i] = p.P[i]
	s.u[i] = math.Inf(1)
	if p.Upper != nil {
		s.u[i] = p.Upper[i]
	}
	if math.IsNaN(s.u[i]) || s.u[i] < 0 {
		return fmt.Errorf("smo: upper bound %d is %v; bounds must be ≥ 0 (+Inf allowed)", i, s.u[i])
	}
	if !math.IsInf(s.u[i], 1) {
		s.anyUpper = true
	}
	d := p.Q.Diag(i)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return fmt.Errorf("smo: Q[%d][%d] = %v is not finite", i, i, d)
	}
	if d < 0 {
		return fmt.Errorf("smo: Q[%d][%d] = %v < 0: Q is not positive semi-definite", i, i, d)
	}
	s.qd[i] = d
	return nil
}

// start sets a feasible initial α.
func (s *solver[T]) start(p *Problem) error {
	n := s.l
	if p.Alpha0 != nil {
		sum, scale := 0.0, math.Abs(p.Delta)
		for i, a := range p.Alpha0 {
			if math.IsNaN(a) || a < 0 || a > s.u[i] || math.IsInf(a, 0) {
				return fmt.Errorf("smo: alpha0[%d] = %v is outside [0, %v]", i, a, s.u[i])
			}
			s.alpha[i] = a
			sum += s.y[i] * a
			scale += math.Abs(a)
		}
		if s.eq && math.Abs(sum-p.Delta) > 1e-9*(1+scale) {
			return fmt.Errorf("smo: alpha0 violates yᵀα = Δ (%g ≠ %g)", sum, p.Delta)
		}
		return nil
	}
	if !s.eq || p.Delta == 0 {
		return nil
	}
	// Fill Δ with the variables whose sign matches it.
	sign := 1.0
	if p.Delta < 0 {
		sign = -1
	}
	rest := math.Abs(p.Delta)
	var cand []int
	for i := 0; i < n; i++ {
		if s.y[i] == sign && s.u[i] > 0 {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return fmt.Errorf("%w: yᵀα = %g needs a variable with y = %+g and a positive upper bound", ErrInfeasible, p.Delta, sign)
	}
	// Spread evenly where possible (a balanced start converges faster).
	for len(cand) > 0 && rest > 0 {
		share := rest / float64(len(cand))
		next := cand[:0]
		for _, i := range cand {
			room := s.u[i] - s.alpha[i]
			if room <= share {
				s.alpha[i] = s.u[i]
				rest -= room
			} else {
				next = append(next, i)
			}
		}
		if len(next) == len(cand) {
			for _, i := range next {
				s.alpha[i] += share
			}
			rest = 0
		}
		cand = next
	}
	if rest > 1e-12*math.Abs(p.Delta) {
		return fmt.Errorf("%w: yᵀα = %g is out of reach of the bounds", ErrInfeasible, p.Delta)
	}
	return nil
}

func (s *solver[T]) updateStatus(i int) {
	switch {
	case s.u[i] == 0:
		s.status[i] = fixed
	case s.alpha[i] >= s.u[i]:
		s.status[i] = atUpper
	case s.alpha[i] <= 0:
		s.status[i] = atLower
	default:
		s.status[i] = free
	}
	inc, dec := s.status[i]&1 != 0, s.status[i]&2 != 0
	if s.y[i] > 0 {
		s.up[i], s.down[i] = inc, dec
	} else {
		s.up[i], s.down[i] = dec, inc
	}
}

// fill computes entries [from, len(dst)) of the row at position pos.
func (s *solver[T]) fill(pos, from int, dst []T) {
	if from >= len(dst) {
		return
	}
	orig := s.perm[pos]
	var z T
	single := unsafe.Sizeof(z) == 4
	if s.sub32 != nil && single {
		d32 := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
		s.sub32.SubRow32(orig, s.perm[from:len(dst)], d32[from:])
		return
	}
	if s.sub != nil {
		if !single {
			d64 := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
			s.sub.SubRow(orig, s.perm[from:len(dst)], d64[from:])
			return
		}
		b := s.buf[:len(dst)-from]
		s.sub.SubRow(orig, s.perm[from:len(dst)], b)
		for k, v := range b {
			dst[from+k] = T(v)
		}
		return
	}
	s.q.Row(orig, s.scratch)
	for k := from; k < len(dst); k++ {
		dst[k] = T(s.scratch[s.perm[k]])
	}
}

// row returns Q[pos][0:length] in position order.
func (s *solver[T]) row(pos, length int) []T {
	return s.cache.Get(pos, length, s.fillFn)
}

// swapVars exchanges positions i and j of every per-variable array and of
// the cache's row table; the entries inside cached rows are moved by
// Cache.SwapBatch, which must run before the next row access.
func (s *solver[T]) swapVars(i, j int) {
	if i == j {
		return
	}
	s.cache.SwapRows(i, j)
	s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	s.y[i], s.y[j] = s.y[j], s.y[i]
	s.p[i], s.p[j] = s.p[j], s.p[i]
	s.u[i], s.u[j] = s.u[j], s.u[i]
	s.qd[i], s.qd[j] = s.qd[j], s.qd[i]
	s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
	s.g[i], s.g[j] = s.g[j], s.g[i]
	s.gbar[i], s.gbar[j] = s.gbar[j], s.gbar[i]
	s.status[i], s.status[j] = s.status[j], s.status[i]
	s.up[i], s.up[j] = s.up[j], s.up[i]
	s.down[i], s.down[j] = s.down[j], s.down[i]
}

func (s *solver[T]) initGradient(ctx context.Context) error {
	copy(s.g, s.p)
	for i := 0; i < s.l; i++ {
		if s.alpha[i] == 0 {
			continue
		}
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.rowTick()
		q := s.row(i, s.l)
		a := s.alpha[i]
		for k, v := range q {
			s.g[k] += a * float64(v)
		}
		if s.status[i] == atUpper {
			for k, v := range q {
				s.gbar[k] += s.u[i] * float64(v)
			}
		}
	}
	return nil
}

// Step is the engine's iteration (decomp.Policy): a pair step with the
// equality constraint, a coordinate step without.
func (s *solver[T]) Step() (decomp.Step, error) {
	var ok bool
	if s.eq {
		ok = s.stepPair()
	} else {
		ok = s.stepSingle()
	}
	if !ok {
		return decomp.Optimal, nil
	}
	s.iter++
	return decomp.Moved, s.checkFinite()
}

// Shrink implements decomp.Policy.
func (s *solver[T]) Shrink() { s.shrink() }

// Unshrink implements decomp.Policy: the shrunk variables' gradient is
// reconstructed and all are active again.
func (s *solver[T]) Unshrink() bool {
	if s.active == s.l {
		return false
	}
	s.reconstructGradient()
	s.active = s.l
	return true
}

// Optimal implements decomp.Policy: the violation on the whole problem
// (unshrunk) against eps.
func (s *solver[T]) Optimal() (float64, bool) {
	if s.eq {
		s.viol = s.pairViolation()
	} else {
		s.viol = s.singleViolation()
	}
	return s.viol, s.viol < s.eps
}

// Violation implements decomp.Policy.
func (s *solver[T]) Violation() float64 { return s.viol }

// IterWork implements decomp.Policy: about 6 flops per active variable
// (the gradient update of the pair and the working-set selection).
func (s *solver[T]) IterWork() float64 { return 6 * float64(s.active) }

func (s *solver[T]) checkFinite() error {
	// cheap check on the last update: the objective and α must stay finite
	if s.unbounded || math.IsInf(s.lastAlpha, 0) || math.IsNaN(s.lastAlpha) || s.lastAlpha > 1e200 {
		return ErrUnbounded
	}
	return nil
}

// stepPair selects the working pair by WSS2 and updates it; false when the
// stopping rule holds on the active set.
func (s *solver[T]) stepPair() bool {
	i, j, ok := s.selectPair()
	if !ok {
		return false
	}
	act := s.active
	qi := s.row(i, act)
	qj := s.row(j, act)
	ci, cj := s.u[i], s.u[j]
	oldAi, oldAj := s.alpha[i], s.alpha[j]
	ai, aj := oldAi, oldAj
	flat := false
	if s.y[i] != s.y[j] {
		quad := s.qd[i] + s.qd[j] + 2*float64(qi[j])
		if quad <= 0 {
			quad = tau
			flat = true
		}
		delta := (-s.g[i] - s.g[j]) / quad
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj = 0
				ai = diff
			}
		} else if ai < 0 {
			ai = 0
			aj = -diff
		}
		if diff > ci-cj {
			if ai > ci {
				ai = ci
				aj = ci - diff
			}
		} else if aj > cj {
			aj = cj
			ai = cj + diff
		}
	} else {
		quad := s.qd[i] + s.qd[j] - 2*float64(qi[j])
		if quad <= 0 {
			quad = tau
			flat = true
		}
		delta := (s.g[i] - s.g[j]) / quad
		sum := ai + aj
		ai -= delta
		aj += delta
		if sum > ci {
			if ai > ci {
				ai = ci
				aj = sum - ci
			}
		} else if aj < 0 {
			aj = 0
			ai = sum
		}
		if sum > cj {
			if aj > cj {
				aj = cj
				ai = sum - cj
			}
		} else if ai < 0 {
			ai = 0
			aj = sum
		}
	}
	s.alpha[i], s.alpha[j] = ai, aj
	s.lastAlpha = math.Max(ai, aj)
	if flat && ai != 0 && aj != 0 && ai != ci && aj != cj {
		s.unbounded = true
	}
	dai, daj := ai-oldAi, aj-oldAj
	// New statuses first (I_up must be current for the fused search below);
	// Ḡ after the gradient loop (it may fetch full rows, which could evict
	// qi / qj from a minimal cache).
	wasI, wasJ := s.status[i] == atUpper, s.status[j] == atUpper
	s.updateStatus(i)
	s.updateStatus(j)
	// ∇ update fused with the first half of the next selection: the
	// maximiser of −yₜ∇ₜ over I_up (same order and ties as selectPair).
	g, y, up := s.g[:act], s.y[:act], s.up[:act]
	qi, qj = qi[:act], qj[:act]
	gmax, im := math.Inf(-1), -1
	for k := range g {
		gk := g[k] + float64(qi[k])*dai + float64(qj[k])*daj
		g[k] = gk
		if up[k] {
			if v := -y[k] * gk; v >= gmax {
				gmax, im = v, k
			}
		}
	}
	s.nextI, s.nextGmax, s.haveNext = im, gmax, true
	s.updateGbar(i, wasI)
	s.updateGbar(j, wasJ)
	return true
}

// afterUpdate refreshes the status of i and keeps Ḡ in step when i enters
// or leaves its upper bound.
func (s *solver[T]) afterUpdate(i int) {
	was := s.status[i] == atUpper
	s.updateStatus(i)
	s.updateGbar(i, was)
}

// updateGbar keeps Ḡ in step when i (whose status is already updated) has
// entered or left its upper bound; was says whether it was at it.
func (s *solver[T]) updateGbar(i int, was bool) {
	now := s.status[i] == atUpper
	if was == now {
		return
	}
	q := s.row(i, s.l)
	c := s.u[i]
	if was {
		c = -c
	}
	for k, v := range q {
		s.gbar[k] += c * float64(v)
	}
}

func (s *solver[T]) upOK(t int) bool { // α_t can move along +y_t
	if s.y[t] > 0 {
		return s.canInc(t)
	}
	return s.canDec(t)
}

func (s *solver[T]) downOK(t int) bool { // α_t can move along −y_t
	if s.y[t] > 0 {
		return s.canDec(t)
	}
	return s.canInc(t)
}

// selectPair is WSS2 (Fan, Chen & Lin 2005, eq. (16)): i maximises −yᵢ∇ᵢ
// over I_up; j minimises −b²/a over the violating t ∈ I_low, with
// b = −yᵢ∇ᵢ + yₜ∇ₜ and a = Qᵢᵢ + Qₜₜ − 2yᵢyₜQᵢₜ (τ when a ≤ 0).
func (s *solver[T]) selectPair() (int, int, bool) {
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	im := -1
	act := s.active
	y, g, up, down, qd := s.y[:act], s.g[:act], s.up[:act], s.down[:act], s.qd[:act]
	if s.haveNext {
		// found by the previous update's gradient loop
		gmax, im = s.nextGmax, s.nextI
		s.haveNext = false
	} else {
		for t := range up {
			if up[t] {
				if v := -y[t] * g[t]; v >= gmax {
					gmax, im = v, t
				}
			}
		}
	}
	jm := -1
	objMin := math.Inf(1)
	if im >= 0 {
		qi := s.row(im, act)[:act]
		yi, qdi := s.y[im], s.qd[im]
		for t := range down {
			if !down[t] {
				continue
			}
			yg := y[t] * g[t]
			if yg >= gmax2 {
				gmax2 = yg
			}
			gd := gmax + yg
			if gd > 0 {
				quad := qdi + qd[t] - 2*yi*y[t]*float64(qi[t])
				if quad <= 0 {
					quad = tau
				}
				if o := -gd * gd / quad; o <= objMin {
					jm, objMin = t, o
				}
			}
		}
	}
	s.viol = gmax + gmax2
	if im < 0 || jm < 0 || gmax+gmax2 < s.eps {
		if im < 0 || jm < 0 {
			s.viol = math.Max(s.viol, 0)
		}
		return -1, -1, false
	}
	return im, jm, true
}

// pairViolation is m(α) − M(α) over the active set.
func (s *solver[T]) pairViolation() float64 {
	up, low := math.Inf(-1), math.Inf(-1)
	for t := 0; t < s.active; t++ {
		yg := -s.y[t] * s.g[t]
		if s.upOK(t) && yg > up {
			up = yg
		}
		if s.downOK(t) && -yg > low {
			low = -yg
		}
	}
	if math.IsInf(up, -1) || math.IsInf(low, -1) {
		return 0
	}
	return math.Max(up+low, 0)
}

// projected returns the violation of variable t without an equality
// constraint: the size of its projected gradient.
func (s *solver[T]) projected(t int) float64 {
	g := s.g[t]
	switch s.status[t] {
	case atLower:
		return math.Max(-g, 0)
	case atUpper:
		return math.Max(g, 0)
	case fixed:
		return 0
	}
	return math.Abs(g)
}

func (s *solver[T]) singleViolation() float64 {
	m := 0.0
	for t := 0; t < s.active; t++ {
		m = math.Max(m, s.projected(t))
	}
	return m
}

// stepSingle is one coordinate-descent step without the equality
// constraint: pick the variable with the largest guaranteed decrease
// pg²/Qₜₜ among the violators, minimise exactly along it, clip to the box.
func (s *solver[T]) stepSingle() bool {
	best, bestGain, maxV := -1, -1.0, 0.0
	for t := 0; t < s.active; t++ {
		v := s.projected(t)
		if v > maxV {
			maxV = v
		}
		if v > 0 {
			d := s.qd[t]
			if d <= 0 {
				d = tau
			}
			if gain := v * v / d; gain > bestGain {
				best, bestGain = t, gain
			}
		}
	}
	s.viol = maxV
	if best < 0 || maxV < s.eps {
		return false
	}
	i := best
	d := s.qd[i]
	flat := d <= 0
	if flat {
		d = tau
	}
	old := s.alpha[i]
	a := old - s.g[i]/d
	if a < 0 {
		a = 0
	}
	if a > s.u[i] {
		a = s.u[i]
	}
	if flat && a != 0 && a != s.u[i] {
		s.unbounded = true
	}
	s.alpha[i] = a
	s.lastAlpha = a
	da := a - old
	qi := s.row(i, s.active)
	g := s.g[:s.active]
	for k := range g {
		g[k] += float64(qi[k]) * da
	}
	s.afterUpdate(i)
	return true
}

// beShrunk says whether variable t is at a bound and more than satisfied
// (Chang & Lin 2011, §5.1, eq. (5.8)).
func (s *solver[T]) beShrunk(t int, gmax1, gmax2 float64) bool {
	switch s.status[t] {
	case atUpper:
		if s.y[t] > 0 {
			return -s.g[t] > gmax1
		}
		return -s.g[t] > gmax2
	case atLower:
		if s.y[t] > 0 {
			return s.g[t] > gmax2
		}
		return s.g[t] > gmax1
	case fixed:
		return true
	}
	return false
}

func (s *solver[T]) shrink() {
	s.haveNext = false
	var gmax1, gmax2 float64
	if s.eq {
		gmax1, gmax2 = math.Inf(-1), math.Inf(-1)
		for t := 0; t < s.active; t++ {
			if s.upOK(t) {
				gmax1 = math.Max(gmax1, -s.y[t]*s.g[t])
			}
			if s.downOK(t) {
				gmax2 = math.Max(gmax2, s.y[t]*s.g[t])
			}
		}
	} else {
		// single variables: shrink bounds whose gradient points outward by
		// more than the largest violation
		m := s.singleViolation()
		gmax1, gmax2 = m, m
	}
	if !s.unshrink && gmax1+gmax2 <= 10*s.eps {
		s.unshrink = true
		s.reconstructGradient()
		s.active = s.l
	}
	s.pending = s.pending[:0]
	for t := 0; t < s.active; t++ {
		if !s.beShrunk(t, gmax1, gmax2) {
			continue
		}
		s.active--
		for s.active > t {
			if !s.beShrunk(s.active, gmax1, gmax2) {
				s.swapVars(t, s.active)
				s.pending = append(s.pending, [2]int{t, s.active})
				break
			}
			s.active--
		}
	}
	// move the cached entries once per row for the whole batch
	s.cache.SwapBatch(s.pending)
}

// reconstructGradient recomputes ∇ of the shrunk variables from Ḡ and the
// free variables (Chang & Lin 2011, eq. (5.10)).
func (s *solver[T]) reconstructGradient() {
	s.haveNext = false
	if s.active == s.l {
		return
	}
	l, act := s.l, s.active
	for j := act; j < l; j++ {
		s.g[j] = s.gbar[j] + s.p[j]
	}
	nFree := 0
	for j := 0; j < act; j++ {
		if s.status[j] == free {
			nFree++
		}
	}
	if nFree*l > 2*act*(l-act) {
		for i := act; i < l; i++ {
			s.rowTick()
			q := s.row(i, act)
			for j := 0; j < act; j++ {
				if s.status[j] == free {
					s.g[i] += s.alpha[j] * float64(q[j])
				}
			}
		}
	} else {
		for i := 0; i < act; i++ {
			if s.status[i] != free {
				continue
			}
			s.rowTick()
			q := s.row(i, l)
			a := s.alpha[i]
			for j := act; j < l; j++ {
				s.g[j] += a * float64(q[j])
			}
		}
	}
}

// rowTick calls the progress callback every few full-row computations
// outside the main loop (gradient initialisation and reconstruction can
// take many rows; the browser needs its callbacks meanwhile).
func (s *solver[T]) rowTick() {
	if s.opt.Progress == nil {
		return
	}
	s.rows++
	every := s.opt.ProgressEvery/2 + 1
	if s.opt.ProgressEvery <= 0 {
		every = 100
	}
	if s.rows%every == 0 {
		s.opt.Progress(s.iter, s.viol)
	}
}

// rho follows LIBSVM: the mean of y∇ over free variables, else the midpoint
// of [max lower, min upper] (one-sided when only one side is bounded).
func (s *solver[T]) rho() float64 {
	if !s.eq {
		return 0
	}
	ub, lb := math.Inf(1), math.Inf(-1)
	nFree, sum := 0, 0.0
	for i := 0; i < s.l; i++ {
		yg := s.y[i] * s.g[i]
		switch s.status[i] {
		case atUpper:
			if s.y[i] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case atLower:
			if s.y[i] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case free:
			nFree++
			sum += yg
		}
	}
	switch {
	case nFree > 0:
		return sum / float64(nFree)
	case math.IsInf(ub, 1) && math.IsInf(lb, -1):
		return 0
	case math.IsInf(ub, 1):
		return lb
	case math.IsInf(lb, -1):
		return ub
	}
	return (ub + lb) / 2
}

func (s *solver[T]) result() *Result {
	n := s.l
	r := &Result{Alpha: make([]float64, n), Grad: make([]float64, n), Iter: s.iter, Converged: s.conv, Violation: s.viol, Rho: s.rho(), Polishes: s.polishes}
	obj := 0.0
	for k := 0; k < n; k++ {
		o := s.perm[k]
		r.Alpha[o] = s.alpha[k]
		r.Grad[o] = s.g[k]
		obj += s.alpha[k] * (s.g[k] + s.p[k])
		switch s.status[k] {
		case free:
			r.NFree++
		case atUpper:
			r.NBound++
		}
	}
	r.Obj = obj / 2
	return r
}
