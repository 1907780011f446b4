// Package qp is LUPI Lab's dense convex quadratic-programming solver:
//
//	minimise ½xᵀPx + qᵀx  subject to  Ax ≤ b,  Ex = d,  l ≤ x ≤ u
//
// with P symmetric positive semidefinite and every bound optional (nil slice,
// or ±Inf entries). It is the reference solver for SVM1+ (paper 000, eqs 1–2)
// and the engine behind the twin-SVM and multi-view models.
//
// # Method
//
// A primal-dual interior-point method with Mehrotra's predictor–corrector,
// applied to the homogeneous self-dual embedding of the QP's optimality
// conditions (the form used by Clarabel: Goulart & Chen 2024, "Clarabel: an
// interior-point solver for conic programs with quadratic objectives", §3–4;
// for LPs Xu, Hung & Ye 1996). Variables are (x, y, z, s, τ, κ) with
//
//	Px + Eᵀy + Gᵀz + qτ = 0,   Ex = dτ,   Gx + s = hτ,
//	κ + qᵀx + dᵀy + hᵀz + xᵀPx/τ = 0,   s∘z = 0,  τκ = 0,  s, z, τ, κ ≥ 0,
//
// where Gx ≤ h stacks Ax ≤ b, −x ≤ −l and x ≤ u (finite bounds only). A
// solution with τ > 0 gives the optimum x/τ; τ → 0 with κ > 0 yields a
// Farkas-type certificate, which is how infeasible (ErrInfeasible) and
// unbounded (ErrUnbounded) problems are reported — by certificates checked
// against the data, not by a heuristic divergence test. A certificate is
// accepted when its relative defect is ≤ InfeasTol (1e-8), or ≤ 1e-6 once τ
// is numerically zero and the certificate has stopped improving; a
// recession direction is reported as ErrUnbounded only after a second solve
// (min ½‖x‖² over the same constraints) has found a feasible point —
// otherwise the problem is reported infeasible.
//
// Each iteration factorises one symmetric positive definite matrix (see
// kkt.go for why Cholesky of the reduced system was chosen over LDLᵀ) and
// solves with it three to five times (the τ-direction, the predictor, the
// corrector and up to two Gondzio centrality correctors), each solve with
// iterative refinement. All work buffers are allocated once per Solve.
//
// The objective is scaled internally by c = 1/max(‖q‖∞, max|Pᵢⱼ|), so the
// stopping test (relative primal residual, dual residual and gap ≤ Tol, see
// Result) does not depend on the objective's units; results are returned in
// the caller's units.
//
// Non-convex problems are rejected up front: P is checked with CheckPSD and a
// P with an eigenvalue below −tol·‖P‖ gives ErrNotPSD. Callers that need a
// non-convex QP must choose another method deliberately.
package qp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/internal/scratch"
)

// Sentinel errors. Solve wraps them with a message describing the problem;
// test with errors.Is.
var (
	// ErrNotPSD: P is not positive semidefinite (the problem is not convex).
	ErrNotPSD = errors.New("qp: P is not positive semidefinite")
	// ErrInfeasible: the constraints admit no x (a Farkas certificate was found).
	ErrInfeasible = errors.New("qp: problem is infeasible")
	// ErrUnbounded: the objective is unbounded below on the feasible set: a
	// recession direction with Pd = 0, qᵀd < 0 was found and the constraints
	// were shown feasible (a problem that is infeasible and also has such a
	// direction is reported as ErrInfeasible).
	ErrUnbounded = errors.New("qp: objective is unbounded below")
	// ErrInput: the problem data are malformed (shapes, NaN/Inf, bounds).
	ErrInput = errors.New("qp: invalid problem")
)

// Problem is min ½xᵀPx + qᵀx s.t. Ax ≤ b, Ex = d, Lower ≤ x ≤ Upper.
//
// The number of variables n is len(Q). P may be nil (a linear program); A/B
// and E/D may be nil (no such constraints); Lower/Upper may be nil (no
// bounds), and individual entries may be −Inf / +Inf (no bound on that
// variable). A row of B equal to +Inf is ignored. Lower[i] == Upper[i] fixes
// x[i].
type Problem struct {
	P     *mat.SymDense // n×n, positive semidefinite; nil ⇒ 0
	Q     []float64     // length n
	A     *mat.Dense    // mI×n, with B
	B     []float64     // length mI: Ax ≤ b
	E     *mat.Dense    // mE×n, with D
	D     []float64     // length mE: Ex = d
	Lower []float64     // nil or length n; −Inf = no lower bound
	Upper []float64     // nil or length n; +Inf = no upper bound
}

