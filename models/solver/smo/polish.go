package smo

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
	"lupilab/models/solver/ncqp"
)

// Newton polishing on the free set (Options.Polish).
//
// SMO moves two coordinates at a time, so its iteration count grows with
// the condition number of Q restricted to the free variables. Duals whose Q
// has a tiny but non-zero spectrum there — SVM2+ with large C (Qλ ≤ 1/C on
// the directions a low-rank K misses), or any SVM dual with a low-rank
// kernel and large C — take millions of iterations for a few dozen free
// variables. An active-set Newton step fixes that: with F the free
// variables, minimise the objective over the face {α_B fixed, yᵀα = Δ}
// exactly,
//
//	d = argmin ½dᵀQ_FF d + ∇_Fᵀd  s.t.  y_Fᵀd = 0,
//
// (one Cholesky factorisation of Q_FF + δI, two solves, the multiplier of
// the equality by its Schur complement), then take the exact line-search
// step along d clipped by the box (a ratio test: the first variable to reach
// a bound stops the step and leaves F). The objective never increases, the
// iterate stays feasible, and SMO continues from it with its own stopping
// rule unchanged; when F is the optimal free set the step lands on the
// optimum, and SMO's next selection certifies it.
//
// Rounds: the free set of an unfinished SMO run is neither a subset nor a
// superset of the optimal one. A round solves one face (above); the next
// round refactorises the face of the variables that are free now, widened
// by the variables at a bound that violate the optimality conditions there
// (−yₜ∇ₜ against the multiplier b the free variables agree on; at most
// |F|/4 per round, the largest violations first), so a polish is an
// active-set method warm-started by SMO, and SVM2+ duals whose support
// vectors are all free (no upper bound) finish in a few hundred SMO
// iterations instead of tens of thousands.
//
// Cost control: within a round Q_FF + δI is factorised once; a variable
// that a step drives to a bound stays there by one more equality eₖᵀd = 0
// in the Schur complement (one solve, O(|F|²)); H̃⁻¹∇ and H̃d follow the
// step without products with Q (d = −H̃⁻¹(∇ + Eᵀμ)); once the Schur
// complement has more rows than about |F|^⅔ the next round refactorises
// the smaller face. Only a round's final change touches the whole gradient
// (O(|F|·n)). When Q = WWᵀ with a small factor (Factored: SVM2+ with
// linear kernels) a round computes no row: Q_FF = W_F W_Fᵀ by one rank-k
// update and the gradient changes by W(W_Fᵀ Δα_F), O((|F| + n)·k).
// A polish runs only when the work of the SMO iterations since
// the previous one (≈ 6 flops per active variable and iteration) pays for a
// round and for what the previous polish spent, and it stops when it has
// spent max(4 × that work, 3|F|³, min(30|F|³, 4·10⁶)), plus up to four
// extensions of 4·10⁶ granted while the number of violators at its solved
// faces keeps falling (an active set that is converging). The factorisation
// is blocked with progress ticks (ncqp.CholeskyTick), and rounds and passes
// report progress too: a browser needs its callbacks every few
// milliseconds. Factorisation and solves are ncqp.CholeskyShifted's.

// polishMaxFree bounds |F| (a polish costs O(|F|³)).
const polishMaxFree = 2000

// polishDue says whether a polish should run now: the SMO work since the
// previous polish must pay for one round (factorisation, the gradient
// update, a few passes) and for what the previous polish actually cost.
func (s *solver[T]) polishDue() bool {
	if !s.opt.Polish || s.iter < s.nextPolish {
		return false
	}
	s.nextPolish = s.iter + polishEvery(s.l)
	nf := 0
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			nf++
		}
	}
	if nf < 2 || nf > polishMaxFree {
		return false
	}
	f := float64(nf)
	return math.Max(f*f*f/6+10*f*f+f*float64(s.l), s.polishCost) <= s.work
}

// polishRounds bounds the rounds of a polish (each adds the bound variables
// that violate the optimality conditions of the previous round's face).
const polishRounds = 50

