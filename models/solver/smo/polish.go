package smo

import (
	"math"

	"gonum.org/v1/gonum/mat"
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
// Cost control: a polish costs about |F|³/6 + |F|·n flops; it runs only when
// that is at most the work of the SMO iterations since the previous polish
// (Σ active-set sizes), so polishing at most doubles the work of a fit, and
// |F| ≤ polishMaxFree keeps one polish short (a browser needs its progress
// callbacks every few milliseconds).

const polishMaxFree = 600

// polishAllowance (flops) lets a polish on a small free set take all the
// passes it needs however little SMO work preceded it (about a millisecond).
const polishAllowance = 2e6

// polishDue says whether a polish should run now.
func (s *solver[T]) polishDue() bool {
	if !s.opt.Polish || s.iter < s.nextPolish {
		return false
	}
	s.nextPolish = s.iter + max(s.l, 200)
	nf := 0
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			nf++
		}
	}
	if nf < 2 || nf > polishMaxFree {
		return false
	}
	cost := float64(nf)*float64(nf)*float64(nf)/6 + float64(nf)*float64(s.l)
	return cost <= s.work
}

// polish takes Newton steps on the free set (see above) on the whole
// problem (shrunk variables are restored first): after a step that a bound
// blocked, the blocking variable leaves F and the step is recomputed on the
// smaller face (an active-set method), while the work allows.
func (s *solver[T]) polish() {
	budget := 2*s.work + polishAllowance
	s.work = 0
	s.polishes++
	if s.active < s.l {
		s.reconstructGradient()
		s.active = s.l
	}
	s.haveNext = false
	var F []int
	for t := 0; t < s.l; t++ {
		if s.status[t] == free {
			F = append(F, t)
		}
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
	for len(F) >= 2 {
		nf := float64(len(F))
		budget -= nf*nf*nf/6 + nf*float64(s.l)
		block := s.newtonStep(F)
		if block < 0 || budget < 0 {
			break
		}
		F = append(F[:block], F[block+1:]...)
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
}

// newtonStep takes one clipped Newton step on the variables F (positions)
// and returns the index in F of the variable whose bound stopped the step,
// or −1 (a full step, or no step possible).
func (s *solver[T]) newtonStep(F []int) int {
	l := s.l
	nf := len(F)
	h := mat.NewSymDense(nf, nil)
	raw := h.RawSymmetric()
	maxd := 0.0
	for a, i := range F {
		q := s.row(i, l)
		for b := a; b < nf; b++ {
			raw.Data[a*raw.Stride+b] = float64(q[F[b]])
		}
		maxd = math.Max(maxd, float64(q[i]))
	}
	if !(maxd > 0) {
		return -1
	}
	g := make([]float64, nf)
	yf := make([]float64, nf)
	for a, i := range F {
		g[a] = s.g[i]
		yf[a] = s.y[i]
	}
	// Q_FF + δI: δ tiny next to Q, enough to factorise a singular Q_FF (the
	// direction stays a descent direction; the line search uses Q itself).
	hr := mat.NewSymDense(nf, nil)
	var ch mat.Cholesky
	ok := false
	for delta := 1e-12 * maxd; delta <= 1e-4*maxd; delta *= 100 {
		hr.CopySym(h)
		for a := 0; a < nf; a++ {
			hr.SetSym(a, a, h.At(a, a)+delta)
		}
		if ch.Factorize(hr) {
			ok = true
			break
		}
	}
	if !ok {
		return -1
	}
	var u mat.VecDense
	if err := ch.SolveVecTo(&u, mat.NewVecDense(nf, g)); err != nil {
		return -1
	}
	d := make([]float64, nf)
	if s.eq {
		var w mat.VecDense
		if err := ch.SolveVecTo(&w, mat.NewVecDense(nf, yf)); err != nil {
			return -1
		}
		var yu, yw float64
		for a := 0; a < nf; a++ {
			yu += yf[a] * u.AtVec(a)
			yw += yf[a] * w.AtVec(a)
		}
		if !(yw > 0) {
			return -1
		}
		mu := -yu / yw
		var yd float64
		for a := range d {
			d[a] = -(u.AtVec(a) + mu*w.AtVec(a))
			yd += yf[a] * d[a]
		}
		// yᵀd = 0 holds only to rounding relative to ‖u‖, which is large
		// when Q_FF is nearly singular: project it back exactly.
		yd /= float64(nf)
		for a := range d {
			d[a] -= yd * yf[a]
		}
	} else {
		for a := range d {
			d[a] = -u.AtVec(a)
		}
	}
	// Exact line search on ½αᵀQα + pᵀα along d, clipped by the box.
	var gd float64
	for a := range d {
		gd += g[a] * d[a]
	}
	if !(gd < 0) {
		return -1
	}
	var hd mat.VecDense
	hd.MulVec(h, mat.NewVecDense(nf, d))
	curv := mat.Dot(&hd, mat.NewVecDense(nf, d))
	step := math.Inf(1)
	if curv > 0 {
		step = -gd / curv
	}
	block := -1
	for a, i := range F {
		var room float64
		switch {
		case d[a] < 0:
			room = s.alpha[i] / -d[a]
		case d[a] > 0 && !math.IsInf(s.u[i], 1):
			room = (s.u[i] - s.alpha[i]) / d[a]
		default:
			continue
		}
		if room < step {
			step, block = room, a
		}
	}
	if math.IsInf(step, 1) || math.IsNaN(step) || !(step > 0) {
		return -1
	}
	was := make([]bool, nf)
	for a, i := range F {
		was[a] = s.status[i] == atUpper
		old := s.alpha[i]
		na := old + step*d[a]
		if a == block {
			if d[a] < 0 {
				na = 0
			} else {
				na = s.u[i]
			}
		}
		na = math.Min(math.Max(na, 0), s.u[i])
		s.alpha[i] = na
		if da := na - old; da != 0 {
			q := s.row(i, l)
			for k := range s.g[:l] {
				s.g[k] += float64(q[k]) * da
			}
		}
	}
	for a, i := range F {
		s.updateStatus(i)
		s.updateGbar(i, was[a])
		s.lastAlpha = math.Max(s.lastAlpha, s.alpha[i])
	}
	return block
}
