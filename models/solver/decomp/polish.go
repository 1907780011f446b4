package decomp

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Newton polishing on the free set.
//
// SMO-type methods move two to four coordinates at a time, so their
// iteration count grows with the condition number of the Hessian
// restricted to the free variables. Duals whose Hessian has a tiny but
// non-zero spectrum there — SVM2+ with large C (Qλ ≤ 1/C on the directions
// a low-rank K misses), any SVM dual with a low-rank kernel and large C,
// SVM1+ with a small λ (K̃/λ huge on some directions, zero on the null
// space of a low-rank K̃) — take millions of iterations for a few dozen free
// variables. An active-set Newton step fixes that: with F the free
// variables, minimise the objective over the face {x_B fixed, E x = const}
// exactly,
//
//	d = argmin ½dᵀH_FF d + ∇_Fᵀd  s.t.  E_F d = 0,
//
// (one Cholesky factorisation of H_FF + δI, a solve per constraint, the
// multipliers of the equalities by their Schur complement), then take the
// step along d clipped by the box (a ratio test: the first variable to
// reach a bound stops the step and leaves F). The objective never
// increases, the iterate stays feasible, and the method continues from it
// with its own stopping rule unchanged; when F is the optimal free set the
// step lands on the optimum, and the method's next selection certifies it.
//
// Rounds: the free set of an unfinished run is neither a subset nor a
// superset of the optimal one. A round solves one face (above); the next
// round refactorises the face of the variables that are free now, widened
// by the variables at a bound that violate the optimality conditions there
// (against the multipliers the free variables agree on; at most |F|/4 per
// round, the largest violations first), so a polish is an active-set
// method warm-started by the decomposition method.
//
// Cost control: within a round H_FF + δI is factorised once; a variable
// that a step drives to a bound stays there by one more equality eₖᵀd = 0
// in the Schur complement (one solve, O(|F|²)); H̃⁻¹∇ and H̃d follow the
// step without products with H (d = −H̃⁻¹(∇ + Eᵀμ)); once the Schur
// complement has more rows than about |F|^⅔ the next round refactorises
// the smaller face. Only a round's final change touches the whole gradient
// (Face.Apply). Every round spends from a budget in flops that the
// policy grants (Policy.PolishDue); the factorisation is blocked with
// progress ticks, and rounds and passes report progress too: a browser
// needs its callbacks every few milliseconds.

// Face is what the Newton polish needs of a dual. Variables are numbered
// as the dual likes (positions of an SMO solver, 2n indices for a
// two-block dual).
type Face interface {
	// Free appends the free variables to F.
	Free(F []int) []int
	// Violators appends to add at most k of the variables at a bound whose
	// move off the bound would decrease the objective at the current point
	// by more than the tolerance per unit, measured against the
	// multipliers of the equality constraints that the free variables agree
	// on, the largest violations first; and returns how many there are in
	// all.
	Violators(add []int, k int) ([]int, int)
	// Load writes the problem on the face F into f (see FaceProblem); false
	// when it cannot be formed.
	Load(F []int, f *FaceProblem) bool
	// Apply moves the variables of F from f.X0 to f.X, keeping the
	// gradient (and whatever else the dual maintains) in step. It may
	// overwrite f.X0.
	Apply(F []int, f *FaceProblem)
	// Tick reports progress during a polish (a browser needs it every few
	// milliseconds).
	Tick()
}

// FaceProblem is a face's problem, written by Face.Load into storage the
// polisher provides (each slice has len(F) entries, H has len(F)²).
type FaceProblem struct {
	// H is the upper triangle of H_FF, row-major with stride len(F).
	H []float64
	// MaxDiag is the largest diagonal entry of H_FF (no factorisation
	// when it is not positive).
	MaxDiag float64
	// X, G and U are the variables, their gradient and their upper bounds
	// (+Inf allowed; the lower bounds are 0).
	X, G, U []float64
	// Eq holds the equality constraints' rows restricted to F (as many as
	// the dual has, Eqs of them), Eq[q][a] the coefficient of F[a].
	Eq [][]float64
	// Cost is what Load and Apply cost in flops beyond the factorisation
	// (the rows of H_FF, the final gradient update).
	Cost float64
	// X0 holds X as it was when loaded (set by the polisher).
	X0 []float64

	eqs int
	buf []float64
}

