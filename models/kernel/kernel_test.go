package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/spec"
)

func randMat(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// direct evaluates the kernels from their definitions.
func direct(k Kernel, a, b []float64) float64 {
	dot, d2 := 0.0, 0.0
	for i := range a {
		dot += a[i] * b[i]
		d2 += (a[i] - b[i]) * (a[i] - b[i])
	}
	switch k.Kind {
	case RBF:
		return math.Exp(-k.Gamma * d2)
	case Poly:
		return math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
	case Sigmoid:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return dot
}

var kernels = []Kernel{
	{Kind: Linear},
	{Kind: RBF, Gamma: 0.7},
	{Kind: Poly, Gamma: 0.5, Coef0: 1, Degree: 3},
	{Kind: Poly, Gamma: 2, Coef0: -0.5, Degree: 1},
	{Kind: Sigmoid, Gamma: 0.1, Coef0: -1},
}

func TestEvalGramCrossQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	A := randMat(rng, 17, 4)
	B := randMat(rng, 9, 4)
	s := make([]float64, 17)
	for i := range s {
		s[i] = float64(1 - 2*rng.IntN(2))
	}
	for _, k := range kernels {
		if err := k.Validate(); err != nil {
			t.Fatal(err)
		}
		G := k.Gram(A)
		C := k.Cross(A, B)
		q, err := NewQ(k, A, s, 0.25)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]float64, 17)
		sub := make([]float64, 5)
		sub32 := make([]float32, 5)
		idx := []int{3, 0, 16, 3, 8}
		for i := 0; i < 17; i++ {
			q.Row(i, row)
			q.SubRow(i, idx, sub)
			q.SubRow32(i, idx, sub32)
			for j := 0; j < 17; j++ {
				want := direct(k, A.RawRowView(i), A.RawRowView(j))
				tol := 1e-12 * (1 + math.Abs(want))
				if got := k.Eval(A.RawRowView(i), A.RawRowView(j)); math.Abs(got-want) > tol {
					t.Fatalf("%v Eval(%d,%d) = %g, want %g", k, i, j, got, want)
				}
				if got := G.At(i, j); math.Abs(got-want) > tol {
					t.Fatalf("%v Gram(%d,%d) = %g, want %g", k, i, j, got, want)
				}
				qw := s[i] * s[j] * want
				if i == j {
					qw += 0.25
				}
				if math.Abs(row[j]-qw) > tol {
					t.Fatalf("%v Q row %d col %d = %g, want %g", k, i, j, row[j], qw)
				}
			}
			if math.Abs(q.Diag(i)-row[i]) > 1e-15 {
				t.Fatalf("%v Diag(%d) = %g, row says %g", k, i, q.Diag(i), row[i])
			}
			for tt, j := range idx {
				if sub[tt] != row[j] {
					t.Fatalf("%v SubRow(%d)[%d] = %g, Row says %g", k, i, j, sub[tt], row[j])
				}
				if sub32[tt] != float32(row[j]) {
					t.Fatalf("%v SubRow32(%d)[%d] = %g, Row says %g", k, i, j, sub32[tt], row[j])
				}
			}
			for j := 0; j < 9; j++ {
				want := direct(k, A.RawRowView(i), B.RawRowView(j))
				if got := C.At(i, j); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%v Cross(%d,%d) = %g, want %g", k, i, j, got, want)
				}
			}
		}
	}
}

func TestPrecomputed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A := randMat(rng, 6, 3)
	k := Kernel{Kind: RBF, Gamma: 0.3}
	G := mat.DenseCopyOf(k.Gram(A))
	p := Kernel{Kind: Precomputed}
	q, err := NewQ(p, G, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 6)
	for i := 0; i < 6; i++ {
		q.Row(i, row)
		for j := range row {
			if math.Abs(row[j]-G.At(i, j)) > 1e-15 {
				t.Fatal("precomputed row differs")
			}
		}
	}
	if _, err := NewQ(p, A, nil, 0); err == nil {
		t.Fatal("non-square precomputed kernel accepted")
	}
	if !math.IsNaN(p.Eval([]float64{1}, []float64{1})) {
		t.Fatal("Eval of a precomputed kernel should be NaN")
	}
}

func TestValidateAndValues(t *testing.T) {
	bad := []Kernel{
		{Kind: RBF}, {Kind: RBF, Gamma: -1}, {Kind: Sigmoid, Gamma: 0}, {Kind: Poly, Gamma: 1, Degree: 0},
		{Kind: "cubic"}, {Kind: RBF, Gamma: math.NaN()}, {Kind: Poly, Gamma: 1, Degree: 2, Coef0: math.Inf(1)},
	}
	for _, k := range bad {
		if k.Validate() == nil {
			t.Errorf("%+v accepted", k)
		}
	}
	ps := spec.KernelParams("z", "Privileged kernel", string(Linear))
	names := map[string]bool{}
	for _, p := range ps {
		names[p.Name] = true
	}
	for _, n := range []string{"zkernel", "zgamma", "zdegree", "zcoef0"} {
		if !names[n] {
			t.Errorf("Params lacks %s", n)
		}
	}
	sp := &spec.Spec{Params: ps}
	v, err := sp.Resolve(model.Values{"zkernel": "poly", "zgamma": "0.5", "zdegree": "2", "zcoef0": "1"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := FromValues(v, "z")
	if err != nil || k != (Kernel{Kind: Poly, Gamma: 0.5, Degree: 2, Coef0: 1}) {
		t.Fatalf("FromValues = %+v, %v", k, err)
	}
	if _, err := sp.Resolve(model.Values{"zgamma": "0"}); err == nil {
		t.Error("gamma = 0 accepted by the parameter spec")
	}
	if _, err := FromValues(model.Values{"kernel": "rbf", "gamma": "-2"}, ""); err == nil {
		t.Error("FromValues accepted gamma < 0")
	}
	if _, err := FromValues(model.Values{"kernel": "poly", "degree": "2.5"}, ""); err == nil {
		t.Error("FromValues accepted a fractional degree")
	}
	if _, err := NewQ(Kernel{Kind: RBF, Gamma: 1}, mat.NewDense(2, 1, []float64{1, math.NaN()}), nil, 0); err == nil {
		t.Error("NewQ accepted NaN")
	}
}