// polish takes Newton steps on the free set (see above) on the whole
// problem (shrunk variables are restored first). Each round after the
// first adds to the face the variables at a bound that violate the
// optimality conditions at the previous round's point (the largest
// violations first), so that a polish reaches the optimum when SMO has not
// yet freed every support vector.
func (s *solver[T]) polish() {
	s.polishes++
	if s.active < s.l {
		s.reconstructGradient()
		s.active = s.l
	}
	s.haveNext = false
	F := s.freeSet(nil)
	fn := float64(len(F))
	earned := max(4*s.work, polishBudgetF3*fn*fn*fn)
	budget := max(earned, min(10*polishBudgetF3*fn*fn*fn, polishBudgetFloor))
	start := budget
	s.work = 0
	if len(F) < 2 {
		return
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
	optimal := false
	// nv is the number of violators at the last solved face; ext counts
	// the budget extensions granted while it kept falling.
	nv, ext := math.MaxInt, 0
	for round := 0; round < polishRounds; round++ {
		if round > 0 {
			F = s.freeSet(F[:0])
			if optimal {
				// The face is solved: widen it by the violators.
				add, n := s.polishViolators(len(F))
				if len(add) == 0 {
					break
				}
				// Low on budget while the violators keep falling: the
				// active set is converging, and finishing it here is
				// cheaper than the SMO iterations that would have to pay
				// for another polish (digits one-vs-rest, n = 1 438:
				// 1 163–8 144 SMO iterations for four classes, which an
				// extended polish saves).
				falling := n < nv
				nv = n
				if budget < polishBudgetFloor/2 && falling && ext < polishExtensions {
					ext++
					budget += polishBudgetFloor
				}
				if budget <= 0 {
					break
				}
				F = append(F, add...)
			} else if budget <= 0 {
				break
			}
			if len(F) < 2 {
				break
			}
		}
		if round > 0 && s.opt.Progress != nil {
			s.opt.Progress(s.iter, s.viol)
		}
		var ok bool
		if budget, ok, optimal = s.faceNewton(F, budget); !ok {
			break
		}
	}
	// What the floor allowed beyond the earned budget is not charged to the
	// next polish (the floor is a fixed allowance, not a debt).
	s.polishCost = min(start-budget, earned)
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
}

// freeSet appends the free variables to F.
func (s *solver[T]) freeSet(F []int) []int {
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			F = append(F, t)
		}
	}
	return F
}

// polishViolators returns the variables at a bound (at most polishAddK(nf))
// whose move off the bound would decrease the objective at the current
// point by more than eps per unit, the largest violations first, and how
// many such violators there are in all. With the
// equality constraint the violation is measured against the multiplier b
// that the free variables agree on after a Newton step (−yₜ∇ₜ = b).
// The returned slice is the solver's scratch, valid until the next call.
func (s *solver[T]) polishViolators(nf int) (add []int, violators int) {
	var b float64
	if s.eq {
		var sum float64
		var k int
		for t := 0; t < s.l; t++ {
			if s.status[t] == free {
				sum += -s.y[t] * s.g[t]
				k++
			}
		}
		if k == 0 {
			return nil, 0
		}
		b = sum / float64(k)
	}
	cs := s.pol.cands[:0]
	defer func() { s.pol.cands = cs[:0] }()
	for t := 0; t < s.l; t++ {
		st := s.status[t]
		if st == free || st == fixed {
			continue
		}
		var v float64
		if s.eq {
			yg := -s.y[t] * s.g[t]
			if s.upOK(t) {
				v = math.Max(v, yg-b)
			}
			if s.downOK(t) {
				v = math.Max(v, b-yg)
			}
		} else {
			v = s.projected(t)
		}
		if v > s.eps {
			cs = append(cs, cand{t, v})
		}
	}
	violators = len(cs)
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Compare(b.v, a.v) })
	if k := polishAddK(nf); len(cs) > k {
		cs = cs[:k]
	}
	add = s.pol.add[:0]
	for _, c := range cs {
		add = append(add, c.t)
	}
	s.pol.add = add
	return add, violators
}

