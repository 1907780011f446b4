package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// OnGrid against Eval at every node, with enough support vectors that the
// product is done in several blocks (and tick is called between them).
func TestExpansionOnGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := 1500
	sv := mat.NewDense(m, 2, nil)
	coef := make([]float64, m)
	for i := 0; i < m; i++ {
		sv.Set(i, 0, r.NormFloat64())
		sv.Set(i, 1, 2*r.NormFloat64())
		coef[i] = r.Float64()*2 - 1
	}
	xs, ys := make([]float64, 37), make([]float64, 301)
	for i := range xs {
		xs[i] = -3 + 6*float64(i)/36
	}
	for j := range ys {
		ys[j] = 5 - 10*float64(j)/300
	}
	for _, k := range []Kernel{{Kind: RBF, Gamma: 0.7}, {Kind: Linear}} {
		e := &Expansion{Kernel: k, SV: sv, Coef: coef, Bias: 0.25}
		ticks := 0
		got, ok := e.OnGrid(xs, ys, func() { ticks++ })
		if !ok {
			t.Fatalf("%s: no fast form", k.Kind)
		}
		if k.Kind == RBF && ticks == 0 {
			t.Errorf("%s: tick never called", k.Kind)
		}
		worst := 0.0
		for j, y := range ys {
			for i, x := range xs {
				want := e.Bias
				for s := 0; s < m; s++ {
					want += coef[s] * k.Eval(sv.RawRowView(s), []float64{x, y})
				}
				worst = math.Max(worst, math.Abs(got[j*len(xs)+i]-want))
			}
		}
		if worst > 1e-11 {
			t.Errorf("%s: largest difference from Eval %.3g", k.Kind, worst)
		}
	}
	if _, ok := (&Expansion{Kernel: Kernel{Kind: Poly, Gamma: 1, Degree: 3}, SV: sv, Coef: coef}).OnGrid(xs, ys, nil); ok {
		t.Error("polynomial kernel claimed a fast form")
	}
	if _, ok := (&Expansion{Kernel: Kernel{Kind: RBF, Gamma: 1}, SV: mat.NewDense(2, 3, nil), Coef: []float64{1, 1}}).OnGrid(xs, ys, nil); ok {
		t.Error("three features claimed a fast form")
	}
}
