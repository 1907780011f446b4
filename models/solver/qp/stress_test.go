package qp

import (
	"context"
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