// faceNewton minimises the objective over the face of the variables F
// (the others fixed) by Newton steps with a ratio test, applies the result
// to α and ∇, and returns the budget left; ok is false when the face could
// not be factorised (nothing changed).
func (s *solver[T]) faceNewton(F []int, budget float64) (left float64, ok, optimal bool) {
	l := s.l
	nf := len(F)
	fn := float64(nf)
	budget -= fn*fn*fn/6 + fn*float64(l)
	pw := &s.pol
	pw.h = grow(pw.h, nf*nf)
	h := mat.NewSymDense(nf, pw.h) // the upper triangle is written below
	raw := h.RawSymmetric()
	maxd := 0.0
	var wf []float64 // W_F, row-major nf×k (Factored path)
	if s.fac != nil {
		// Q_FF = W_F W_Fᵀ: one rank-k update, no row of the face.
		k := s.fac.RawMatrix().Cols
		pw.wf = grow(pw.wf, nf*k)
		wf = pw.wf
		for a, i := range F {
			copy(wf[a*k:(a+1)*k], s.fac.RawRowView(s.perm[i]))
		}
		pw.gramFace(F, s.perm, wf, k, raw.Data, raw.Stride)
		for _, i := range F {
			maxd = math.Max(maxd, s.qd[i])
		}
	} else {
		for a, i := range F {
			q := s.row(i, l)
			for b := a; b < nf; b++ {
				raw.Data[a*raw.Stride+b] = float64(q[F[b]])
			}
			maxd = math.Max(maxd, float64(q[i]))
		}
	}
	if !(maxd > 0) {
		return budget, false, false
	}
	// Q_FF + δI: δ tiny next to Q, enough to factorise a singular Q_FF (the
	// direction stays a descent direction; the step is exact for Q_FF + δI,
	// and the final change to α and ∇ uses Q itself).
	pw.chol = grow(pw.chol, nf*nf)
	pw.sc.Reset() // the solutions of the last face are no longer needed
	solve := ncqp.CholeskyShiftedIn(h, maxd, func() {
		if s.opt.Progress != nil {
			s.opt.Progress(s.iter, s.viol)
		}
	}, pw.chol, &pw.sc)
	if solve == nil {
		return budget, false, false
	}
	pw.vec = grow(pw.vec, 6*nf)
	x, x0, g, yf := pw.vec[:nf], pw.vec[nf:2*nf], pw.vec[2*nf:3*nf], pw.vec[3*nf:4*nf]
	for a, i := range F {
		x[a] = s.alpha[i]
		g[a] = s.g[i]
		yf[a] = s.y[i]
	}
	copy(x0, x)
	if cap(pw.fixed) < nf {
		pw.fixed = make([]bool, nf)
	}
	fixed := pw.fixed[:nf]
	clear(fixed)
	// The constraint rows: y (dense) and eₖ for the variables held at a
	// bound (unit[p] = k; their entries of S and r are read off, O(1)).
	cols, W, unit := pw.cols[:0], pw.ws[:0], pw.unit[:0]
	defer func() { pw.cols, pw.ws, pw.unit = cols[:0], W[:0], unit[:0] }()
	if s.eq {
		w := solve(yf)
		if w == nil {
			return budget, false, false
		}
		cols, W, unit = append(cols, yf), append(W, w), append(unit, -1)
	}
	d, hd := pw.vec[4*nf:5*nf], pw.vec[5*nf:6*nf]
	// u = H̃⁻¹g (H̃ = Q_FF + δI) is kept up to date through the step
	// (H̃⁻¹(g + t·H̃d) = u + t·d) and refreshed by a solve every few passes.
	u := solve(g)
	if u == nil {
		return budget, false, false
	}
	// The Schur complement S grows by one row per fixed variable and is
	// factorised afresh each pass (⅔m³): beyond mMax rows a new round that
	// refactorises the smaller face is cheaper.
	mMax := max(8, int(1.5*math.Cbrt(fn*fn)))
	nfixed := 0
	for pass := 1; budget > 0; pass++ {
		m := len(cols)
		if nfixed > mMax {
			break
		}
		budget -= 4*fn + 2*float64(m)*fn + 2*float64(m*m*m)/3
		if pass%16 == 0 && s.opt.Progress != nil {
			// A pass costs O(|F|²): at |F| ≈ 2000 sixteen of them take a
			// moment in a browser, which needs its callbacks.
			s.opt.Progress(s.iter, s.viol)
		}
		if pass%8 == 0 {
			budget -= 2 * fn * fn
			if u = solve(g); u == nil {
				break
			}
		}
		var mu []float64
		if m > 0 {
			if mu = ncqp.SchurMultipliersIn(cols, W, unit, u, &pw.sc); mu == nil {
				break
			}
		}
		// d = −H̃⁻¹(g + Eᵀμ), so H̃d = −(g + Eᵀμ) needs no product with Q.
		copy(hd, g)
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
		var yd, ny float64
		for a := range d {
			hd[a] = -hd[a]
			d[a] = -u[a]
			for q := 0; q < m; q++ {
				d[a] -= W[q][a] * mu[q]
			}
			if fixed[a] {
				d[a] = 0
				continue
			}
			yd += yf[a] * d[a]
			ny++
		}
		if s.eq {
			// yᵀd = 0 holds only to rounding relative to ‖H̃⁻¹g‖, large when
			// Q_FF is nearly singular: project it back exactly.
			if ny == 0 {
				break
			}
			yd /= ny
			for a := range d {
				if !fixed[a] {
					d[a] -= yd * yf[a]
				}
			}
		}
		gd := dot(g, d)
		if !(gd < 0) {
			optimal = true
			break
		}
		// The Newton step on the face is 1 (dᵀH̃d = −gᵀd); the ratio test
		// may shorten it.
		step := 1.0
		block := -1
		for a, i := range F {
			var room float64
			switch {
			case fixed[a]:
				continue
			case d[a] < 0:
				room = x[a] / -d[a]
			case d[a] > 0 && !math.IsInf(s.u[i], 1):
				room = (s.u[i] - x[a]) / d[a]
			default:
				continue
			}
			if room < step {
				step, block = room, a
			}
		}
		// A zero step (a variable at its bound that the direction pushes
		// out of the box: one that a round added) only fixes that variable.
		if math.IsNaN(step) || step < 0 {
			break
		}
		for a, i := range F {
			x[a] = math.Min(math.Max(x[a]+step*d[a], 0), s.u[i])
			g[a] += step * hd[a]
			u[a] += step * d[a]
		}
		if block < 0 {
			optimal = true
			break
		}
		nfixed++
		if d[block] < 0 {
			x[block] = 0
		} else {
			x[block] = s.u[F[block]]
		}
		fixed[block] = true
		ek := pw.sc.Vec(nf)
		clear(ek)
		ek[block] = 1
		budget -= 2 * fn * fn
		w := solve(ek)
		if w == nil {
			break
		}
		cols, W, unit = append(cols, ek), append(W, w), append(unit, block)
	}
	// Apply the change to α, ∇ and Ḡ.
	if s.fac != nil {
		// ∇ += Q[:, F]Δα_F = W(W_Fᵀ Δα_F): O((|F| + n)·k), no rows.
		raw := s.fac.RawMatrix()
		k := raw.Cols
		for a := range F {
			x0[a] = x[a] - x0[a]
		}
		pw.w = grow(pw.w, k)
		pw.out = grow(pw.out, raw.Rows)
		w, out := pw.w, pw.out
		clear(w)
		fastblas.AddMulT(nf, k, wf, k, x0, w)
		fastblas.MulVec(raw.Rows, k, raw.Data, raw.Stride, w, out)
		for t := range s.g[:l] {
			s.g[t] += out[s.perm[t]]
		}
	}
	for a, i := range F {
		da := x[a] - s.alpha[i]
		if da == 0 {
			continue
		}
		was := s.status[i] == atUpper
		s.alpha[i] = x[a]
		if s.fac == nil {
			q := s.row(i, l)
			for k := range s.g[:l] {
				s.g[k] += float64(q[k]) * da
			}
		}
		s.updateStatus(i)
		s.updateGbar(i, was)
		s.lastAlpha = math.Max(s.lastAlpha, x[a])
	}
	return budget, true, optimal
}

