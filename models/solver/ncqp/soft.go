package ncqp

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SoftProblem is the convex problem
//
//	min  ½ xᵀHx + pᵀx + Σ_g ψ_g(Σ_{i∈G_g} xᵢ − c_g)   s.t. x ≥ 0,
//	ψ_g(s) = max_{ξ≥0} [ sξ − (ρ/2)(ξ − ξ⁰_g)² ],
//
// with H positive semidefinite. It is the dual of a QP whose slack ξ_g has a
// linear cost c_g, a proximal term (ρ/2)(ξ − ξ⁰_g)² and enters the
// constraints of the variables of group g with coefficient 1: the
// majorisation step MPWTSVM uses (see models/twin). ψ is convex and C¹ with
// ψ'(s) = max(0, ξ⁰ + s/ρ), which is the slack ξ* at the optimum.
type SoftProblem struct {
	H      Operator
	P      []float64
	Groups [][]int   // disjoint; variables in no group are only x ≥ 0
	C      []float64 // c_g
	Xi0    []float64 // ξ⁰_g ≥ 0
	Rho    float64   // ρ > 0
	X0     []float64 // optional warm start (clipped at 0)
}

// SoftResult is the minimiser of a SoftProblem.
type SoftResult struct {
	X         []float64
	Xi        []float64 // ψ'_g at X: the slack of each group
	Obj       float64
	Sweeps    int
	Residual  float64 // largest projected-gradient component (absolute)
	Converged bool
}

// SolveSoft minimises a SoftProblem by cyclic coordinate descent with exact
// one-dimensional steps (the objective restricted to one coordinate is a
// convex piecewise quadratic), stopping when the projected gradient is below
// Tol·max(1, ‖p‖∞).
func SolveSoft(ctx context.Context, pr *SoftProblem, opt Options) (*SoftResult, error) {
	if pr == nil || pr.H == nil {
		return nil, fmt.Errorf("%w: no Hessian", ErrInput)
	}
	n := pr.H.Dim()
	if len(pr.P) != n || len(pr.C) != len(pr.Groups) || len(pr.Xi0) != len(pr.Groups) || !(pr.Rho > 0) {
		return nil, fmt.Errorf("%w: dimensions disagree or ρ ≤ 0", ErrInput)
	}
	grp := make([]int, n)
	for i := range grp {
		grp[i] = -1
	}
	for g, idx := range pr.Groups {
		if !(pr.Xi0[g] >= 0) {
			return nil, fmt.Errorf("%w: ξ⁰ of group %d is %v", ErrInput, g, pr.Xi0[g])
		}
		for _, i := range idx {
			if i < 0 || i >= n || grp[i] >= 0 {
				return nil, fmt.Errorf("%w: variable %d repeated or out of range", ErrInput, i)
			}
			grp[i] = g
		}
	}
	pmax := 1.0
	for _, v := range pr.P {
		pmax = math.Max(pmax, math.Abs(v))
	}
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-7
	}
	tol *= pmax
	maxSweeps := opt.MaxSweeps
	if maxSweeps <= 0 {
		maxSweeps = 20000
	}
	diag := make([]float64, n)
	for i := range diag {
		if diag[i] = pr.H.At(i, i); diag[i] < 0 || math.IsNaN(diag[i]) {
			return nil, fmt.Errorf("%w: H[%d][%d] = %v < 0", ErrInput, i, i, diag[i])
		}
	}
	x := make([]float64, n)
	if pr.X0 != nil {
		for i := range x {
			x[i] = math.Max(0, pr.X0[i])
		}
	}
	sum := make([]float64, len(pr.Groups)) // Σ x over each group
	for g, idx := range pr.Groups {
		for _, i := range idx {
			sum[g] += x[i]
		}
	}
	g := gradientOf(pr.H, pr.P, x)
	dpsi := func(gi int) float64 { return math.Max(0, pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho) }
	res := &SoftResult{}
	work, sweep := 0, 0
	for ; sweep < maxSweeps; sweep++ {
		for i := 0; i < n; i++ {
			h, q := diag[i], g[i]-diag[i]*x[i]
			var v float64
			if gi := grp[i]; gi < 0 {
				if h > 0 {
					v = math.Max(0, -q/h)
				} else if q < 0 {
					return nil, ErrUnbounded
				}
			} else {
				rest := sum[gi] - x[i]
				x0, c, rho := pr.Xi0[gi], pr.C[gi], pr.Rho
				deriv := func(v float64) float64 { return h*v + q + math.Max(0, x0+(v+rest-c)/rho) }
				if deriv(0) >= 0 {
					v = 0
				} else {
					v = -(q + x0 + (rest-c)/rho) / (h + 1/rho) // region ξ* > 0
					if x0+(v+rest-c)/rho < 0 {
						v = -q / h // region ξ* = 0 (then h > 0)
					}
					v = math.Max(0, v)
				}
				sum[gi] += v - x[i]
			}
			if d := v - x[i]; d != 0 {
				x[i] = v
				pr.H.AddColumn(i, d, g)
				work += n
			}
		}
		if sweep%50 == 49 {
			g = gradientOf(pr.H, pr.P, x)
		}
		r := softResidual(pr, grp, x, g, sum)
		if r > tol && (sweep == 10 || sweep%100 == 99) {
			if xp := softPolish(pr, grp, x, sum); xp != nil {
				sp := make([]float64, len(sum))
				for gi, idx := range pr.Groups {
					for _, i := range idx {
						sp[gi] += xp[i]
					}
				}
				gp := gradientOf(pr.H, pr.P, xp)
				if rp := softResidual(pr, grp, xp, gp, sp); rp < r {
					x, g, sum, r = xp, gp, sp, rp
				}
			}
		}
		res.Residual = r
		if r <= tol {
			break
		}
		if work > 200000 {
			work = 0
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if opt.Progress != nil {
				opt.Progress(sweep, r)
			}
		}
	}
	res.Sweeps = sweep
	res.Converged = res.Residual <= tol
	res.X = x
	res.Xi = make([]float64, len(pr.Groups))
	obj := 0.0
	for i := range x {
		obj += 0.5 * x[i] * (g[i] + pr.P[i])
	}
	for gi := range pr.Groups {
		res.Xi[gi] = dpsi(gi)
		s := sum[gi] - pr.C[gi]
		if xi := res.Xi[gi]; xi > 0 {
			obj += s*xi - pr.Rho/2*(xi-pr.Xi0[gi])*(xi-pr.Xi0[gi])
		} else {
			obj -= pr.Rho / 2 * pr.Xi0[gi] * pr.Xi0[gi]
		}
	}
	res.Obj = obj
	return res, nil
}

