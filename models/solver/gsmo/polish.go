package gsmo

import (
	"math"

	"gonum.org/v1/gonum/mat"
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
// leaves F, and the step is recomputed on the smaller face while the work
// allows. The objective never increases, the iterate stays feasible, and
// the stopping rule (kinds I–III) is unchanged.

// polishMaxFree bounds |F| (one factorisation stays short: the browser needs
// progress callbacks every few milliseconds).
const polishMaxFree = 600

// polishAllowance (flops) lets a polish on a small free set take the passes
// it needs however little work preceded it.
const polishAllowance = 2e6

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

// polish runs Newton passes on the free set within budget flops.
func (s *state) polish(budget float64) {
	var F []pvar
	for i := 0; i < s.n; i++ {
		if s.a[i] > 0 {
			F = append(F, pvar{i, false})
		}
		if s.b[i] > 0 {
			F = append(F, pvar{i, true})
		}
	}
	if len(F) < 3 || len(F) > polishMaxFree {
		return
	}
	for len(F) >= 3 {
		nf := float64(len(F))
		budget -= nf*nf*nf/6 + 2*nf*float64(s.n)
		block := s.newtonStep(F)
		if block < 0 || budget < 0 {
			return
		}
		F = append(F[:block], F[block+1:]...)
	}
}

// newtonStep takes one clipped Newton step on F and returns the index in F
// of the variable that stopped it at 0, or −1.
func (s *state) newtonStep(F []pvar) int {
	nf := len(F)
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
		return -1
	}
	g := mat.NewVecDense(nf, nil)
	e := mat.NewDense(nf, 2, nil) // Eᵀ
	for a, v := range F {
		if v.beta {
			g.SetVec(a, s.F[v.i])
		} else {
			g.SetVec(a, s.ga(v.i))
			e.Set(a, 1, s.y[v.i])
		}
		e.Set(a, 0, 1)
	}
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
	// Which equalities constrain F: the second only when F holds an α of
	// each class (otherwise it fixes those α: drop them is not needed, the
	// projection below keeps Ed = 0 whatever the rank).
	var u mat.VecDense
	if err := ch.SolveVecTo(&u, g); err != nil {
		return -1
	}
	var w mat.Dense
	if err := ch.SolveTo(&w, e); err != nil {
		return -1
	}
	// S = E H⁻¹ Eᵀ (2×2), μ = −S⁻¹ E H⁻¹ g, d = −(H⁻¹g + H⁻¹Eᵀμ).
	var S mat.Dense
	S.Mul(e.T(), &w)
	var r mat.VecDense
	r.MulVec(e.T(), &u)
	mu := make([]float64, 2)
	det := S.At(0, 0)*S.At(1, 1) - S.At(0, 1)*S.At(1, 0)
	if math.Abs(det) > 1e-12*math.Abs(S.At(0, 0)*S.At(1, 1)) && S.At(1, 1) > 0 {
		mu[0] = -(S.At(1, 1)*r.AtVec(0) - S.At(0, 1)*r.AtVec(1)) / det
		mu[1] = -(S.At(0, 0)*r.AtVec(1) - S.At(1, 0)*r.AtVec(0)) / det
	} else if S.At(0, 0) > 0 {
		mu[0] = -r.AtVec(0) / S.At(0, 0)
	} else {
		return -1
	}
	d := make([]float64, nf)
	for a := range d {
		d[a] = -(u.AtVec(a) + w.At(a, 0)*mu[0] + w.At(a, 1)*mu[1])
	}
	// Project d exactly onto {Ed = 0} (rounding is relative to ‖H⁻¹g‖,
	// large when H_FF is nearly singular): d −= Eᵀ(EEᵀ)⁻¹Ed.
	var m00, m01, m11, r0, r1 float64
	for a := range d {
		e0, e1 := e.At(a, 0), e.At(a, 1)
		m00 += e0 * e0
		m01 += e0 * e1
		m11 += e1 * e1
		r0 += e0 * d[a]
		r1 += e1 * d[a]
	}
	if dm := m00*m11 - m01*m01; dm > 1e-9*m00*m11 {
		c0 := (m11*r0 - m01*r1) / dm
		c1 := (m00*r1 - m01*r0) / dm
		for a := range d {
			d[a] -= e.At(a, 0)*c0 + e.At(a, 1)*c1
		}
	} else {
		// E has rank 1 on F (all α in F share a class, or none): the
		// second equality holds iff the α part of d sums (with signs) to 0.
		for a := range d {
			d[a] -= e.At(a, 0) * r0 / m00
		}
		if m11 > 0 {
			var yd float64
			for a, v := range F {
				if !v.beta {
					yd += s.y[v.i] * d[a]
				}
			}
			if math.Abs(yd) > 1e-12*(1+floatsNorm(d)) {
				return -1
			}
		}
	}
	var gd float64
	for a := range d {
		gd += g.AtVec(a) * d[a]
	}
	if !(gd < 0) {
		return -1
	}
	dv := mat.NewVecDense(nf, d)
	var hd mat.VecDense
	hd.MulVec(h, dv)
	curv := mat.Dot(&hd, dv)
	step := math.Inf(1)
	if curv > 0 {
		step = -gd / curv
	}
	block := -1
	for a, v := range F {
		if d[a] < 0 {
			if room := s.value(v) / -d[a]; room < step {
				step, block = room, a
			}
		}
	}
	if math.IsInf(step, 1) || math.IsNaN(step) || !(step > 0) {
		return -1
	}
	da := make([]float64, s.n) // Δα
	ds := make([]float64, s.n) // Δ(α+β)
	for a, v := range F {
		x := s.value(v)
		nx := math.Max(x+step*d[a], 0)
		if a == block {
			nx = 0
		}
		if v.beta {
			s.b[v.i] = nx
		} else {
			s.a[v.i] = nx
			da[v.i] += nx - x
		}
		ds[v.i] += nx - x
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
	return block
}

func floatsNorm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
