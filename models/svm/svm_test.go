package svm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
)

// noisy returns n points in d dimensions with labels sign(x₀ + x₁² − 1 + noise).
func noisy(seed uint64, n, d int, noise float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		f := X.At(i, 0) + X.At(i, 1)*X.At(i, 1) - 1 + noise*rng.NormFloat64()
		y[i] = -1
		if f > 0 {
			y[i] = 1
		}
	}
	return X, y
}

// primalGap returns P − D for the primal ½‖w‖² + Σ Cᵢ loss(ξᵢ) at the
// decision function built from the dual solution (w = Σ αᵢyᵢφ(xᵢ),
// b = −rho), and D = −(dual objective). Weak duality makes it ≥ 0 and it
// vanishes only at the optimum, which checks α and rho independently of the
// solver's stopping rule.
func primalGap(t *testing.T, X *mat.Dense, y []float64, p Params, m *Model) (gap, primal float64) {
	t.Helper()
	r := m.Report()
	alpha := r.Diagnostics["alpha"]
	K := p.Kernel.Gram(X)
	n := len(y)
	ww := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ww += alpha[i] * alpha[j] * y[i] * y[j] * K.At(i, j)
		}
	}
	f := m.DecisionX(X)
	primal = ww / 2
	for i := 0; i < n; i++ {
		c := p.C * p.WeightNeg
		if y[i] > 0 {
			c = p.C * p.WeightPos
		}
		xi := math.Max(0, 1-y[i]*f[i])
		if math.Abs(xi-r.Diagnostics["slack"][i]) > 1e-8 {
			t.Fatalf("slack %d: report %g, recomputed %g", i, r.Diagnostics["slack"][i], xi)
		}
		if p.Squared {
			primal += c * xi * xi
		} else {
			primal += c * xi
		}
	}
	return primal + r.Objective, primal
}