// softResidual is the largest projected-gradient component of the
// SoftProblem objective at x (g = Hx + p, sum the group sums).
func softResidual(pr *SoftProblem, grp []int, x, g, sum []float64) float64 {
	r := 0.0
	for i := range x {
		gr := g[i]
		if gi := grp[i]; gi >= 0 {
			gr += math.Max(0, pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho)
		}
		if x[i] > 0 {
			r = math.Max(r, math.Abs(gr))
		} else {
			r = math.Max(r, math.Max(0, -gr))
		}
	}
	return r
}

// softPolish fixes the pattern coordinate descent has found — which
// variables are positive and which groups have a positive slack ψ' — and
// solves the resulting linear system (H_FF + E/ρ)x_F = −p_F − ξ⁰ + c/ρ (E
// joins the variables of a group with positive slack) by LU. It returns nil
// when the system is singular or the solution breaks the pattern; the caller
// keeps it only if it lowers the residual (the problem is convex, so this
// is a safe acceleration of the same method).
func softPolish(pr *SoftProblem, grp []int, x, sum []float64) []float64 {
	var free []int
	for i, v := range x {
		if v > 0 {
			free = append(free, i)
		}
	}
	nf := len(free)
	if nf == 0 || nf > 600 { // bounded: one dense LU must stay short (the browser waits on it)
		return nil
	}
	on := make([]bool, len(pr.Groups))
	for gi := range on {
		on[gi] = pr.Xi0[gi]+(sum[gi]-pr.C[gi])/pr.Rho > 0
	}
	k := mat.NewDense(nf, nf, nil)
	rhs := mat.NewVecDense(nf, nil)
	for a, i := range free {
		gi := grp[i]
		for b, j := range free {
			v := pr.H.At(i, j)
			if gi >= 0 && on[gi] && grp[j] == gi {
				v += 1 / pr.Rho
			}
			k.Set(a, b, v)
		}
		r := -pr.P[i]
		if gi >= 0 && on[gi] {
			r += -pr.Xi0[gi] + pr.C[gi]/pr.Rho
		}
		rhs.SetVec(a, r)
	}
	var lu mat.LU
	lu.Factorize(k)
	if lu.Det() == 0 {
		return nil
	}
	var sol mat.VecDense
	if err := lu.SolveVecTo(&sol, false, rhs); err != nil {
		return nil
	}
	xp := make([]float64, len(x))
	for a, i := range free {
		if v := sol.AtVec(a); v >= 0 {
			xp[i] = v
		} else {
			return nil
		}
	}
	return xp
}

func gradientOf(h Operator, p, x []float64) []float64 {
	g := append([]float64(nil), p...)
	for i, xi := range x {
		if xi != 0 {
			h.AddColumn(i, xi, g)
		}
	}
	return g
}
