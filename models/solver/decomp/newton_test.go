package decomp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestShiftedSolve: the solver from CholeskyShiftedIn against mat.Cholesky's
// solve of the same (unshifted, well-conditioned) matrix, for right-hand
// sides with leading zeros (the unit vectors eₖ of a polish, where the
// forward solve starts at k), dense ones and zero; with and without a
// Scratch arena (reset and reused in a second round).
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
	// Without scratch, and with a Scratch whose arena grows while earlier
	// solutions are still held (all are checked after the last solve).
	for _, sc := range []*Scratch{nil, {}} {
		for round := 0; round < 2; round++ {
			solve := CholeskyShiftedIn(h, maxd, nil, nil, sc)
			if solve == nil {
				t.Fatal("no factorisation")
			}
			// 27 solutions of 37 entries: more than the first arena holds.
			var got [][]float64
			for rep := 0; rep < 3; rep++ {
				for _, b := range rhs {
					got = append(got, solve(b))
				}
			}
			for r := range got {
				b := rhs[r%len(rhs)]
				var want mat.VecDense
				if err := ch.SolveVecTo(&want, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
					t.Fatal(err)
				}
				for i, x := range got[r] {
					if d := math.Abs(x - want.AtVec(i)); d > 1e-8*(1+math.Abs(want.AtVec(i))) {
						t.Fatalf("scratch %v round %d rhs %d: x[%d] = %.15g, want %.15g", sc != nil, round, r, i, x, want.AtVec(i))
					}
				}
			}
			if sc != nil {
				sc.Reset()
			}
		}
	}
}
