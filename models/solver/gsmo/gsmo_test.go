package gsmo

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"

	testfix "lupilab/models/internal/fixture"
)

type fixture struct {
	Name   string    `json:"name"`
	N      int       `json:"n"`
	K      []float64 `json:"K"`
	KTilde []float64 `json:"KT"`
	Y      []float64 `json:"y"`
	C      float64   `json:"C"`
	Lambda float64   `json:"lambda_"`
	Alpha  []float64 `json:"alpha"`
	Beta   []float64 `json:"beta"`
	Obj    float64   `json:"obj"`
}

func loadFixtures(t *testing.T) []fixture {
	var f struct {
		Cases []fixture `json:"cases"`
	}
	testfix.ReadJSON(t, "testdata/svm1plus_cvxopt.json", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no fixtures")
	}
	return f.Cases
}

// objective recomputes the SVM1+ dual objective (paper 000 eq 2, min form)
// from scratch.
func objective(K, KT []float64, y, a, b []float64, C, lam float64) float64 {
	n := len(y)
	var q1, q2, s float64
	for i := 0; i < n; i++ {
		s += a[i]
		for j := 0; j < n; j++ {
			q1 += a[i] * y[i] * K[i*n+j] * a[j] * y[j]
			q2 += (a[i] + b[i] - C) * KT[i*n+j] * (a[j] + b[j] - C)
		}
	}
	return 0.5*q1 + q2/(2*lam) - s
}

// kktResidual is the largest violation of the KKT conditions of eq (2)
// with the solver's multipliers, computed independently of the solver.
func kktResidual(K, KT []float64, y []float64, r *Result, C, lam float64) float64 {
	n := len(y)
	res := 0.0
	up := func(v float64) {
		if v > res {
			res = v
		}
	}
	var e1, e2 float64
	for i := 0; i < n; i++ {
		var g, f float64
		for j := 0; j < n; j++ {
			g += K[i*n+j] * r.Alpha[j] * y[j]
			f += KT[i*n+j] * (r.Alpha[j] + r.Beta[j] - C)
		}
		ga := y[i]*g + f/lam - 1 + r.Rho + r.B*y[i]
		gb := f/lam + r.Rho
		up(-math.Min(r.Alpha[i], 0))
		up(-math.Min(r.Beta[i], 0))
		up(-math.Min(ga, 0))
		up(-math.Min(gb, 0))
		up(math.Abs(r.Alpha[i] * ga))
		up(math.Abs(r.Beta[i] * gb))
		e1 += r.Alpha[i] + r.Beta[i] - C
		e2 += r.Alpha[i] * y[i]
	}
	up(math.Abs(e1))
	up(math.Abs(e2))
	return res
}

func TestAgainstCvxopt(t *testing.T) {
	for _, f := range loadFixtures(t) {
		p := &Problem{K: &Dense{N: f.N, Data: f.K}, KT: &Dense{N: f.N, Data: f.KTilde}, Y: f.Y, C: f.C, Lambda: f.Lambda}
		r, err := Solve(context.Background(), p, Options{Eps: 1e-9})
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !r.Converged {
			t.Errorf("%s: not converged after %d iterations (violation %g)", f.Name, r.Iter, r.Violation)
		}
		obj := objective(f.K, f.KTilde, f.Y, r.Alpha, r.Beta, f.C, f.Lambda)
		if math.Abs(obj-r.Obj) > 1e-9*math.Max(1, math.Abs(obj)) {
			t.Errorf("%s: reported objective %v, recomputed %v", f.Name, r.Obj, obj)
		}
		if rel := math.Abs(obj-f.Obj) / math.Max(1, math.Abs(f.Obj)); rel > 1e-6 {
			t.Errorf("%s: objective %.12g, cvxopt %.12g (rel %g)", f.Name, obj, f.Obj, rel)
		}
		if k := kktResidual(f.K, f.KTilde, f.Y, r, f.C, f.Lambda); k > 1e-6 {
			t.Errorf("%s: KKT residual %g", f.Name, k)
		}
		t.Logf("%s: obj %.10g (cvxopt %.10g), %d iterations", f.Name, obj, f.Obj, r.Iter)
	}
}

