package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFastExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	worst := 0.0
	check := func(x float64) {
		want := math.Exp(x)
		got := fastExp(x)
		if want == 0 {
			if got != 0 {
				t.Fatalf("exp(%g) = %g, want 0", x, got)
			}
			return
		}
		worst = math.Max(worst, math.Abs(got-want)/want)
	}
	for i := 0; i < 200000; i++ {
		check(-700 * rng.Float64())
		check(-2 * rng.Float64())
		check(700 * rng.Float64())
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-300, -1e-20, math.Ln2, -math.Ln2, -700, 700, -745, -800, 710} {
		check(x)
	}
	if worst > 1e-15 {
		t.Fatalf("largest relative error %g", worst)
	}
	if !math.IsNaN(fastExp(math.NaN())) || fastExp(math.Inf(-1)) != 0 || !math.IsInf(fastExp(math.Inf(1)), 1) {
		t.Fatal("special values")
	}
}

func BenchmarkExp(b *testing.B) {
	s, x := 0.0, -0.1
	for i := 0; i < b.N; i++ {
		s += fastExp(x)
		x -= 1e-9
	}
	if s == 0 {
		b.Fatal(s)
	}
}

func BenchmarkMathExp(b *testing.B) {
	s, x := 0.0, -0.1
	for i := 0; i < b.N; i++ {
		s += math.Exp(x)
		x -= 1e-9
	}
	if s == 0 {
		b.Fatal(s)
	}
}

func BenchmarkSubRow32(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	n := 2000
	X := mat.NewDense(n, 10, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 10; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	q, _ := NewQ(Kernel{Kind: RBF, Gamma: 0.1}, X, s, 0)
	dst := make([]float32, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.SubRow32(i%n, q.all, dst)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
}
