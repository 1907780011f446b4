package gsmo

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/ncqp"
)

// Newton polishing on the free set (Options.Polish), as in
// lupilab/models/solver/smo: the sparse directions of kinds I–V move two to
// four variables at a time, and with a small λ the Hessian
//
//	H = [ (yyᵀ)∘K + K̃/λ   K̃/λ ]
//	    [ K̃/λ             K̃/λ ]
//
// is badly conditioned (K̃/λ huge on some directions, zero on the null
// space of a low-rank K̃), so they zig-zag for millions of iterations. With
// F the positive variables (α and β have no upper bound), the step
//
//	d = argmin ½dᵀH_FF d + ∇_Fᵀd  s.t.  E_F d = 0
//
// for the two equalities (E = [1ᵀ 1ᵀ; yᵀ 0ᵀ]) comes from one Cholesky
// factorisation of H_FF + δI and a 2×2 Schur complement; the exact line
// search along d is clipped at the first variable reaching 0, which then
// stays there (one more equality eₖᵀd = 0 in the Schur complement), and the
// step is recomputed on the smaller face while the budget allows; past
// about |F|^⅔ fixed variables a new round refactorises the smaller face.
// Once a face is solved, the next round widens it by the variables at 0
// that violate the optimality conditions (polish, violators), as the smo
// polish does. A polish
// runs only when the work since the previous one pays for the
// factorisation and a hundred passes; it may spend that work times a
// multiplier that doubles (up to 8) after each polish cut short by it (see
// Solve). The objective never increases, the iterate stays feasible, and
// the stopping rule (kinds I–III) is unchanged.
//
// polishMaxFree bounds |F|; the factorisation is blocked with progress
// ticks (ncqp.CholeskyTick), as the browser needs callbacks every few
// milliseconds.

// polishMaxFree bounds |F| (a polish costs O(|F|³)).
const polishMaxFree = 2000

// pvar is a variable of the 2n-vector (α, β): index i, beta says which.
type pvar struct {
	i    int
	beta bool
}

func (s *state) value(v pvar) float64 {
	if v.beta {
		return s.b[v.i]
	}
	return s.a[v.i]
}

// polishRounds bounds the rounds of a polish.
const polishRounds = 50

// positives lists the positive variables of (α, β) into F[:0].
func (s *state) positives(F []pvar) []pvar {
	F = F[:0]
	for i := 0; i < s.n; i++ {
		if s.a[i] > 0 {
			F = append(F, pvar{i, false})
		}
		if s.b[i] > 0 {
			F = append(F, pvar{i, true})
		}
	}
	return F
}

// polish runs rounds of Newton passes within budget flops and says whether
// the budget ran out first. A round solves the face of the positive
// variables (faceNewton); once a face is solved, the next round widens it
// by the variables at 0 that violate the optimality conditions there,
//
//	∇αᵢ + ρ + b yᵢ < 0  or  ∇βᵢ + ρ < 0
//
// with ρ and b the offsets the positive variables agree on (offsets), the
// largest violations first and at most |F|/4 of them, as the smo polish
// does: an active-set method warm-started by the generalised SMO. A round
// that stopped short (the budget) re-forms the face of the variables
// positive now.
func (s *state) polish(budget float64) (unfinished bool) {
	F := s.positives(nil)
	optimal := false
	for round := 0; round < polishRounds && budget > 0; round++ {
		if round > 0 {
			F = s.positives(F)
			if optimal && s.widen {
				add := s.violators(len(F))
				if len(add) == 0 {
					return false
				}
				F = append(F, add...)
			}
			if s.tick != nil {
				s.tick()
			}
		}
		var ok bool
		if budget, ok, optimal = s.faceNewton(F, budget); !ok {
			return false
		}
	}
	return budget <= 0
}

// violators returns the variables at 0 that violate the optimality
// conditions against the offsets of the positive ones, largest violation
// first, at most max(1, nf/4).
func (s *state) violators(nf int) []pvar {
	ga := make([]float64, s.n)
	for i := range ga {
		ga[i] = s.ga(i)
	}
	b, rho := s.offsets(ga, s.F)
	type cand struct {
		v pvar
		r float64
	}
	var cs []cand
	for i := 0; i < s.n; i++ {
		if s.a[i] == 0 {
			if r := ga[i] + rho + b*s.y[i]; r < 0 {
				cs = append(cs, cand{pvar{i, false}, r})
			}
		}
		if s.b[i] == 0 {
			if r := s.F[i] + rho; r < 0 {
				cs = append(cs, cand{pvar{i, true}, r})
			}
		}
	}
	slices.SortFunc(cs, func(p, q cand) int { return cmp.Compare(p.r, q.r) })
	if k := max(1, nf/4); len(cs) > k {
		cs = cs[:k]
	}
	out := make([]pvar, len(cs))
	for i, c := range cs {
		out[i] = c.v
	}
	return out
}

