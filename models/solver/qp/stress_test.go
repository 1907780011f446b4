package qp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomProblem draws a feasible, bounded convex QP of a given kind. Its
// solution is checked by the KKT conditions, which for a convex problem are
// an optimality certificate independent of the solver.
func randomProblem(rng *rand.Rand, kind string, n int, scale float64) *Problem {
	normal := func(r, c int) *mat.Dense {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		return mat.NewDense(r, c, d)
	}
	vec := func(k int, s float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = s * rng.NormFloat64()
		}
		return v
	}
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = rng.Float64() - 0.5
	}
	rank := n
	switch kind {
	case "rankdef", "redundant_eq", "lp_free_eq":
		rank = n / 4
	}
	var P *mat.SymDense
	if kind != "lp_free_eq" {
		F := normal(rank, n)
		P = mat.NewSymDense(n, nil)
		P.SymOuterK(scale/float64(n), F.T())
	}
	p := &Problem{P: P, Q: vec(n, scale)}
	box := func(w float64) {
		p.Lower, p.Upper = make([]float64, n), make([]float64, n)
		for i := range p.Lower {
			p.Lower[i], p.Upper[i] = -w, w
		}
	}
	addEq := func(m int, dup bool) {
		E := normal(m, n)
		if dup {
			// Repeat rows: consistent but rank-deficient equalities.
			E2 := mat.NewDense(2*m, n, nil)
			E2.Stack(E, E)
			E = E2
		}
		var d mat.VecDense
		d.MulVec(E, mat.NewVecDense(n, x0))
		p.E, p.D = E, d.RawVector().Data
	}
	addIneq := func(m int) {
		A := normal(m, n)
		var b mat.VecDense
		b.MulVec(A, mat.NewVecDense(n, x0))
		for i := 0; i < m; i++ {
			b.SetVec(i, b.AtVec(i)+0.3*rng.Float64())
		}
		p.A, p.B = A, b.RawVector().Data
	}
	switch kind {
	case "box_eq":
		box(1)
		addEq(1, false)
	case "rankdef":
		box(1)
		addIneq(n / 2)
	case "redundant_eq":
		box(1)
		addEq(3, true)
	case "lp_free_eq":
		// LP with free variables (no bounds, so H = GᵀWG only): bounded
		// because ±I rows are among the general inequalities.
		addIneq(n)
		I := mat.NewDense(2*n, n, nil)
		for i := 0; i < n; i++ {
			I.Set(i, i, 1)
			I.Set(n+i, i, -1)
		}
		A := mat.NewDense(3*n, n, nil)
		A.Stack(p.A, I)
		b := append(append([]float64(nil), p.B...), make([]float64, 2*n)...)
		for i := 0; i < 2*n; i++ {
			b[n+i] = 1
		}
		p.A, p.B = A, b
		addEq(2, false)
	case "general":
		box(2)
		addIneq(n)
		addEq(n/10+1, false)
	}
	return p
}

func TestRandomKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	kinds := []string{"box_eq", "rankdef", "redundant_eq", "lp_free_eq", "general"}
	for trial := 0; trial < qpStressTrials; trial++ {
		kind := kinds[trial%len(kinds)]
		n := 5 + rng.IntN(60)
		scale := math.Pow(10, float64(rng.IntN(qpStressScale)-qpStressScale/2)) // 1e-3 … 1e3 by default
		p := randomProblem(rng, kind, n, scale)
		t.Run(fmt.Sprintf("%d_%s_n%d_s%g", trial, kind, n, scale), func(t *testing.T) {
			r, err := Solve(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("status %v after %d iterations: relP %.2g relD %.2g gap %.2g", r.Status, r.Iter, r.RelPrimalRes, r.RelDualRes, r.RelGap)
			}
			pr, du, co := kktCheck(p, r)
			// kktCheck's measures are relative to 1 + ‖∇f‖, so scale them.
			if pr > 1e-7 || du > 1e-7 || co > 1e-6*math.Max(1, math.Abs(r.Obj)) {
				t.Errorf("KKT: primal %.3g dual %.3g complementarity %.3g (obj %.6g)", pr, du, co, r.Obj)
			}
		})
	}
}

var qpStressTrials, qpStressScale = 40, 7