// Options tune Solve. The zero value gives the defaults.
type Options struct {
	// Tol is the relative tolerance on primal residual, dual residual and
	// duality gap (default 1e-8).
	Tol float64
	// MaxIter caps the interior-point iterations (default 100). Hitting it
	// returns Converged = false with the residuals reached, and no error.
	// A run that stalls or hits MaxIter returns its best iterate (smallest
	// worst relative measure).
	MaxIter int
	// Progress, if non-nil, is called once per iteration with the iteration
	// number (0, 1, …). For n ≥ 256 it is also called between the blocks
	// of each O(n³) factorisation with the current iteration number (so
	// roughly every n²·64 flops), letting a browser caller yield often;
	// cancellation of ctx is honoured at the same points.
	Progress func(iter int)
	// InfeasTol is the relative tolerance of the infeasibility certificates
	// (default 1e-8).
	InfeasTol float64
	// PSDTol is the relative tolerance of the convexity check: P is accepted
	// when its smallest eigenvalue is ≥ −PSDTol·‖P‖ (default 1e-9).
	PSDTol float64
	// Trace, if non-nil, receives per-iteration diagnostics.
	Trace func(Info)
}

// Info is one iteration's diagnostics, passed to Options.Trace.
type Info struct {
	Iter               int
	PrimalObj, DualObj float64 // at x/τ, in the caller's units
	// Relative measures compared with Tol.
	PrimalRes, DualRes, Gap float64
	// Mu is the complementarity (sᵀz + τκ)/(m+1) of the scaled problem;
	// Tau and Kappa are the embedding's homogenising variables; Step is the
	// step length taken in the previous iteration.
	Mu, Tau, Kappa, Step float64
	// Regularization is the diagonal shift δ of the last factorisation.
	Regularization float64
}

// Status says how Solve ended.
type Status int

const (
	// StatusOptimal: all three relative measures are ≤ Tol.
	StatusOptimal Status = iota
	// StatusMaxIter: MaxIter iterations without convergence.
	StatusMaxIter
	// StatusStalled: the iteration could not make progress (step length
	// collapsed or the KKT system could not be factorised).
	StatusStalled
	// StatusInfeasible: a primal infeasibility certificate was found.
	StatusInfeasible
	// StatusUnbounded: a dual infeasibility certificate was found.
	StatusUnbounded
)