func TestPrimalDualGap(t *testing.T) {
	X, y := noisy(1, 150, 4, 0.5)
	for _, sq := range []bool{false, true} {
		for _, k := range []kernel.Kernel{{Kind: kernel.Linear}, {Kind: kernel.RBF, Gamma: 0.3}, {Kind: kernel.Poly, Gamma: 0.5, Coef0: 1, Degree: 2}} {
			for _, c := range []float64{0.1, 10} {
				p := Params{Kernel: k, C: c, WeightPos: 1.5, WeightNeg: 0.7, Squared: sq, Eps: 1e-9, Shrinking: true}
				m, err := Train(context.Background(), X, y, p, model.Options{})
				if err != nil {
					t.Fatal(err)
				}
				gap, primal := primalGap(t, X, y, p, m)
				if gap < -1e-8*math.Abs(primal) || gap > 1e-7*math.Abs(primal) {
					t.Errorf("squared=%v %v C=%g: duality gap %.3g (primal %.6g)", sq, k, c, gap, primal)
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	X, y := noisy(2, 20, 2, 0.1)
	ok := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}, C: 1}
	one := make([]float64, 20)
	for i := range one {
		one[i] = 1
	}
	nanX := mat.DenseCopyOf(X)
	nanX.Set(3, 1, math.NaN())
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		p    Params
		want string
	}{
		{"one class", X, one, ok, "one class"},
		{"n < 2", mat.NewDense(1, 2, []float64{1, 2}), []float64{1}, ok, "at least 2"},
		{"NaN", nanX, y, ok, "not a finite"},
		{"C = 0", X, y, Params{Kernel: ok.Kernel, C: 0}, "C must be"},
		{"C < 0", X, y, Params{Kernel: ok.Kernel, C: -1}, "C must be"},
		{"gamma = 0", X, y, Params{Kernel: kernel.Kernel{Kind: kernel.RBF}, C: 1}, "gamma"},
		{"gamma < 0", X, y, Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: -1}, C: 1}, "gamma"},
		{"labels", X, append([]float64{2}, y[1:]...), ok, "±1"},
		{"length", X, y[:5], ok, "labels for"},
		{"weight", X, y, Params{Kernel: ok.Kernel, C: 1, WeightPos: -1}, "weights"},
	}
	for _, c := range cases {
		_, err := Train(ctx, c.X, c.y, c.p, model.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	// through the registry: out-of-range values are rejected by Resolve
	spec, err := model.Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []model.Values{{"C": "0"}, {"gamma": "0"}, {"gamma": "-1"}, {"C": "NaN"}} {
		if _, err := spec.Resolve(v); err == nil {
			t.Errorf("Resolve(%v) accepted", v)
		}
	}
}

func TestCancelAndProgress(t *testing.T) {
	X, y := noisy(3, 400, 3, 1)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := Train(ctx, X, y, Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 5}, C: 100, Eps: 1e-9}, model.Options{Progress: func(model.Progress) {
		calls++
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || calls == 0 {
		t.Fatalf("got %v after %d progress calls", err, calls)
	}
	m, err := Train(context.Background(), X, y, Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 5}, C: 100, MaxIter: 3}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Report(); r.Converged || len(r.Warnings) == 0 {
		t.Fatalf("MaxIter 3: converged=%v warnings=%v", r.Converged, r.Warnings)
	}
}

func dataset(X *mat.Dense, y []float64) *data.Dataset {
	ds := &data.Dataset{Name: "t", Kind: data.KindPlain, X: X, Classes: []string{"neg", "pos"}, Y: make([]int, len(y))}
	for i, v := range y {
		if v > 0 {
			ds.Y[i] = 1
		}
	}
	return ds
}

func TestRegistrySaveLoadProbability(t *testing.T) {
	X, y := noisy(4, 200, 3, 0.3)
	ds := dataset(X, y)
	for _, id := range []string{"svm", "l2svm"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		v, err := spec.Resolve(model.Values{"C": "2", "gamma": "0.5", "probability": "true", "balanced": "true"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		p1, err := f.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		if p1.Prob == nil {
			t.Fatalf("%s: no probabilities", id)
		}
		acc := 0
		for i, l := range p1.Labels {
			if l == ds.Y[i] {
				acc++
			}
			if (p1.Prob[i][1] > 0.5) != (p1.Decision[i] > 0) && math.Abs(p1.Decision[i]) > 0.3 {
				// Platt's sigmoid has B ≠ 0, so P = ½ need not sit at f = 0;
				// it must still be increasing in f (checked below).
				continue
			}
		}
		if float64(acc)/200 < 0.85 {
			t.Errorf("%s: training accuracy %d/200", id, acc)
		}
		// probabilities increase with the decision value
		bm := f.(*model.Classifier).Models[0].(ProbModel)
		if bm.Platt.A >= 0 {
			t.Errorf("%s: Platt A = %g ≥ 0", id, bm.Platt.A)
		}
		// same seed, same probabilities
		f2, _ := spec.Fit(context.Background(), ds, v, model.Options{Seed: 9})
		p2, _ := f2.Predict(ds)
		for i := range p1.Prob {
			if p1.Prob[i][1] != p2.Prob[i][1] {
				t.Fatalf("%s: probabilities not reproducible", id)
			}
		}
		raw, err := model.Save(id, f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := model.Load(raw)
		if err != nil {
			t.Fatal(err)
		}
		p3, err := g.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1.Decision {
			if p1.Decision[i] != p3.Decision[i] || p1.Prob[i][1] != p3.Prob[i][1] || p1.Labels[i] != p3.Labels[i] {
				t.Fatalf("%s: saved model predicts differently at row %d", id, i)
			}
		}
		r := f.Report()
		if len(r.Diagnostics["alpha"]) != 200 || len(r.Diagnostics["slack"]) != 200 || r.Rho == nil || r.NSupport == 0 {
			t.Errorf("%s: incomplete report %+v", id, r)
		}
	}
}

func TestMultiClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 240
	X := mat.NewDense(n, 2, nil)
	ds := &data.Dataset{Name: "blobs", X: X, Classes: []string{"a", "b", "c"}, Y: make([]int, n)}
	for i := 0; i < n; i++ {
		c := i % 3
		ang := 2 * math.Pi * float64(c) / 3
		X.Set(i, 0, 3*math.Cos(ang)+rng.NormFloat64())
		X.Set(i, 1, 3*math.Sin(ang)+rng.NormFloat64())
		ds.Y[i] = c
	}
	spec, _ := model.Lookup("svm")
	for _, strat := range []string{"ovr", "ovo"} {
		v, err := spec.Resolve(model.Values{"multiclass": strat, "kernel": "linear"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := spec.Fit(context.Background(), ds, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		acc := 0
		for i, l := range p.Labels {
			if l == ds.Y[i] {
				acc++
			}
		}
		if acc < 220 {
			t.Errorf("%s: %d/%d correct", strat, acc, n)
		}
		want := 3
		if len(f.(*model.Classifier).Models) != want {
			t.Errorf("%s: %d binary models", strat, len(f.(*model.Classifier).Models))
		}
	}
}

// SigmoidTrain must find the minimiser of Platt's regularised log-loss, a
// convex function of (A, B): check that its gradient, computed here
// independently, vanishes there, and that nearby points are no better.
func TestSigmoidTrain(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	n := 300
	f := make([]float64, n)
	y := make([]float64, n)
	var np, nn float64
	for i := range f {
		f[i] = 2 * rng.NormFloat64()
		p := 1 / (1 + math.Exp(-1.7*f[i]+0.4))
		y[i] = -1
		if rng.Float64() < p {
			y[i] = 1
		}
		if y[i] > 0 {
			np++
		} else {
			nn++
		}
	}
	A, B := SigmoidTrain(f, y)
	target := func(i int) float64 {
		if y[i] > 0 {
			return (np + 1) / (np + 2)
		}
		return 1 / (nn + 2)
	}
	loss := func(a, b float64) (s, ga, gb float64) {
		for i := range f {
			pi := 1 / (1 + math.Exp(a*f[i]+b))
			s -= target(i)*math.Log(pi) + (1-target(i))*math.Log(1-pi)
			ga += (target(i) - pi) * f[i]
			gb += target(i) - pi
		}
		return
	}
	l0, ga, gb := loss(A, B)
	if math.Hypot(ga, gb) > 1e-4 {
		t.Fatalf("gradient (%g, %g) at (%g, %g)", ga, gb, A, B)
	}
	for _, d := range [][2]float64{{1e-3, 0}, {-1e-3, 0}, {0, 1e-3}, {0, -1e-3}} {
		if l, _, _ := loss(A+d[0], B+d[1]); l < l0 {
			t.Fatalf("loss %g at (%g, %g) below %g at the fit", l, A+d[0], B+d[1], l0)
		}
	}
	if A > -1 || A < -2.5 {
		t.Fatalf("A = %g far from the generating −1.7", A)
	}
}

// Rows on demand: a problem whose Gram matrix would not fit the cache
// budget still trains, and agrees with the fully cached run.
func TestSmallCache(t *testing.T) {
	X, y := noisy(8, 600, 5, 0.5)
	p := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.2}, C: 3, Eps: 1e-8, Shrinking: true}
	a, err := Train(context.Background(), X, y, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.CacheMB = 0.05 // ≈ 10 rows of 600
	b, err := Train(context.Background(), X, y, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Report().Objective-b.Report().Objective) > 1e-9*math.Abs(a.Report().Objective) {
		t.Fatalf("objective %g with a large cache, %g with a small one", a.Report().Objective, b.Report().Objective)
	}
}