// PolishOptions tune a polish.
type PolishOptions struct {
	// Eqs is the number of equality constraints of the dual (0, 1 or 2).
	Eqs int
	// MinFace is the smallest face worth a factorisation (at least Eqs+1).
	MinFace int
	// MaxFace bounds |F| (a polish costs O(|F|³)); 0: no bound.
	MaxFace int
	// ExactSteps recomputes H̃⁻¹∇ every pass and steps to the minimiser
	// along d for H_FF itself (a product with H_FF per pass, O(|F|²))
	// instead of taking the unit Newton step for H̃ = H_FF + δI and
	// following ∇ and H̃⁻¹∇ through it. For duals whose H_FF is singular
	// along the directions the steps take (SVM1+ with low-rank kernels and
	// a small λ), where following the step with H̃ lets the face's
	// gradient drift from the true one: the SVM1+ polish took 16 193
	// iterations with exact steps and 23 848 without on gsmo's
	// TestPolish problem.
	ExactSteps bool
	// Widen enables the widening rounds (Face.Violators).
	Widen bool
	// Floor and Extensions: a polish that runs out of budget while the
	// number of violators at its solved faces keeps falling (an active set
	// that is converging) gets Floor more flops, up to Extensions times.
	Floor      float64
	Extensions int
}

// polishRounds bounds the rounds of a polish.
const polishRounds = 50

// Polisher runs Newton polishes; it keeps the storage of a face (the
// Hessian, its factor, the vectors of a round) from round to round.
type Polisher struct {
	opt  PolishOptions
	face FaceProblem
	h    []float64
	chol []float64
	vec  []float64
	// fixed marks the variables a round holds at a bound.
	fixed []bool
	// sc holds a face's solutions and Schur systems; cols, ws and unit its
	// constraint rows, add and F the faces.
	sc       Scratch
	cols, ws [][]float64
	unit     []int
	add, F   []int
}

// polisherPool recycles Polishers: the tasks of a one-vs-rest fit and the
// points of a grid search each start a solver, and each would otherwise
// grow its storage afresh (digits, n = 269: 7 % of the polish in
// allocation and zeroing).
var polisherPool sync.Pool

// NewPolisher returns a Polisher (from a pool; Release returns it).
func NewPolisher(opt PolishOptions) *Polisher {
	p, _ := polisherPool.Get().(*Polisher)
	if p == nil {
		p = &Polisher{}
	}
	opt.MinFace = max(opt.MinFace, opt.Eqs+1)
	p.opt = opt
	return p
}

// Release returns p to the pool; p must not be used afterwards.
func (p *Polisher) Release() { polisherPool.Put(p) }

// Run polishes the dual d within budget flops: rounds of Newton passes on
// faces, each after the first widened by the violators when the previous
// face was solved. It returns the budget left and whether it ran out of
// it before the polish was done.
func (p *Polisher) Run(d Face, budget float64) (left float64, unfinished bool) {
	F := d.Free(p.F[:0])
	defer func() { p.F = F[:0] }()
	optimal := false
	// nv is the number of violators at the last solved face; ext counts
	// the budget extensions granted while it kept falling.
	nv, ext := math.MaxInt, 0
	for round := 0; round < polishRounds; round++ {
		if round > 0 {
			F = d.Free(F[:0])
			if optimal && p.opt.Widen {
				// The face is solved: widen it by the violators.
				var add []int
				var n int
				add, n = d.Violators(p.add[:0], max(1, len(F)/4))
				p.add = add[:0]
				if len(add) == 0 {
					return budget, false
				}
				// Low on budget while the violators keep falling: the
				// active set is converging, and finishing it here is
				// cheaper than the iterations that would have to pay for
				// another polish (digits one-vs-rest, n = 1 438: SVM2+
				// took 1 163–8 144 SMO iterations for four classes, which
				// an extended polish saves).
				falling := n < nv
				nv = n
				if budget < p.opt.Floor/2 && falling && ext < p.opt.Extensions {
					ext++
					budget += p.opt.Floor
				}
				if budget <= 0 {
					break
				}
				F = append(F, add...)
			} else if budget <= 0 {
				break
			}
			d.Tick()
		}
		var ok bool
		if budget, ok, optimal = p.newton(d, F, budget); !ok {
			return budget, false
		}
	}
	return budget, budget <= 0
}