// faceNewton runs Newton passes on the face of the variables F within
// budget flops, applies the result to (α, β) and the full gradients, and
// returns the budget left; ok is false when nothing could be done, optimal
// true when the last pass found the face's minimiser (no descent
// direction, or a full step that no bound stopped). H_FF is factorised
// once; a variable that a step drives to 0 stays there by one more
// equality eₖᵀd = 0 in the Schur complement (O(|F|²) a pass instead of a
// new factorisation), and the gradient on F is kept by H_FF·d, so only the
// final change touches the full gradients (O(|F|·n)).
func (s *state) faceNewton(F []pvar, budget float64) (left float64, ok, optimal bool) {
	nf := len(F)
	if nf < 3 || nf > polishMaxFree {
		return budget, false, false
	}
	fn := float64(nf)
	budget -= fn*fn*fn/6 + 2*fn*float64(s.n)
	h := mat.NewSymDense(nf, nil)
	maxd := 0.0
	for a, va := range F {
		kr, tr := s.kc.row(va.i), s.tc.row(va.i)
		for b := a; b < nf; b++ {
			vb := F[b]
			v := s.il * tr[vb.i]
			if !va.beta && !vb.beta {
				v += s.y[va.i] * s.y[vb.i] * kr[vb.i]
			}
			h.SetSym(a, b, v)
		}
		maxd = math.Max(maxd, h.At(a, a))
	}
	if !(maxd > 0) {
		return budget, false, false
	}
	// H_FF + δI: δ tiny next to H, enough to factorise a singular H_FF (the
	// direction stays a descent direction; the line search uses H itself).
	solve := ncqp.CholeskyShifted(h, maxd, func() {
		if s.tick != nil {
			s.tick()
		}
	})
	if solve == nil {
		return budget, false, false
	}
	x := make([]float64, nf)  // the variables on F
	x0 := make([]float64, nf) // at the start
	g := make([]float64, nf)  // the gradient on F, kept up to date
	e0 := make([]float64, nf) // Σ(α+β) = nC
	e1 := make([]float64, nf) // yᵀα = 0
	for a, v := range F {
		x[a] = s.value(v)
		e0[a] = 1
		if v.beta {
			g[a] = s.F[v.i]
		} else {
			g[a] = s.ga(v.i)
			e1[a] = s.y[v.i]
		}
	}
	copy(x0, x)
	fixed := make([]bool, nf)
	// The constraint rows: e0, e1 (dense) and eₖ for the variables held at
	// 0 (unit[p] = k; their entries of S and r are read off, O(1)).
	cols := [][]float64{e0, e1}
	unit := []int{-1, -1}
	var W [][]float64
	for _, c := range cols {
		w := solve(c)
		if w == nil {
			return budget, false, false
		}
		W = append(W, w)
	}
	d := make([]float64, nf)
	hd := mat.NewVecDense(nf, nil)
	// The Schur complement grows by a row per fixed variable and is
	// factorised afresh each pass (⅓m³): beyond mMax rows a new round that
	// refactorises the smaller face is cheaper (as in the smo polish).
	mMax := max(8, int(1.5*math.Cbrt(fn*fn)))
	for nfixed := 0; budget > 0 && nfixed <= mMax; nfixed++ {
		m := len(cols)
		budget -= 5*fn*fn + float64(m)*fn*4 + float64(m*m*m)/3
		u := solve(g)
		if u == nil {
			break
		}
		mu := ncqp.SchurMultipliers(cols, W, unit, u)
		if mu == nil {
			break
		}
		for a := range d {
			d[a] = -u[a]
			for q := 0; q < m; q++ {
				d[a] -= W[q][a] * mu[q]
			}
			if fixed[a] {
				d[a] = 0
			}
		}
		if !s.projectDir(d, e0, e1, fixed) {
			break
		}
		gd := dot(g, d)
		if !(gd < 0) {
			optimal = true
			break
		}
		hd.MulVec(h, mat.NewVecDense(nf, d))
		curv := dot(hd.RawVector().Data, d)
		step := math.Inf(1)
		if curv > 0 {
			step = -gd / curv
		}
		block := -1
		for a := range d {
			if d[a] < 0 && !fixed[a] {
				if room := x[a] / -d[a]; room < step {
					step, block = room, a
				}
			}
		}
		// A zero step (a variable at 0 that the direction pushes below:
		// one that a round added) only fixes that variable.
		if math.IsInf(step, 1) || math.IsNaN(step) || step < 0 {
			break
		}
		for a := range x {
			x[a] = math.Max(x[a]+step*d[a], 0)
			g[a] += step * hd.AtVec(a)
		}
		if block < 0 {
			optimal = true
			break
		}
		x[block] = 0
		fixed[block] = true
		ek := make([]float64, nf)
		ek[block] = 1
		w := solve(ek)
		if w == nil {
			break
		}
		cols, unit = append(cols, ek), append(unit, block)
		W = append(W, w)
	}
	// Apply the change to (α, β) and to the full gradients.
	da := make([]float64, s.n) // Δα
	ds := make([]float64, s.n) // Δ(α+β)
	for a, v := range F {
		if x[a] == x0[a] {
			continue
		}
		if v.beta {
			s.b[v.i] = x[a]
		} else {
			s.a[v.i] = x[a]
			da[v.i] += x[a] - x0[a]
		}
		ds[v.i] += x[a] - x0[a]
	}
	for i := 0; i < s.n; i++ {
		if da[i] != 0 {
			kr := s.kc.row(i)
			c := da[i] * s.y[i]
			for l := range s.G {
				s.G[l] += c * s.y[l] * kr[l]
			}
		}
		if ds[i] != 0 {
			tr := s.tc.row(i)
			c := ds[i] * s.il
			for l := range s.F {
				s.F[l] += c * tr[l]
			}
		}
	}
	return budget, true, optimal
}

// projectDir makes d satisfy e0ᵀd = 0 and e1ᵀd = 0 exactly on the free
// (not fixed) entries (rounding in H⁻¹ is relative to ‖H⁻¹g‖, large when H
// is nearly singular); false when that is impossible without moving fixed
// entries.
func (s *state) projectDir(d, e0, e1 []float64, fixed []bool) bool {
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

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
