package smo

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"lupilab/models/fastblas"
	"lupilab/models/solver/decomp"
)

// Newton polishing on the free set (Options.Polish): the engine's polish
// (decomp.Polisher: active-set Newton steps on the face of the free
// variables under yᵀα = Δ, rounds widened by the violators) on this
// solver's state. SMO moves two coordinates at a time, so its iteration
// count grows with the condition number of Q restricted to the free
// variables; SVM2+ duals whose support vectors are all free (no upper
// bound) finish in a few hundred SMO iterations instead of tens of
// thousands.
//
// This file holds what is particular to SVM-form duals: the face's rows
// (from the row cache, or, when Q = WWᵀ has a small factor — Factored:
// SVM2+ with linear kernels — Q_FF = W_F W_Fᵀ by one rank-k update and the
// gradient change W(W_Fᵀ Δα_F), O((|F| + n)·k), no row at all), the
// violators against the multiplier b of yᵀα = Δ, and the schedule: a
// polish runs only when the work of the SMO iterations since the previous
// one (≈ 6 flops per active variable and iteration) pays for a round and
// for what the previous polish spent, and it stops when it has spent
// max(4 × that work, 3|F|³, min(30|F|³, 4·10⁶)), plus up to four
// extensions of 4·10⁶ granted while the number of violators at its solved
// faces keeps falling (an active set that is converging).

// polishMaxFree bounds |F| (a polish costs O(|F|³)).
const polishMaxFree = 2000

// PolishDue implements decomp.Policy: the SMO work since the previous
// polish must pay for one round (factorisation, the gradient update, a few
// passes) and for what the previous polish actually cost.
func (s *solver[T]) PolishDue(iter int, work float64) (float64, bool) {
	if iter < s.nextPolish {
		return 0, false
	}
	s.nextPolish = iter + polishEvery(s.l)
	nf := 0
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			nf++
		}
	}
	if nf < 2 || nf > polishMaxFree {
		return 0, false
	}
	f := float64(nf)
	if math.Max(f*f*f/6+10*f*f+f*float64(s.l), s.polishCost) > work {
		return 0, false
	}
	s.earned = max(4*work, polishBudgetF3*f*f*f)
	s.grant = max(s.earned, min(10*polishBudgetF3*f*f*f, polishBudgetFloor))
	return s.grant, true
}

// Polished implements decomp.Policy. What the floor allowed beyond the
// earned budget is not charged to the next polish (the floor is a fixed
// allowance, not a debt).
func (s *solver[T]) Polished(left float64, _ bool) {
	s.polishCost = min(s.grant-left, s.earned)
}

// Free implements decomp.Face: the free variables.
func (s *solver[T]) Free(F []int) []int {
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			F = append(F, t)
		}
	}
	return F
}

// Violators implements decomp.Face: the variables at a bound whose move off
// the bound would decrease the objective by more than eps per unit. With
// the equality constraint the violation is measured against the multiplier
// b that the free variables agree on after a Newton step (−yₜ∇ₜ = b).
func (s *solver[T]) Violators(add []int, k int) ([]int, int) {
	var b float64
	if s.eq {
		var sum float64
		var nf int
		for t := 0; t < s.l; t++ {
			if s.status[t] == free {
				sum += -s.y[t] * s.g[t]
				nf++
			}
		}
		if nf == 0 {
			return add, 0
		}
		b = sum / float64(nf)
	}
	cs := s.face.cands[:0]
	defer func() { s.face.cands = cs[:0] }()
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
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Compare(b.v, a.v) })
	for _, c := range cs[:min(len(cs), k)] {
		add = append(add, c.t)
	}
	return add, len(cs)
}

// Load implements decomp.Face: Q_FF from the factor (gramFace) or from the
// cached rows, α_F, ∇_F, the bounds and y_F.
func (s *solver[T]) Load(F []int, f *decomp.FaceProblem) bool {
	l := s.l
	nf := len(F)
	maxd := 0.0
	if s.fac != nil {
		// Q_FF = W_F W_Fᵀ: one rank-k update, no row of the face.
		k := s.fac.RawMatrix().Cols
		fs := s.face
		fs.wf = slices.Grow(fs.wf[:0], nf*k)[:nf*k]
		wf := fs.wf
		for a, i := range F {
			copy(wf[a*k:(a+1)*k], s.fac.RawRowView(s.perm[i]))
		}
		fs.gramFace(F, s.perm, wf, k, f.H, nf)
		for _, i := range F {
			maxd = math.Max(maxd, s.qd[i])
		}
	} else {
		for a, i := range F {
			q := s.row(i, l)
			for b := a; b < nf; b++ {
				f.H[a*nf+b] = float64(q[F[b]])
			}
			maxd = math.Max(maxd, float64(q[i]))
		}
	}
	f.MaxDiag = maxd
	f.Cost = float64(nf) * float64(l)
	for a, i := range F {
		f.X[a] = s.alpha[i]
		f.G[a] = s.g[i]
		f.U[a] = s.u[i]
		if s.eq {
			f.Eq[0][a] = s.y[i]
		}
	}
	return true
}

