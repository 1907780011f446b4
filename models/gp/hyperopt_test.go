package gp

import (
	"context"
	"math"
	"testing"
)

// A trial point far outside the box is not evaluated (hyperSearch.farPenalty): on an
// evidence that grows linearly along one coordinate (zero curvature, so
// L-BFGS's steps along it are unbounded) the search must reach the same
// constrained optimum as with every point evaluated, the evidence must only
// ever be asked for inside the box, and the skipped points must save
// evaluations.
func TestOptimizeHyperFarSteps(t *testing.T) {
	lo, hi := []float64{-5, -5, -5}, []float64{5, 5, 5}
	run := func(far float64) (*searchResult, int) {
		calls := 0
		ev := func(th []float64) (float64, []float64, error) {
			calls++
			for i, v := range th {
				if v < lo[i] || v > hi[i] {
					t.Fatalf("evidence asked for outside the box: %v", th)
				}
			}
			// log Z = −½(θ₀ − 1)² − 2(θ₁ + 0.5)² + 3θ₂: its maximum over the
			// box is (1, −0.5, 5).
			lz := -0.5*(th[0]-1)*(th[0]-1) - 2*(th[1]+0.5)*(th[1]+0.5) + 3*th[2]
			return lz, []float64{-(th[0] - 1), -4 * (th[1] + 0.5), 3}, nil
		}
		hs := hyperSearch{theta0: []float64{0, 0, 0}, free: []bool{true, true, true}, lo: lo, hi: hi, farPenalty: far}
		sr, err := optimizeHyper(context.Background(), hs, ev, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sr, calls
	}
	skip, nSkip := run(100)
	all, nAll := run(math.Inf(1))
	want := []float64{1, -0.5, 5}
	for _, sr := range []*searchResult{skip, all} {
		for i, w := range want {
			if math.Abs(sr.theta[i]-w) > 1e-4 {
				t.Fatalf("optimum %v, want %v", sr.theta, want)
			}
		}
	}
	if nSkip > nAll {
		t.Errorf("skipping far points took %d evaluations, evaluating them %d", nSkip, nAll)
	}
	t.Logf("evaluations: %d skipping far points, %d evaluating them", nSkip, nAll)
}