// load sizes the face storage for nf variables and asks d for the face.
func (p *Polisher) load(d Face, F []int) (*FaceProblem, bool) {
	nf := len(F)
	f := &p.face
	p.h = grow(p.h, nf*nf)
	m := p.opt.Eqs
	f.buf = grow(f.buf, (5+m)*nf)
	f.H = p.h
	f.X, f.X0, f.G, f.U = f.buf[:nf], f.buf[nf:2*nf], f.buf[2*nf:3*nf], f.buf[3*nf:4*nf]
	f.Eq = f.Eq[:0]
	for q := 0; q < m; q++ {
		f.Eq = append(f.Eq, f.buf[(5+q)*nf:(6+q)*nf])
	}
	f.eqs, f.MaxDiag, f.Cost = m, 0, 0
	if !d.Load(F, f) {
		return nil, false
	}
	copy(f.X0, f.X)
	return f, true
}

// newton minimises the objective over the face of the variables F (the
// others fixed) by Newton steps with a ratio test, applies the result
// (Face.Apply), and returns the budget left; ok is false when the face
// could not be factorised (nothing changed), optimal true when the last
// pass found the face's minimiser (no descent direction, or a full step
// that no bound stopped).
func (p *Polisher) newton(d Face, F []int, budget float64) (left float64, ok, optimal bool) {
	nf := len(F)
	if nf < p.opt.MinFace || (p.opt.MaxFace > 0 && nf > p.opt.MaxFace) {
		return budget, false, false
	}
	f, ok := p.load(d, F)
	if !ok {
		return budget, false, false
	}
	fn := float64(nf)
	budget -= fn*fn*fn/6 + f.Cost
	if !(f.MaxDiag > 0) {
		return budget, false, false
	}
	// H_FF + δI: δ tiny next to H, enough to factorise a singular H_FF (the
	// direction stays a descent direction; the step is exact for H_FF + δI,
	// and the final change to the gradient uses H itself).
	p.chol = grow(p.chol, nf*nf)
	p.sc.Reset() // the solutions of the last face are no longer needed
	solve := CholeskyShiftedIn(mat.NewSymDense(nf, f.H), f.MaxDiag, d.Tick, p.chol, &p.sc)
	if solve == nil {
		return budget, false, false
	}
	if cap(p.fixed) < nf {
		p.fixed = make([]bool, nf)
	}
	p.fixed = p.fixed[:nf]
	clear(p.fixed)
	// The constraint rows: the equalities (dense) and eₖ for the variables
	// held at a bound (unit[p] = k; their entries of S and r are read off,
	// O(1)).
	p.cols, p.ws, p.unit = p.cols[:0], p.ws[:0], p.unit[:0]
	for _, e := range f.Eq {
		w := solve(e)
		if w == nil {
			return budget, false, false
		}
		p.cols, p.ws, p.unit = append(p.cols, e), append(p.ws, w), append(p.unit, -1)
	}
	p.vec = grow(p.vec, 2*nf)
	// v = H̃⁻¹g (H̃ = H_FF + δI) is kept up to date through the step
	// (H̃⁻¹(g + t·H̃d) = v + t·d) and refreshed by a solve every few passes.
	v := solve(f.G)
	if v == nil {
		return budget, false, false
	}
	budget, optimal = p.passes(d, f, solve, v, budget)
	d.Apply(F, f)
	return budget, true, optimal
}