// Apply implements decomp.Face: α_F moves to f.X, and ∇ and Ḡ follow.
func (s *solver[T]) Apply(F []int, f *decomp.FaceProblem) {
	l := s.l
	x, x0 := f.X, f.X0
	s.haveNext = false
	if s.fac != nil {
		// ∇ += Q[:, F]Δα_F = W(W_Fᵀ Δα_F): O((|F| + n)·k), no rows.
		raw := s.fac.RawMatrix()
		k := raw.Cols
		for a := range F {
			x0[a] = x[a] - x0[a]
		}
		fs := s.face
		fs.w = slices.Grow(fs.w[:0], k)[:k]
		fs.out = slices.Grow(fs.out[:0], raw.Rows)[:raw.Rows]
		w, out := fs.w, fs.out
		clear(w)
		fastblas.AddMulT(len(F), k, fs.wf, k, x0, w)
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
}

// Tick implements decomp.Face: progress during a polish.
func (s *solver[T]) Tick() {
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
}

// faceScratch is the storage of the factored faces, reused from round to
// round and (facePool) from one solve to the next: W_F, the factored
// gradient update, the last face's Q_FF, and the violators' candidates.
type faceScratch struct {
	wf, w, out []float64
	// The last factored face's Q_FF (upper triangle, stride len(prevF))
	// and its variables by original index; prevAt[j] is 1 + the position
	// of variable j in prevF, 0 when absent (see gramFace).
	prevH   []float64
	prevF   []int
	prevAt  []int32
	prevPos []int // scratch of gramFace
	cands   []cand
}

// facePool recycles faceScratch between solves.
var facePool sync.Pool

// cand is a variable at a bound and its violation (Violators).
type cand struct {
	t int
	v float64
}

// reset forgets the last face (a new solve: another W), for n variables.
func (fs *faceScratch) reset(n int) {
	if len(fs.prevAt) < n {
		fs.prevAt = make([]int32, n)
	} else {
		for _, j := range fs.prevF {
			fs.prevAt[j] = 0
		}
	}
	fs.prevF = fs.prevF[:0]
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
func (fs *faceScratch) gramFace(F, perm []int, wf []float64, k int, c []float64, ldc int) {
	nf := len(F)
	np := len(fs.prevF)
	fs.prevPos = slices.Grow(fs.prevPos[:0], nf)[:nf]
	prev := fs.prevPos
	old := 0
	for a, i := range F {
		prev[a] = int(fs.prevAt[perm[i]]) - 1
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
					row[b] = fs.prevH[p*np+q]
				} else {
					row[b] = fastblas.Dot(wa, wf[b*k:(b+1)*k])
				}
			}
		}
	}
	// Keep this face for the next call.
	for _, j := range fs.prevF {
		fs.prevAt[j] = 0
	}
	fs.prevF = fs.prevF[:0]
	for a, i := range F {
		fs.prevF = append(fs.prevF, perm[i])
		fs.prevAt[perm[i]] = int32(a + 1)
	}
	fs.prevH = slices.Grow(fs.prevH[:0], nf*nf)[:nf*nf]
	for a := 0; a < nf; a++ {
		copy(fs.prevH[a*nf+a:(a+1)*nf], c[a*ldc+a:a*ldc+nf])
	}
}

// Polish schedule and sizes (tuned on SVM2+: digits one-vs-rest with linear
// kernels, n = 539, and an RBF privileged kernel at n = 1000; see
// models/svmplus/RESULTS.md).
//
// polishFirst and polishEvery space the polish checks in SMO iterations
// (PolishDue still requires the work to pay for it); polishBudgetF3 lets a
// polish spend up to that many |F|³ (a few factorisations of the face) when
// the SMO work so far is smaller.
const polishBudgetF3 = 3

// polishBudgetFloor lets a small polish spend up to 4·10⁶ flops (a few
// milliseconds) or 30|F|³, whichever is less, even early in a fit, so that
// the first polish can finish (digits one-vs-rest, n = 539, |F| ≈ 50: every
// class in one polish instead of up to 1 300 SMO iterations and two).
const polishBudgetFloor = 4e6

// polishExtensions bounds how many times a polish that ran out of budget
// gets polishBudgetFloor more, each granted only while the number of
// violators at its solved faces keeps falling (decomp.PolishOptions).
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
