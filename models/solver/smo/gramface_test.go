package smo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGramFace: Q_FF of successive faces (a polish's rounds: the previous
// face minus some variables, plus others, in another order, under a
// permutation of positions) equals W_F W_Fᵀ computed afresh, and from the
// second face on the shared entries come from the previous face (a
// sentinel planted there shows up); a new solve (reset) reuses nothing.
func TestGramFace(t *testing.T) {
	const n, k = 60, 9
	rng := rand.New(rand.NewPCG(11, 12))
	w := make([]float64, n*k)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	perm := rng.Perm(n)
	var pw faceScratch
	pw.reset(n)
	build := func(F []int) []float64 {
		wf := make([]float64, len(F)*k)
		for a, i := range F {
			copy(wf[a*k:(a+1)*k], w[perm[i]*k:(perm[i]+1)*k])
		}
		c := make([]float64, len(F)*len(F))
		pw.gramFace(F, perm, wf, k, c, len(F))
		return c
	}
	check := func(F []int, c []float64, skip func(a, b int) bool) {
		t.Helper()
		nf := len(F)
		for a := 0; a < nf; a++ {
			for b := a; b < nf; b++ {
				if skip != nil && skip(a, b) {
					continue
				}
				var want float64
				for j := 0; j < k; j++ {
					want += w[perm[F[a]]*k+j] * w[perm[F[b]]*k+j]
				}
				if math.Abs(c[a*nf+b]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("face %v: Q[%d][%d] = %.17g, want %.17g", F, a, b, c[a*nf+b], want)
				}
			}
		}
	}
	F1 := []int{3, 7, 10, 11, 20, 25, 31, 40, 41, 42, 50, 59}
	check(F1, build(F1), nil)
	// Round two: 7 and 41 fixed, 5 and 33 added, another order.
	F2 := []int{33, 3, 10, 11, 20, 25, 31, 40, 42, 50, 59, 5}
	check(F2, build(F2), nil)
	// A sentinel in the kept face between variables 10 and 20 (positions 2
	// and 4 of F2) must be copied into the next face that holds both.
	const sentinel = 12345.0
	pw.prevH[2*len(F2)+4] = sentinel
	F3 := []int{20, 10, 3, 8}
	c3 := build(F3)
	if c3[0*len(F3)+1] != sentinel {
		t.Fatalf("Q[10][20] of the third face = %v: not taken from the previous face", c3[1])
	}
	check(F3, c3, func(a, b int) bool { return a == 0 && b == 1 })
	// After reset nothing is reused.
	pw.prevH[0*len(F3)+1] = sentinel
	pw.reset(n)
	check(F3, build(F3), nil)
}