// passes runs the Newton passes on a loaded and factorised face (v =
// H̃⁻¹g) within budget: each computes the direction, steps along it, and
// either finds the face's minimiser (optimal) or fixes the variable that
// blocked the step.
func (p *Polisher) passes(d Face, f *FaceProblem, solve func([]float64) []float64, v []float64, budget float64) (left float64, optimal bool) {
	fn := float64(len(f.X))
	// The Schur complement S grows by one row per fixed variable and is
	// factorised afresh each pass (⅔m³): beyond mMax rows a new round that
	// refactorises the smaller face is cheaper.
	mMax := max(8, int(1.5*math.Cbrt(fn*fn)))
	exact := p.opt.ExactSteps
	for pass, nfixed := 1, 0; budget > 0 && nfixed <= mMax; pass++ {
		m := float64(len(p.cols))
		if exact {
			budget -= 5*fn*fn + m*fn*4 + m*m*m/3
		} else {
			budget -= 4*fn + 2*m*fn + 2*m*m*m/3
		}
		if pass%16 == 0 {
			// A pass costs O(|F|²): at |F| ≈ 2000 sixteen of them take a
			// moment in a browser, which needs its callbacks.
			d.Tick()
		}
		if exact || pass%8 == 0 {
			if !exact {
				budget -= 2 * fn * fn
			}
			if v = solve(f.G); v == nil {
				break
			}
		}
		dir, hd, ok := p.direction(f, v)
		if !ok {
			break
		}
		gd := dot(f.G, dir)
		if !(gd < 0) {
			optimal = true
			break
		}
		// The Newton step on the face is 1 (dᵀH̃d = −gᵀd), or with
		// ExactSteps the minimiser along d for H_FF itself; the ratio test
		// may shorten it. A zero step (a variable at its bound that the
		// direction pushes out of the box: one that a round added) only
		// fixes that variable.
		step := 1.0
		if exact {
			step = p.exactStep(f, dir, hd, gd)
		}
		step, block := p.ratio(f, dir, step)
		if math.IsInf(step, 1) || math.IsNaN(step) || step < 0 {
			break
		}
		for a := range f.X {
			f.X[a] = math.Min(math.Max(f.X[a]+step*dir[a], 0), f.U[a])
			f.G[a] += step * hd[a]
			v[a] += step * dir[a]
		}
		if block < 0 {
			optimal = true
			break
		}
		nfixed++
		if !exact {
			budget -= 2 * fn * fn
		}
		if !p.fix(f, block, dir[block] < 0, solve) {
			break
		}
	}
	return budget, optimal
}

// direction is a pass's Newton direction d = −H̃⁻¹(g + Eᵀμ) with the
// multipliers μ of the constraint rows from their Schur complement, and
// H̃d = −(g + Eᵀμ), which so needs no product with H; v = H̃⁻¹g. The
// entries of fixed variables are 0. ok is false when the Schur system or
// the projection fails.
func (p *Polisher) direction(f *FaceProblem, v []float64) (dir, hd []float64, ok bool) {
	nf := len(f.X)
	dir, hd = p.vec[:nf], p.vec[nf:2*nf]
	cols, W, unit := p.cols, p.ws, p.unit
	m := len(cols)
	var mu []float64
	if m > 0 {
		if mu = SchurMultipliersIn(cols, W, unit, v, &p.sc); mu == nil {
			return nil, nil, false
		}
	}
	copy(hd, f.G)
	for q := 0; q < m; q++ {
		mq := mu[q]
		if k := unit[q]; k >= 0 {
			hd[k] += mq
		} else {
			for a, c := range cols[q] {
				hd[a] += mq * c
			}
		}
	}
	for a := range dir {
		hd[a] = -hd[a]
		dir[a] = -v[a]
		for q := 0; q < m; q++ {
			dir[a] -= W[q][a] * mu[q]
		}
		if p.fixed[a] {
			dir[a] = 0
		}
	}
	// Eᵀd = 0 holds only to rounding relative to ‖H̃⁻¹g‖, large when
	// H_FF is nearly singular: project it back exactly.
	return dir, hd, projectEq(dir, f.Eq, p.fixed)
}

