package smo

import (
	"math"

	"gonum.org/v1/gonum/mat"

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
// Cost control: H_FF is factorised once per polish; a variable that a step
// drives to a bound stays there by one more equality eₖᵀd = 0 in the Schur
// complement (O(|F|²) a pass), and the gradient on F is kept by Q_FF·d, so
// only the final change touches the whole gradient (O(|F|·n)). A polish
// runs only when the work of the SMO iterations since the previous one (Σ
// active-set sizes) pays for the factorisation and a hundred passes, and
// its passes stop when they have spent four times that work (an active set
// that is far from the optimal one needs a pass per variable to drop:
// digits one-vs-rest at C = 1000 drops ~150 of 200): polishing costs at
// most 4× the SMO work of a fit. The factorisation is blocked with
// progress ticks (ncqp.CholeskyTick): a browser needs its callbacks every
// few milliseconds.

// polishMaxFree bounds |F| (a polish costs O(|F|³)).
const polishMaxFree = 2000

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
	f := float64(nf)
	return f*f*f/6+100*f*f+f*float64(s.l) <= s.work
}

// polish takes Newton steps on the free set (see above) on the whole
// problem (shrunk variables are restored first).
func (s *solver[T]) polish() {
	budget := 4 * s.work
	s.work = 0
	s.polishes++
	if s.active < s.l {
		s.reconstructGradient()
		s.active = s.l
	}
	s.haveNext = false
	l := s.l
	var F []int
	for t := 0; t < l; t++ {
		if s.status[t] == free {
			F = append(F, t)
		}
	}
	nf := len(F)
	if nf < 2 {
		return
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
	fn := float64(nf)
	budget -= fn*fn*fn/6 + fn*float64(l)
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
		return
	}
	// Q_FF + δI: δ tiny next to Q, enough to factorise a singular Q_FF (the
	// direction stays a descent direction; the line search uses Q itself).
	var ch mat.Cholesky
	if !ncqp.CholeskyShifted(&ch, h, maxd, func() {
		if s.opt.Progress != nil {
			s.opt.Progress(s.iter, s.viol)
		}
	}) {
		return
	}
	solve := func(b []float64) []float64 {
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, mat.NewVecDense(nf, b)); err != nil {
			return nil
		}
		return x.RawVector().Data
	}
	x := make([]float64, nf)
	x0 := make([]float64, nf)
	g := make([]float64, nf)
	yf := make([]float64, nf)
	for a, i := range F {
		x[a] = s.alpha[i]
		g[a] = s.g[i]
		yf[a] = s.y[i]
	}
	copy(x0, x)
	fixed := make([]bool, nf)
	// The constraint rows: y (dense) and eₖ for the variables held at a
	// bound (unit[p] = k; their entries of S and r are read off, O(1)).
	var cols, W [][]float64
	var unit []int
	if s.eq {
		w := solve(yf)
		if w == nil {
			return
		}
		cols, W, unit = append(cols, yf), append(W, w), append(unit, -1)
	}
	d := make([]float64, nf)
	hd := mat.NewVecDense(nf, nil)
	for budget > 0 {
		m := len(cols)
		budget -= 5*fn*fn + float64(m)*fn*4 + float64(m*m*m)/3
		u := solve(g)
		if u == nil {
			break
		}
		var mu mat.VecDense
		if m > 0 {
			// μ from S μ = −E H⁻¹ g, S = E H⁻¹ Eᵀ (ridged: the fixed eₖ can
			// make the rows of E dependent; the projection below is exact).
			S := mat.NewDense(m, m, nil)
			r := mat.NewVecDense(m, nil)
			tr := 0.0
			for p := 0; p < m; p++ {
				for q := 0; q < m; q++ {
					if unit[p] >= 0 {
						S.Set(p, q, W[q][unit[p]])
					} else {
						if unit[p] >= 0 {
							S.Set(p, q, W[q][unit[p]])
						} else {
							S.Set(p, q, dot(cols[p], W[q]))
						}
					}
				}
				if unit[p] >= 0 {
					r.SetVec(p, -u[unit[p]])
				} else {
					if unit[p] >= 0 {
						r.SetVec(p, -u[unit[p]])
					} else {
						r.SetVec(p, -dot(cols[p], u))
					}
				}
				tr += math.Abs(S.At(p, p))
			}
			for p := 0; p < m; p++ {
				S.Set(p, p, S.At(p, p)+1e-13*tr)
			}
			if err := mu.SolveVec(S, r); err != nil {
				break
			}
		}
		var yd, ny float64
		for a := range d {
			d[a] = -u[a]
			for q := 0; q < m; q++ {
				d[a] -= W[q][a] * mu.AtVec(q)
			}
			if fixed[a] {
				d[a] = 0
				continue
			}
			yd += yf[a] * d[a]
			ny++
		}
		if s.eq {
			// yᵀd = 0 holds only to rounding relative to ‖H⁻¹g‖, large when
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
			break
		}
		hd.MulVec(h, mat.NewVecDense(nf, d))
		curv := dot(hd.RawVector().Data, d)
		step := math.Inf(1)
		if curv > 0 {
			step = -gd / curv
		}
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
		if math.IsInf(step, 1) || math.IsNaN(step) || !(step > 0) {
			break
		}
		for a, i := range F {
			x[a] = math.Min(math.Max(x[a]+step*d[a], 0), s.u[i])
			g[a] += step * hd.AtVec(a)
		}
		if block < 0 {
			break
		}
		if d[block] < 0 {
			x[block] = 0
		} else {
			x[block] = s.u[F[block]]
		}
		fixed[block] = true
		ek := make([]float64, nf)
		ek[block] = 1
		w := solve(ek)
		if w == nil {
			break
		}
		cols, W, unit = append(cols, ek), append(W, w), append(unit, block)
	}
	// Apply the change to α, ∇ and Ḡ.
	for a, i := range F {
		da := x[a] - x0[a]
		if da == 0 {
			continue
		}
		was := s.status[i] == atUpper
		s.alpha[i] = x[a]
		q := s.row(i, l)
		for k := range s.g[:l] {
			s.g[k] += float64(q[k]) * da
		}
		s.updateStatus(i)
		s.updateGbar(i, was)
		s.lastAlpha = math.Max(s.lastAlpha, x[a])
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