// polishScratch is the storage a polish reuses from round to round and
// from one polish to the next: the face's Q_FF and its factor, W_F, the
// vectors of a round and the factored gradient update.
type polishScratch struct {
	h, chol, wf, vec, w, out []float64
	fixed                    []bool
	// The last factored face's Q_FF (upper triangle, stride len(prevF))
	// and its variables by original index; prevAt[j] is 1 + the position
	// of variable j in prevF, 0 when absent (see gramFace).
	prevH   []float64
	prevF   []int
	prevAt  []int32
	prevPos []int // scratch of gramFace
	// sc holds a face's solutions and Schur systems; cols, ws and unit
	// its constraint rows (faceNewton), cands and add polishViolators'.
	sc        ncqp.Scratch
	cols, ws  [][]float64
	unit, add []int
	cands     []cand
}

// cand is a variable at a bound and its violation (polishViolators).
type cand struct {
	t int
	v float64
}

// reset forgets the last face (a new solve: another W), for n variables.
func (pw *polishScratch) reset(n int) {
	if len(pw.prevAt) < n {
		pw.prevAt = make([]int32, n)
	} else {
		for _, j := range pw.prevF {
			pw.prevAt[j] = 0
		}
	}
	pw.prevF = pw.prevF[:0]
}

// gramFace writes the upper triangle of Q_FF = W_F W_Fᵀ (wf: the face's
// rows of W, nf×k) into c (stride ldc), taking the entries between
// variables of the previous factored face from its Q_FF. Successive
// rounds of a polish share most of their face (a round drops the
// variables the last one fixed and adds a quarter of |F| violators), so
// from the second round on most entries are copied rather than
// recomputed (digits one-vs-rest, n = 269: 4.4 rounds per class). perm
// maps F's positions to the original indices under which faces are
// compared. The face is then kept for the next call.
func (pw *polishScratch) gramFace(F, perm []int, wf []float64, k int, c []float64, ldc int) {
	nf := len(F)
	np := len(pw.prevF)
	pw.prevPos = slices.Grow(pw.prevPos[:0], nf)[:nf]
	prev := pw.prevPos
	old := 0
	for a, i := range F {
		prev[a] = int(pw.prevAt[perm[i]]) - 1
		if prev[a] >= 0 {
			old++
		}
	}
	if 4*old*old < nf*nf {
		// Little overlap: one rank-k update.
		fastblas.GramUpper(nf, k, wf, k, c, ldc)
	} else {
		for a := 0; a < nf; a++ {
			pa := prev[a]
			wa := wf[a*k : (a+1)*k]
			row := c[a*ldc : a*ldc+nf]
			for b := a; b < nf; b++ {
				if pb := prev[b]; pa >= 0 && pb >= 0 {
					p, q := min(pa, pb), max(pa, pb)
					row[b] = pw.prevH[p*np+q]
				} else {
					row[b] = fastblas.Dot(wa, wf[b*k:(b+1)*k])
				}
			}
		}
	}
	// Keep this face for the next call.
	for _, j := range pw.prevF {
		pw.prevAt[j] = 0
	}
	pw.prevF = pw.prevF[:0]
	for a, i := range F {
		pw.prevF = append(pw.prevF, perm[i])
		pw.prevAt[perm[i]] = int32(a + 1)
	}
	pw.prevH = grow(pw.prevH, nf*nf)
	for a := 0; a < nf; a++ {
		copy(pw.prevH[a*nf+a:(a+1)*nf], c[a*ldc+a:a*ldc+nf])
	}
}