// Random infeasible and unbounded problems of moderate size must be reported
// as such (with verified certificates), never as optimal.
func TestRandomCertificates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	normal := func(r, c int) *mat.Dense {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		return mat.NewDense(r, c, d)
	}
	for trial := 0; trial < 10; trial++ {
		n := 20 + rng.IntN(60)
		m := n / 2
		F := normal(n/3, n)
		P := mat.NewSymDense(n, nil)
		P.SymOuterK(1/float64(n), F.T())

		// Infeasible: random feasible rows plus a slab aᵀx ≤ −1, −aᵀx ≤ −1.
		A := normal(m+2, n)
		b := make([]float64, m+2)
		for i := 0; i < m; i++ {
			b[i] = 1 + rng.Float64()
		}
		for j := 0; j < n; j++ {
			A.Set(m+1, j, -A.At(m, j))
		}
		b[m], b[m+1] = -1, -1
		q := make([]float64, n)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		pInf := &Problem{P: P, Q: q, A: A, B: b}
		if trial%2 == 1 {
			pInf.Lower, pInf.Upper = make([]float64, n), make([]float64, n)
			for i := range pInf.Lower {
				pInf.Lower[i], pInf.Upper[i] = -5, 5
			}
		}
		r, err := Solve(context.Background(), pInf, Options{})
		if !errors.Is(err, ErrInfeasible) {
			t.Errorf("trial %d infeasible (n=%d): got %v", trial, n, err)
		} else {
			checkFarkas(t, pInf, r)
		}

		// Unbounded: v in the null space of P and of the (few) equality
		// rows, inequality rows with aᵀv ≤ 0, and qᵀv < 0.
		v := mat.NewVecDense(n, nil)
		{
			// Project a random vector onto null(F) ∩ null(E).
			E := normal(2, n)
			M := mat.NewDense(n/3+2, n, nil)
			M.Stack(F, E)
			var svd mat.SVD
			if !svd.Factorize(M, mat.SVDFull) {
				t.Fatal("svd")
			}
			var V mat.Dense
			svd.VTo(&V)
			w := make([]float64, n)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			// Null space = last n − rank columns of V.
			rk := n/3 + 2
			for c := rk; c < n; c++ {
				col := mat.Col(nil, c, &V)
				coef := 0.0
				for i := range col {
					coef += col[i] * w[i]
				}
				for i := range col {
					v.SetVec(i, v.AtVec(i)+coef*col[i])
				}
			}
			Au := normal(m, n)
			bu := make([]float64, m)
			for i := 0; i < m; i++ {
				av := mat.Dot(Au.RowView(i), v)
				if av > 0 {
					for j := 0; j < n; j++ {
						Au.Set(i, j, -Au.At(i, j))
					}
				}
				bu[i] = 1 + rng.Float64()
			}
			qu := make([]float64, n)
			for i := range qu {
				qu[i] = 0.1*rng.NormFloat64() - v.AtVec(i)
			}
			// Make sure qᵀv < 0 despite the noise.
			if mat.Dot(mat.NewVecDense(n, qu), v) >= 0 {
				for i := range qu {
					qu[i] = -v.AtVec(i)
				}
			}
			pUnb := &Problem{P: P, Q: qu, A: Au, B: bu, E: E, D: []float64{0, 0}}
			r, err := Solve(context.Background(), pUnb, Options{})
			if !errors.Is(err, ErrUnbounded) {
				t.Errorf("trial %d unbounded (n=%d): got %v", trial, n, err)
			} else if r.Certificate == nil {
				t.Errorf("no certificate")
			}
		}
	}
}

// Rows of A and E scaled over 8 and 6 orders of magnitude and variables
// over 4: the solver has no equilibration, so this checks that the
// regularisation, refinement and relative tests cope.
func TestBadlyScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	kinds := []string{"box_eq", "rankdef", "redundant_eq", "lp_free_eq", "general"}
	for trial := 0; trial < qpStressTrials; trial++ {
		n := 5 + rng.IntN(40)
		p := randomProblem(rng, kinds[trial%5], n, 1)
		for _, c := range []struct {
			M       *mat.Dense
			v       []float64
			decades float64
		}{{p.A, p.B, 8}, {p.E, p.D, 6}} {
			if c.M == nil {
				continue
			}
			r, _ := c.M.Dims()
			for i := 0; i < r; i++ {
				f := math.Pow(10, c.decades*(rng.Float64()-0.5))
				for j := 0; j < n; j++ {
					c.M.Set(i, j, c.M.At(i, j)*f)
				}
				c.v[i] *= f
			}
		}
		// Variable scaling x = S x'.
		sc := make([]float64, n)
		for j := range sc {
			sc[j] = math.Pow(10, 4*rng.Float64()-2)
		}
		if p.P != nil {
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					p.P.SetSym(i, j, p.P.At(i, j)*sc[i]*sc[j])
				}
			}
		}
		for j := range sc {
			p.Q[j] *= sc[j]
			if p.Lower != nil {
				p.Lower[j] /= sc[j]
				p.Upper[j] /= sc[j]
			}
		}
		for _, M := range []*mat.Dense{p.A, p.E} {
			if M == nil {
				continue
			}
			r, _ := M.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < n; j++ {
					M.Set(i, j, M.At(i, j)*sc[j])
				}
			}
		}
		r, err := Solve(context.Background(), p, Options{})
		if err != nil || !r.Converged {
			st := ""
			if r != nil {
				st = r.Status.String()
			}
			t.Errorf("trial %d (%s, n=%d): %v %s", trial, kinds[trial%5], n, err, st)
			continue
		}
		if pr, du, co := kktCheck(p, r); pr > 1e-6 || du > 1e-6 || co > 1e-6*math.Max(1, math.Abs(r.Obj)) {
			t.Errorf("trial %d (%s): KKT %.2g %.2g %.2g", trial, kinds[trial%5], pr, du, co)
		}
	}
}