// String returns a short human-readable name.
func (s Status) String() string {
	switch s {
	case StatusOptimal:
		return "optimal"
	case StatusMaxIter:
		return "iteration limit"
	case StatusStalled:
		return "stalled"
	case StatusInfeasible:
		return "infeasible"
	case StatusUnbounded:
		return "unbounded"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is Solve's output. Multipliers satisfy, at the optimum,
//
//	Px + q + Aᵀz + Eᵀy − zLower + zUpper = 0,  z, zLower, zUpper ≥ 0,
//
// with complementarity zᵢ(b − Ax)ᵢ = 0, zLowerᵢ(xᵢ − lᵢ) = 0, zUpperᵢ(uᵢ − xᵢ) = 0.
type Result struct {
	X         []float64 // primal solution (length n); nil when infeasible; a feasible point when unbounded
	Obj       float64   // ½xᵀPx + qᵀx at X
	DualObj   float64   // Lagrangian dual objective at (X, Y, Z, ZLower, ZUpper)
	Iter      int       // interior-point iterations (factorisations) taken
	Converged bool      // Status == StatusOptimal
	Status    Status

	Y      []float64 // multipliers of Ex = d (length mE)
	Z      []float64 // multipliers of Ax ≤ b (length mI), ≥ 0
	ZLower []float64 // multipliers of x ≥ l (length n; 0 where unbounded)
	ZUpper []float64 // multipliers of x ≤ u (length n; 0 where unbounded)

	// Absolute residuals at the returned point (∞-norms):
	PrimalRes float64 // max violation of Ax ≤ b, Ex = d, l ≤ x ≤ u
	DualRes   float64 // ‖Px + q + Aᵀz + Eᵀy − zLower + zUpper‖∞
	Gap       float64 // |Obj − DualObj|
	// Relative measures the stopping test compares with Tol (computed on
	// the cost-scaled problem, see the package comment): PrimalRes over
	// 1 + max(‖b‖∞, ‖d‖∞, finite bounds) (the stopping test also forgives
	// rounding of 100ε·max(‖Ax‖∞, ‖Ex‖∞)); DualRes over 1 + the largest of
	// ‖q‖∞, ‖Px‖∞, ‖Aᵀz‖∞, ‖Eᵀy‖∞, ‖zLower‖∞, ‖zUpper‖∞; Gap over
	// max(1, min(|Obj|, |DualObj|)).
	RelPrimalRes, RelDualRes, RelGap float64

	// Certificate is, for StatusUnbounded, a normalised direction d (‖d‖∞ = 1)
	// with Pd ≈ 0, Ed ≈ 0, Ad ≤ 0, bounds respected and qᵀd < 0; X is then
	// a feasible point (ErrUnbounded is only returned once the constraints
	// are shown feasible; if that check fails to converge the error says so
	// and X is nil). For
	// StatusInfeasible it is nil and Y, Z, ZLower, ZUpper hold the normalised
	// Farkas multipliers (Aᵀz + Eᵀy − zLower + zUpper ≈ 0 with bᵀz + dᵀy −
	// lᵀzLower + uᵀzUpper < 0).
	Certificate []float64
}

// Solve solves the QP. On ErrInfeasible / ErrUnbounded it also returns a
// Result holding the certificate; on other errors the Result is nil. Solve
// checks ctx once per iteration and returns ctx.Err() when it is done.
func Solve(ctx context.Context, p *Problem, opt Options) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-8
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 100
	}
	if opt.InfeasTol == 0 {
		opt.InfeasTol = 1e-8
	}
	if opt.PSDTol == 0 {
		opt.PSDTol = 1e-9
	}
	if !(opt.Tol > 0) || !(opt.InfeasTol > 0) || !(opt.PSDTol > 0) || opt.MaxIter < 0 {
		return nil, fmt.Errorf("%w: tolerances must be > 0 and MaxIter ≥ 0", ErrInput)
	}
	s, err := newSetup(p)
	if err != nil {
		return nil, err
	}
	defer s.release()
	k := newKKT(s)
	defer k.release()
	if p.P != nil {
		tick := func() error {
			if opt.Progress != nil && s.n >= progressBlockN {
				opt.Progress(0)
			}
			return ctx.Err()
		}
		// The KKT matrix buffer serves as the scratch of the check.
		if err := checkPSD(s.p, s.n, opt.PSDTol, tick, 1/s.cost, k.h); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := s.solve(ctx, k, opt)
	if res == nil || res.Status != StatusUnbounded {
		return res, err
	}
	// A recession direction proves unboundedness only if the constraints
	// are feasible: find the feasible point nearest the origin,
	// min ½‖x‖² s.t. the same constraints (strictly convex, so it is
	// either optimal or certified infeasible).
	fs := s.feasibility()
	fopt := Options{Tol: opt.Tol, MaxIter: opt.MaxIter, InfeasTol: opt.InfeasTol, PSDTol: opt.PSDTol}
	if opt.Progress != nil {
		fopt.Progress = func(it int) { opt.Progress(res.Iter + it) }
	}
	fk := newKKT(fs)
	defer fk.release()
	defer scratch.Put(fs.p)
	fr, ferr := fs.solve(ctx, fk, fopt)
	switch {
	case errors.Is(ferr, ErrInfeasible):
		fr.Iter += res.Iter
		return fr, ferr
	case ferr != nil && fr == nil:
		return nil, ferr // cancelled
	case fr.Converged:
		res.X = fr.X
		res.Iter += fr.Iter
		return res, fmt.Errorf("%w; Result.X is a feasible point from which it does", err)
	}
	res.Iter += fr.Iter
	return res, fmt.Errorf("%w (feasibility of the constraints could not be confirmed: %v after %d iterations, so the problem may instead be infeasible)", err, fr.Status, fr.Iter)
}

// feasibility returns the problem min ½‖x‖² subject to s's constraints.
// It shares s's constraint data (read-only).
func (s *setup) feasibility() *setup {
	f := *s
	n := s.n
	f.q = make([]float64, n)
	f.p = scratch.Floats(n * n)
	for i := 0; i < n; i++ {
		f.p[i*n+i] = 1
	}
	f.cost = 1
	return &f
}

// setup is the problem in the solver's internal form: inequalities
// Gx ≤ h with G = [A (finite rows); −I (finite lower); I (finite upper)],
// equalities Ex = d including fixed variables.
type setup struct {
	n    int
	p    []float64 // P row-major n×n (full, symmetric), nil if P == nil
	q    []float64
	a    []float64 // kept rows of A, row-major mA×n
	mA   int
	rowA []int // original row index of each kept A row
	mA0  int   // original number of rows of A
	lo   []int // variables with finite lower bound (not fixed)
	up   []int // variables with finite upper bound (not fixed)
	m    int   // mA + len(lo) + len(up)
	h    []float64
	e    []float64 // equality rows, row-major pE×n (original rows then fixed variables)
	pE   int
	pE0  int   // original number of equality rows
	fix  []int // fixed variables (equality rows pE0…)
	d    []float64

	lower, upper []float64 // normalised bounds (length n, ±Inf where none)

	// cost is the objective scale c: the solver works on (cP, cq), so that
	// ‖cq‖∞, max|cPᵢⱼ| ≤ 1 with equality for one of them, which makes the
	// absolute parts of the stopping tests independent of the objective's
	// units. x is unchanged; multipliers and objective are divided by c on
	// the way out.
	cost float64
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func newSetup(pr *Problem) (*setup, error) {
	if pr == nil {
		return nil, fmt.Errorf("%w: nil problem", ErrInput)
	}
	n := len(pr.Q)
	if n == 0 {
		return nil, fmt.Errorf("%w: no variables (len(Q) == 0)", ErrInput)
	}
	s := &setup{n: n, q: append([]float64(nil), pr.Q...)}
	for _, f := range []func(*Problem) error{s.setObjective, s.setInequalities, s.setEqualities, s.setBounds} {
		if err := f(pr); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// release gives s's large arrays back for the next solve (scratch); s is
// not used afterwards.
func (s *setup) release() {
	scratch.Put(s.p)
	scratch.Put(s.a)
	s.p, s.a = nil, nil
}

// setObjective checks q and P, stores P in full and scales both by the
// objective scale c (setup.cost).
func (s *setup) setObjective(pr *Problem) error {
	n := s.n
	for i, v := range s.q {
		if !finite(v) {
			return fmt.Errorf("%w: Q[%d] = %v", ErrInput, i, v)
		}
	}
	if pr.P != nil {
		if r := pr.P.SymmetricDim(); r != n {
			return fmt.Errorf("%w: P is %d×%d but len(Q) = %d", ErrInput, r, r, n)
		}
		s.p = scratch.Floats(n * n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := pr.P.At(i, j)
				if !finite(v) {
					return fmt.Errorf("%w: P[%d,%d] = %v", ErrInput, i, j, v)
				}
				s.p[i*n+j] = v
				s.p[j*n+i] = v
			}
		}
	}
	big := normInf(s.q)
	for _, v := range s.p {
		big = math.Max(big, math.Abs(v))
	}
	s.cost = 1
	if big > 0 {
		s.cost = 1 / big
		for i := range s.q {
			s.q[i] *= s.cost
		}
		for i := range s.p {
			s.p[i] *= s.cost
		}
	}
	return nil
}

// checkRows checks a block of constraint rows M x (≤ or =) v, M and v named
// mn and vn in errors: M and v come together (a nil M with an empty v is no
// block), and M is len(v) × n. It returns M's rows (0 for no block).
func checkRows(mn, vn string, M *mat.Dense, v []float64, n int) (int, error) {
	if M == nil {
		if len(v) != 0 {
			return 0, fmt.Errorf("%w: %s has %d entries but %s is nil", ErrInput, vn, len(v), mn)
		}
		return 0, nil
	}
	r, c := M.Dims()
	if len(v) == 0 && r != 0 {
		return 0, fmt.Errorf("%w: %s has %d rows but %s is empty", ErrInput, mn, r, vn)
	}
	if c != n || r != len(v) {
		return 0, fmt.Errorf("%w: %s is %d×%d, want %d×%d (len(%s)×len(Q))", ErrInput, mn, r, c, len(v), n, vn)
	}
	return r, nil
}

// setInequalities checks Ax ≤ b and keeps its rows with a finite bᵢ.
func (s *setup) setInequalities(pr *Problem) error {
	n := s.n
	r, err := checkRows("A", "B", pr.A, pr.B, n)
	if err != nil {
		return err
	}
	if pr.A != nil {
		s.mA0 = r
		kept := 0
		for _, bi := range pr.B {
			if !math.IsInf(bi, 1) {
				kept++
			}
		}
		s.a = scratch.Floats(kept * n)[:0]
		for i := 0; i < r; i++ {
			bi := pr.B[i]
			if math.IsNaN(bi) {
				return fmt.Errorf("%w: B[%d] is NaN", ErrInput, i)
			}
			for j := 0; j < n; j++ {
				if v := pr.A.At(i, j); !finite(v) {
					return fmt.Errorf("%w: A[%d,%d] = %v", ErrInput, i, j, v)
				}
			}
			if math.IsInf(bi, 1) {
				continue
			}
			if math.IsInf(bi, -1) {
				return fmt.Errorf("%w: B[%d] = -Inf (row %d of Ax ≤ b can never hold)", ErrInfeasible, i, i)
			}
			s.rowA = append(s.rowA, i)
			for j := 0; j < n; j++ {
				s.a = append(s.a, pr.A.At(i, j))
			}
			s.h = append(s.h, bi)
		}
		s.mA = len(s.rowA)
	}
	return nil
}

// setEqualities checks Ex = d and stores it.
func (s *setup) setEqualities(pr *Problem) error {
	n := s.n
	r, err := checkRows("E", "D", pr.E, pr.D, n)
	if err != nil {
		return err
	}
	if pr.E != nil {
		s.pE0 = r
		for i := 0; i < r; i++ {
			if !finite(pr.D[i]) {
				return fmt.Errorf("%w: D[%d] = %v", ErrInput, i, pr.D[i])
			}
			for j := 0; j < n; j++ {
				v := pr.E.At(i, j)
				if !finite(v) {
					return fmt.Errorf("%w: E[%d,%d] = %v", ErrInput, i, j, v)
				}
				s.e = append(s.e, v)
			}
			s.d = append(s.d, pr.D[i])
		}
	}
	return nil
}

// setBounds checks the bounds, turns the finite ones into rows of Gx ≤ h
// (lower, then upper) and the fixed variables into equality rows.
func (s *setup) setBounds(pr *Problem) error {
	n := s.n
	if pr.Lower != nil && len(pr.Lower) != n {
		return fmt.Errorf("%w: len(Lower) = %d, want %d", ErrInput, len(pr.Lower), n)
	}
	if pr.Upper != nil && len(pr.Upper) != n {
		return fmt.Errorf("%w: len(Upper) = %d, want %d", ErrInput, len(pr.Upper), n)
	}
	s.lower = make([]float64, n)
	s.upper = make([]float64, n)
	for i := 0; i < n; i++ {
		l, u := math.Inf(-1), math.Inf(1)
		if pr.Lower != nil {
			l = pr.Lower[i]
		}
		if pr.Upper != nil {
			u = pr.Upper[i]
		}
		if math.IsNaN(l) || math.IsInf(l, 1) {
			return fmt.Errorf("%w: Lower[%d] = %v", ErrInput, i, l)
		}
		if math.IsNaN(u) || math.IsInf(u, -1) {
			return fmt.Errorf("%w: Upper[%d] = %v", ErrInput, i, u)
		}
		if l > u {
			return fmt.Errorf("%w: Lower[%d] = %v > Upper[%d] = %v", ErrInfeasible, i, l, i, u)
		}
		s.lower[i], s.upper[i] = l, u
		switch {
		case l == u:
			s.fix = append(s.fix, i)
		default:
			if !math.IsInf(l, -1) {
				s.lo = append(s.lo, i)
				s.h = append(s.h, -l)
			}
		}
	}
	for i := 0; i < n; i++ {
		if s.lower[i] != s.upper[i] && !math.IsInf(s.upper[i], 1) {
			s.up = append(s.up, i)
			s.h = append(s.h, s.upper[i])
		}
	}
	for _, i := range s.fix {
		row := make([]float64, n)
		row[i] = 1
		s.e = append(s.e, row...)
		s.d = append(s.d, s.lower[i])
	}
	s.pE = s.pE0 + len(s.fix)
	s.m = s.mA + len(s.lo) + len(s.up)
	return nil
}