// exactStep overwrites hd with H_FF·d and returns the minimiser −gᵀd/dᵀHd
// along d (+Inf when the curvature is not positive).
func (p *Polisher) exactStep(f *FaceProblem, dir, hd []float64, gd float64) float64 {
	nf := len(dir)
	mat.NewVecDense(nf, hd).MulVec(mat.NewSymDense(nf, f.H), mat.NewVecDense(nf, dir))
	if curv := dot(hd, dir); curv > 0 {
		return -gd / curv
	}
	return math.Inf(1)
}

// ratio is the ratio test: the largest step ≤ step along dir that keeps
// the variables in their box, and the variable that blocks it (−1: none).
func (p *Polisher) ratio(f *FaceProblem, dir []float64, step float64) (float64, int) {
	block := -1
	for a, da := range dir {
		var room float64
		switch {
		case p.fixed[a]:
			continue
		case da < 0:
			room = f.X[a] / -da
		case da > 0 && !math.IsInf(f.U[a], 1):
			room = (f.U[a] - f.X[a]) / da
		default:
			continue
		}
		if room < step {
			step, block = room, a
		}
	}
	return step, block
}

// fix holds the variable a at its bound (lower when low) from now on: one
// more constraint row eₐ; false when its solve fails.
func (p *Polisher) fix(f *FaceProblem, a int, low bool, solve func([]float64) []float64) bool {
	if low {
		f.X[a] = 0
	} else {
		f.X[a] = f.U[a]
	}
	p.fixed[a] = true
	ek := p.sc.Vec(len(f.X))
	clear(ek)
	ek[a] = 1
	w := solve(ek)
	if w == nil {
		return false
	}
	p.cols, p.ws, p.unit = append(p.cols, ek), append(p.ws, w), append(p.unit, a)
	return true
}

// projectEq makes d satisfy the equalities eᵀd = 0 (rows of E) exactly on
// the entries that are not fixed, leaving the fixed ones at 0; false when
// that is impossible (no free entry, or the rows are parallel on the free
// entries and d violates one of them).
func projectEq(d []float64, E [][]float64, fixed []bool) bool {
	switch len(E) {
	case 0:
		return true
	case 1:
		e := E[0]
		var ed, ee float64
		for a := range d {
			if !fixed[a] {
				ed += e[a] * d[a]
				ee += e[a] * e[a]
			}
		}
		if ee == 0 {
			return false
		}
		ed /= ee
		for a := range d {
			if !fixed[a] {
				d[a] -= ed * e[a]
			}
		}
		return true
	}
	e0, e1 := E[0], E[1]
	var m00, m01, m11, r0, r1 float64
	for a := range d {
		if fixed[a] {
			continue
		}
		m00 += e0[a] * e0[a]
		m01 += e0[a] * e1[a]
		m11 += e1[a] * e1[a]
		r0 += e0[a] * d[a]
		r1 += e1[a] * d[a]
	}
	if m00 == 0 {
		return false
	}
	if dm := m00*m11 - m01*m01; dm > 1e-9*m00*m11 {
		c0 := (m11*r0 - m01*r1) / dm
		c1 := (m00*r1 - m01*r0) / dm
		for a := range d {
			if !fixed[a] {
				d[a] -= e0[a]*c0 + e1[a]*c1
			}
		}
		return true
	}
	// e1 is parallel to e0 on the free entries (or zero): project on e0
	// and check e1.
	for a := range d {
		if !fixed[a] {
			d[a] -= e0[a] * r0 / m00
		}
	}
	var yd, nd float64
	for a := range d {
		yd += e1[a] * d[a]
		nd += d[a] * d[a]
	}
	return math.Abs(yd) <= 1e-12*(1+math.Sqrt(nd))
}

// grow returns buf[:n], reallocated when its capacity is smaller.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// dot is Σ aᵢbᵢ in index order (the polish's sign tests depend on the
// rounding of this sum, which fastblas.Dot would change under
// WebAssembly).
func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