// grow returns buf[:n], reallocated when its capacity is smaller.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Polish schedule and sizes (tuned on SVM2+: digits one-vs-rest with linear
// kernels, n = 539, and an RBF privileged kernel at n = 1000; see
// models/svmplus/RESULTS.md).
//
// polishFirst and polishEvery space the polish checks in SMO iterations
// (polishDue still requires the work to pay for it); polishBudgetF3 lets a
// polish spend up to that many |F|³ (a few factorisations of the face) when
// the SMO work so far is smaller; polishAddK is how many violators a round
// adds.
const polishBudgetF3 = 3

// polishBudgetFloor lets a small polish spend up to 4·10⁶ flops (a few
// milliseconds) or 30|F|³, whichever is less, even early in a fit, so that
// the first polish can finish (digits one-vs-rest, n = 539, |F| ≈ 50: every
// class in one polish instead of up to 1 300 SMO iterations and two).
const polishBudgetFloor = 4e6

// polishExtensions bounds how many times a polish that ran out of budget
// gets polishBudgetFloor more, each granted only while the number of
// violators at its solved faces keeps falling (see polish).
const polishExtensions = 4

// polishFirst: with a factor (Factored) a polish computes no row of Q, so
// the first one comes after 25 SMO iterations whatever n — it needs only a
// seed of free variables, since its rounds widen the face by the
// violators. (Digits one-vs-rest, linear kernels, n = 1 438: SVM2+ 74 → 43
// ms; the synthetic linear problem of scripts/bench-svmplus.sh at n = 2 000
// and 4 000, where the work gate kept every polish out: 44 185 and 82 824
// SMO iterations → 25 and one polish.) Otherwise the face's rows, which the
// budget does not count, can cost more than the SMO iterations saved (the
// paper's regime, d = 2 048, n = 4 000: 3.2 → 3.7 s with the polish at 25),
// and the first polish waits for max(n/16, 50) iterations.
func polishFirst(n int, factored bool) int {
	if factored {
		return 25
	}
	return max(n/16, 50)
}

func polishEvery(n int) int { return max(n/8, 50) }

func polishAddK(nf int) int { return max(1, nf/4) }