func TestBadInput(t *testing.T) {
	k := &Dense{N: 2, Data: []float64{1, 0, 0, 1}}
	cases := map[string]*Problem{
		"nil":        nil,
		"one class":  {K: k, KT: k, Y: []float64{1, 1}, C: 1, Lambda: 1},
		"bad label":  {K: k, KT: k, Y: []float64{1, 0}, C: 1, Lambda: 1},
		"C zero":     {K: k, KT: k, Y: []float64{1, -1}, C: 0, Lambda: 1},
		"C NaN":      {K: k, KT: k, Y: []float64{1, -1}, C: math.NaN(), Lambda: 1},
		"lambda neg": {K: k, KT: k, Y: []float64{1, -1}, C: 1, Lambda: -1},
		"sizes":      {K: k, KT: &Dense{N: 1, Data: []float64{1}}, Y: []float64{1, -1}, C: 1, Lambda: 1},
		"NaN kernel": {K: &Dense{N: 2, Data: []float64{math.NaN(), 0, 0, 1}}, KT: k, Y: []float64{1, -1}, C: 1, Lambda: 1},
	}
	for name, p := range cases {
		if _, err := Solve(context.Background(), p, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCancel(t *testing.T) {
	f := loadFixtures(t)[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &Problem{K: &Dense{N: f.N, Data: f.K}, KT: &Dense{N: f.N, Data: f.KTilde}, Y: f.Y, C: f.C, Lambda: f.Lambda}
	if _, err := Solve(ctx, p, Options{}); err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestPolish: the cvxopt fixtures solved with Newton polishing must match
// as without; and an ill-conditioned SVM1+ dual (λ = 10⁻⁴, linear kernels of
// rank 4 and 3, large C) that the sparse directions need very many
// iterations for converges with polishing to a KKT point (residual checked
// independently of the solver) in far fewer iterations.
func TestPolish(t *testing.T) {
	for _, f := range loadFixtures(t) {
		p := &Problem{K: &Dense{N: f.N, Data: f.K}, KT: &Dense{N: f.N, Data: f.KTilde}, Y: f.Y, C: f.C, Lambda: f.Lambda}
		r, err := Solve(context.Background(), p, Options{Eps: 1e-9, Polish: true})
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		obj := objective(f.K, f.KTilde, f.Y, r.Alpha, r.Beta, f.C, f.Lambda)
		if rel := math.Abs(obj-f.Obj) / math.Max(1, math.Abs(f.Obj)); !r.Converged || rel > 1e-6 {
			t.Errorf("%s: converged %v, objective %.12g, cvxopt %.12g (rel %g)", f.Name, r.Converged, obj, f.Obj, rel)
		}
		if k := kktResidual(f.K, f.KTilde, f.Y, r, f.C, f.Lambda); k > 1e-6 {
			t.Errorf("%s: KKT residual %g", f.Name, k)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 120
	lin := func(d int) []float64 {
		x := make([]float64, n*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		k := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for c := 0; c < d; c++ {
					k[i*n+j] += x[i*d+c] * x[j*d+c]
				}
			}
		}
		return k
	}
	K, KT := lin(4), lin(3)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(2*(i%2) - 1)
	}
	p := &Problem{K: &Dense{N: n, Data: K}, KT: &Dense{N: n, Data: KT}, Y: y, C: 10, Lambda: 1e-4}
	pol, err := Solve(context.Background(), p, Options{Eps: 1e-6, Polish: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pol.Converged || pol.Polishes == 0 {
		t.Fatalf("polished: converged %v after %d iterations, %d polishes", pol.Converged, pol.Iter, pol.Polishes)
	}
	if k := kktResidual(K, KT, y, pol, p.C, p.Lambda); k > 1e-5 {
		t.Errorf("polished: KKT residual %g", k)
	}
	plain, err := Solve(context.Background(), p, Options{Eps: 1e-6, MaxIter: 10 * pol.Iter})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Converged {
		t.Errorf("plain generalised SMO converged in %d iterations, polished %d: expected polishing to need < 1/10", plain.Iter, pol.Iter)
	}
	t.Logf("polished %d iterations (%d polishes); plain not converged after %d (violation %g)", pol.Iter, pol.Polishes, plain.Iter, plain.Violation)
}

// The widening rounds: on the shipped digits data (30 % split, standardised,
// linear kernels, C = 1, λ = 100, the svm2plus experiment's SVM1+ choice,
// each class against the rest) a polish that widens its face by the KKT
// violators needs fewer generalised-SMO iterations than one that re-forms
// the face of the positive variables only: 59 568 against 84 361 over the
// ten classes at commit time (0.71×; never more than one iteration worse
// for a class). The iteration counts move with rounding (a Gram matrix
// summed in another order changes them by up to 60 % for a class), so the
// test bounds the total (0.8×) and each class (5 % worse at most); every
// solve must reach a KKT point.
func TestPolishWidens(t *testing.T) {
	ds, err := data.LoadShipped(filepath.Join("..", "..", "..", "web", "datasets"), "digits-lowhigh")
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := data.StratifiedSplit(ds, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := data.FitScaler(train, data.ScaleStandard)
	if err != nil {
		t.Fatal(err)
	}
	if train, err = sc.Transform(train); err != nil {
		t.Fatal(err)
	}
	n, _ := train.X.Dims()
	gram := func(X *mat.Dense) []float64 {
		var g mat.Dense
		g.Mul(X, X.T())
		return g.RawMatrix().Data
	}
	K, KT := gram(train.X), gram(train.Z)
	var tot [2]int
	for cls := 0; cls < 10; cls++ {
		y := make([]float64, n)
		for i, c := range train.Y {
			y[i] = -1
			if c == cls {
				y[i] = 1
			}
		}
		p := &Problem{K: &Dense{N: n, Data: K}, KT: &Dense{N: n, Data: KT}, Y: y, C: 1, Lambda: 100}
		var rs [2]*Result
		for k, w := range []bool{true, false} {
			if rs[k], err = Solve(context.Background(), p, Options{Eps: 1e-6, Polish: true, noWiden: !w}); err != nil {
				t.Fatal(err)
			}
			if !rs[k].Converged {
				t.Fatalf("class %d, widening %v: not converged after %d iterations", cls, w, rs[k].Iter)
			}
			if r := kktResidual(K, KT, y, rs[k], p.C, p.Lambda); r > 1e-5 {
				t.Errorf("class %d, widening %v: KKT residual %g", cls, w, r)
			}
		}
		if float64(rs[0].Iter) > 1.05*float64(rs[1].Iter) {
			t.Errorf("class %d: %d iterations with widening rounds, %d without", cls, rs[0].Iter, rs[1].Iter)
		}
		tot[0] += rs[0].Iter
		tot[1] += rs[1].Iter
		t.Logf("class %d: %d iterations (%d polishes) with widening, %d (%d) without", cls, rs[0].Iter, rs[0].Polishes, rs[1].Iter, rs[1].Polishes)
	}
	if float64(tot[0]) > 0.8*float64(tot[1]) {
		t.Errorf("%d iterations in all with widening rounds, %d without: expected at most 0.8×", tot[0], tot[1])
	}
	t.Logf("in all: %d iterations with widening, %d without", tot[0], tot[1])
}
