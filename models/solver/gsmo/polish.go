package gsmo

import (
	"cmp"
	"math"
	"slices"

	"lupilab/models/solver/decomp"
)

// Newton polishing on the free set (Options.Polish): the engine's polish
// (decomp.Polisher) on dual (2). The sparse directions of kinds I–V move
// two to four variables at a time, and with a small λ the Hessian
//
//	H = [ (yyᵀ)∘K + K̃/λ   K̃/λ ]
//	    [ K̃/λ             K̃/λ ]
//
// is badly conditioned (K̃/λ huge on some directions, zero on the null
// space of a low-rank K̃), so they zig-zag for millions of iterations. With
// F the positive variables (α and β have no upper bound), the polish takes
// Newton steps on the face under the two equalities (E = [1ᵀ 1ᵀ; yᵀ 0ᵀ]),
// and once a face is solved widens it by the variables at 0 that violate
// the optimality conditions there. This file gives the engine the face
// (H_FF from the rows of K and K̃), the violators (against the offsets of
// offsets) and the gradient update; the schedule is PolishDue's.

// polishMaxFree bounds |F| (a polish costs O(|F|³)).
const polishMaxFree = 2000

// The polish numbers the 2n variables of (α, β) as 0…n−1 for α and
// n…2n−1 for β.

// Free implements decomp.Face: the positive variables of (α, β).
func (s *state) Free(F []int) []int {
	for i := 0; i < s.n; i++ {
		if s.a[i] > 0 {
			F = append(F, i)
		}
		if s.b[i] > 0 {
			F = append(F, s.n+i)
		}
	}
	return F
}

// Violators implements decomp.Face: the variables at 0 that violate the
// optimality conditions
//
//	∇αᵢ + ρ + b yᵢ < 0  or  ∇βᵢ + ρ < 0
//
// with ρ and b the offsets the positive variables agree on (offsets), the
// largest violations first.
func (s *state) Violators(add []int, k int) ([]int, int) {
	ga := make([]float64, s.n)
	for i := range ga {
		ga[i] = s.ga(i)
	}
	b, rho := s.offsets(ga, s.F)
	type cand struct {
		v int
		r float64
	}
	var cs []cand
	for i := 0; i < s.n; i++ {
		if s.a[i] == 0 {
			if r := ga[i] + rho + b*s.y[i]; r < 0 {
				cs = append(cs, cand{i, r})
			}
		}
		if s.b[i] == 0 {
			if r := s.F[i] + rho; r < 0 {
				cs = append(cs, cand{s.n + i, r})
			}
		}
	}
	slices.SortFunc(cs, func(p, q cand) int { return cmp.Compare(p.r, q.r) })
	for _, c := range cs[:min(len(cs), k)] {
		add = append(add, c.v)
	}
	return add, len(cs)
}

// Load implements decomp.Face: H_FF from the rows of K and K̃, the
// variables, their gradient, no upper bounds, and the rows of the two
// equalities Σ(αᵢ + βᵢ) = nC and yᵀα = 0.
func (s *state) Load(F []int, f *decomp.FaceProblem) bool {
	nf := len(F)
	maxd := 0.0
	for a, va := range F {
		i, ba := va%s.n, va >= s.n
		kr, tr := s.kc.Row(i), s.tc.Row(i)
		row := f.H[a*nf : (a+1)*nf]
		for b := a; b < nf; b++ {
			j, bb := F[b]%s.n, F[b] >= s.n
			v := s.il * tr[j]
			if !ba && !bb {
				v += s.y[i] * s.y[j] * kr[j]
			}
			row[b] = v
		}
		maxd = math.Max(maxd, row[a])
		f.U[a] = math.Inf(1)
		f.Eq[0][a] = 1
		if ba {
			f.X[a], f.G[a], f.Eq[1][a] = s.b[i], s.F[i], 0
		} else {
			f.X[a], f.G[a], f.Eq[1][a] = s.a[i], s.ga(i), s.y[i]
		}
	}
	f.MaxDiag = maxd
	f.Cost = 2 * float64(nf) * float64(s.n)
	return true
}

// Apply implements decomp.Face: (α, β) on F move to f.X, and G and F
// follow through the rows of K (for Δα) and K̃ (for Δ(α+β)).
func (s *state) Apply(F []int, f *decomp.FaceProblem) {
	x, x0 := f.X, f.X0
	da := make([]float64, s.n) // Δα
	ds := make([]float64, s.n) // Δ(α+β)
	for a, v := range F {
		if x[a] == x0[a] {
			continue
		}
		i := v % s.n
		if v >= s.n {
			s.b[i] = x[a]
		} else {
			s.a[i] = x[a]
			da[i] += x[a] - x0[a]
		}
		ds[i] += x[a] - x0[a]
	}
	for i := 0; i < s.n; i++ {
		if da[i] != 0 {
			kr := s.kc.Row(i)
			c := da[i] * s.y[i]
			for l := range s.G {
				s.G[l] += c * s.y[l] * kr[l]
			}
		}
		if ds[i] != 0 {
			tr := s.tc.Row(i)
			c := ds[i] * s.il
			for l := range s.F {
				s.F[l] += c * tr[l]
			}
		}
	}
}

// Tick implements decomp.Face.
func (s *state) Tick() {
	if s.opt.Progress != nil {
		s.opt.Progress(s.iter, s.viol)
	}
}
