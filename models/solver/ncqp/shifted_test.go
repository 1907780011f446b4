package ncqp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestShiftedSolve: the solver from CholeskyShiftedIn against mat.Cholesky's
// solve of the same (unshifted, well-conditioned) matrix, for right-hand
// sides with leading zeros (the unit vectors eₖ of a polish, where the
// forward solve starts at k), a dense one and zero.
func TestShiftedSolve(t *testing.T) {
	const n = 37
	rng := rand.New(rand.NewPCG(3, 4))
	a := mat.NewDense(n, n+5, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n+5; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	h := mat.NewSymDense(n, nil)
	h.SymOuterK(1, a)
	maxd := 0.0
	for i := 0; i < n; i++ {
		maxd = math.Max(maxd, h.At(i, i))
	}
	solve := CholeskyShiftedIn(h, maxd, nil, nil)
	if solve == nil {
		t.Fatal("no factorisation")
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		t.Fatal("mat.Cholesky failed")
	}
	var rhs [][]float64
	for _, k := range []int{0, 1, n / 2, n - 1} {
		e := make([]float64, n)
		e[k] = 1
		rhs = append(rhs, e)
		tail := make([]float64, n)
		for i := k; i < n; i++ {
			tail[i] = rng.NormFloat64()
		}
		rhs = append(rhs, tail)
	}
	rhs = append(rhs, make([]float64, n))
	for r, b := range rhs {
		got := solve(b)
		var want mat.VecDense
		if err := ch.SolveVecTo(&want, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if d := math.Abs(got[i] - want.AtVec(i)); d > 1e-8*(1+math.Abs(want.AtVec(i))) {
				t.Fatalf("rhs %d: x[%d] = %.15g, want %.15g", r, i, got[i], want.AtVec(i))
			}
		}
	}
}
