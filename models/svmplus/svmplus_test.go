package svmplus

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/internal/fixture"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/smo"
)

type fixtures struct {
	Primal []struct {
		X, Z       [][]float64
		Y          []float64 `json:"y"`
		C          float64
		Lam        float64
		Xtest      [][]float64
		Dec, Slack []float64
		PrimalObj  float64 `json:"primal_obj"`
	} `json:"svm2plus_primal"`
	DualRBF []struct {
		X, Z       [][]float64
		Y          []float64 `json:"y"`
		C, Lam     float64
		Gx, Gz     float64
		Xtest      [][]float64
		Dec, Slack []float64
		Obj        float64
	} `json:"svm2plus_dual_rbf"`
	Hard struct {
		X, Z  [][]float64
		Y     []float64 `json:"y"`
		Xtest [][]float64
		Dec   []float64
		Obj   float64
	} `json:"hardmargin"`
	L2 struct {
		X         [][]float64
		Y         []float64 `json:"y"`
		C, Lam    float64
		Cprime    float64
		Xtest     [][]float64
		Dec       []float64
		PrimalObj float64 `json:"primal_obj"`
	} `json:"l2svm_primal"`
	CSVM struct {
		X     [][]float64
		Y     []float64 `json:"y"`
		C     float64
		Xtest [][]float64
		Dec   []float64
		Obj   float64
	} `json:"csvm"`
}

func load(t *testing.T) *fixtures {
	t.Helper()
	var f fixtures
	fixture.ReadJSON(t, "testdata/fixtures.json", &f)
	return &f
}

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func checkDec(t *testing.T, name string, m *binModel, Xt [][]float64, want []float64, tol float64) {
	t.Helper()
	got, err := m.DecisionX(fixture.Dense(Xt))
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !closeRel(got[i], want[i], tol) {
			t.Errorf("%s: decision[%d] = %.10g, reference %.10g", name, i, got[i], want[i])
		}
	}
}

var tight = svm2Options{smo: smo.Options{Eps: 1e-9}}

func bin(classes ...string) []string { return classes }

// lupiSet builds a dataset from fixture arrays (labels ±1 → classes 0/1).
func lupiSet(X, Z [][]float64, y []float64) *data.Dataset {
	ds := &data.Dataset{Name: "fixture", Kind: data.KindLUPI, X: fixture.Dense(X), Classes: bin("neg", "pos")}
	if Z != nil {
		ds.Z = fixture.Dense(Z)
	}
	for _, v := range y {
		if v > 0 {
			ds.Y = append(ds.Y, 1)
		} else {
			ds.Y = append(ds.Y, 0)
		}
	}
	return ds
}

// TestSVM2PlusPrimal checks Proposition 1 and eq (5) end to end: SVM2+ by
// its dual (4) through the registry equals eq (3) solved in the primal by
// cvxopt (decision values, slacks ξ = Z̃v, objective: dual = −primal).
func TestSVM2PlusPrimal(t *testing.T) {
	for ci, c := range load(t).Primal {
		X, Z := fixture.Dense(c.X), fixture.Dense(c.Z)
		q, err := privileged(context.Background(), Z, kernel.Kernel{Kind: kernel.Linear}, c.C, c.Lam)
		if err != nil {
			t.Fatal(err)
		}
		m, res, err := trainSVM2(context.Background(), X, c.Y, kernel.Kernel{Kind: kernel.Linear}, q, c.C, c.Lam, model.Options{}, tight)
		if err != nil {
			t.Fatal(err)
		}
		if !closeRel(res.Obj, -c.PrimalObj, 1e-6) {
			t.Errorf("case %d: dual objective %.10g, primal (cvxopt) %.10g", ci, res.Obj, -c.PrimalObj)
		}
		checkDec(t, "primal", m, c.Xtest, c.Dec, 1e-5)
		for i, s := range m.Rep.Diagnostics["slack"] {
			if math.Abs(s-c.Slack[i]) > 1e-5 {
				t.Errorf("case %d: slack[%d] = %.8g, primal %.8g", ci, i, s, c.Slack[i])
			}
		}
		// The dense route (eq 5 by Cholesky on K̃ + 1) agrees with the factor form.
		kt := kernel.Kernel{Kind: kernel.Linear}.Gram(Z)
		n := kt.SymmetricDim()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				kt.SetSym(i, j, kt.At(i, j)+1)
			}
		}
		qd, err := QLambda(context.Background(), kt, c.C, c.Lam)
		if err != nil {
			t.Fatal(err)
		}
		m2, _, err := trainSVM2(context.Background(), X, c.Y, kernel.Kernel{Kind: kernel.Linear}, newDenseQlam(qd), c.C, c.Lam, model.Options{}, tight)
		if err != nil {
			t.Fatal(err)
		}
		checkDec(t, "dense Qλ", m2, c.Xtest, c.Dec, 1e-5)
	}
}

// TestSVM2PlusDualRBF checks the model through the registry with RBF
// kernels and independent γ on X and Z against cvxopt on dual (4).
func TestSVM2PlusDualRBF(t *testing.T) {
	spec, err := model.Lookup("svm2plus")
	if err != nil {
		t.Fatal(err)
	}
	for ci, c := range load(t).DualRBF {
		v, err := spec.Resolve(model.Values{"C": ftoa(c.C), "lambda": ftoa(c.Lam), "kernel": "rbf", "gamma": ftoa(c.Gx), "zkernel": "rbf", "zgamma": ftoa(c.Gz)})
		if err != nil {
			t.Fatal(err)
		}
		ds := lupiSet(c.X, c.Z, c.Y)
		y, _ := ds.BinaryY()
		kx, _ := kernel.FromValues(v, "")
		kz, _ := kernel.FromValues(v, "z")
		q, err := privileged(context.Background(), ds.Z, kz, c.C, c.Lam)
		if err != nil {
			t.Fatal(err)
		}
		m, res, err := trainSVM2(context.Background(), ds.X, y, kx, q, c.C, c.Lam, model.Options{}, tight)
		if err != nil {
			t.Fatal(err)
		}
		if !closeRel(res.Obj, c.Obj, 1e-6) {
			t.Errorf("case %d: objective %.10g, cvxopt %.10g", ci, res.Obj, c.Obj)
		}
		checkDec(t, "rbf", m, c.Xtest, c.Dec, 1e-5)
		for i, s := range m.Rep.Diagnostics["slack"] {
			if math.Abs(s-c.Slack[i]) > 1e-5 {
				t.Errorf("case %d: slack[%d] = %.8g, reference %.8g", ci, i, s, c.Slack[i])
			}
		}
		// Default tolerance through the registry: same predictions.
		f, err := spec.Fit(context.Background(), ds, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Predict(&data.Dataset{X: fixture.Dense(c.Xtest)})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range c.Dec {
			if math.Abs(d) > 1e-2 && (d > 0) != (p.Labels[i] == 1) {
				t.Errorf("case %d: registry fit predicts class %d for reference decision %g", ci, p.Labels[i], d)
			}
		}
	}
}

func ftoa(f float64) string { b, _ := json.Marshal(f); return string(b) }

// TestHardMarginLimits: λ → ∞ and K̃ → 0 both make Qλ → 0, so SVM2+ tends to
// the hard-margin SVM (LIBSVM with C = 1e7 on separable data).
func TestHardMarginLimits(t *testing.T) {
	h := load(t).Hard
	X, Z := fixture.Dense(h.X), fixture.Dense(h.Z)
	lin := kernel.Kernel{Kind: kernel.Linear}
	// λ → ∞ (with the +1 of footnote 1 kept).
	q, err := privileged(context.Background(), Z, lin, 1, 1e10)
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := trainSVM2(context.Background(), X, h.Y, lin, q, 1, 1e10, model.Options{}, tight)
	if err != nil {
		t.Fatal(err)
	}
	if !closeRel(res.Obj, h.Obj, 1e-6) {
		t.Errorf("λ→∞: objective %.10g, LIBSVM hard margin %.10g", res.Obj, h.Obj)
	}
	checkDec(t, "λ→∞", m, h.Xtest, h.Dec, 1e-5)
	// K̃ → 0 (internal: no +1, K̃ scaled by 1e-12).
	kt := lin.Gram(Z)
	kt.ScaleSym(1e-12, kt)
	qd, err := QLambda(context.Background(), kt, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, res, err = trainSVM2(context.Background(), X, h.Y, lin, newDenseQlam(qd), 1, 1, model.Options{}, tight)
	if err != nil {
		t.Fatal(err)
	}
	if !closeRel(res.Obj, h.Obj, 1e-6) {
		t.Errorf("K̃→0: objective %.10g, LIBSVM hard margin %.10g", res.Obj, h.Obj)
	}
	checkDec(t, "K̃→0", m, h.Xtest, h.Dec, 1e-5)
}

// TestL2SVMIdentity: with K̃ = I and no +1, Qλ = I/(C+λ) exactly, and SVM2+
// equals the L2-SVM ½‖w‖² + (C'/2)Σξᵢ² with C' = C + λ (cvxopt primal).
func TestL2SVMIdentity(t *testing.T) {
	l := load(t).L2
	n := len(l.Y)
	eye := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		eye.SetSym(i, i, 1)
	}
	q, err := QLambda(context.Background(), eye, l.C, l.Lam)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := 0.0
			if i == j {
				want = 1 / (l.C + l.Lam)
			}
			if math.Abs(q.At(i, j)-want) > 1e-14 {
				t.Fatalf("Qλ[%d][%d] = %v, want %v", i, j, q.At(i, j), want)
			}
		}
	}
	m, res, err := trainSVM2(context.Background(), fixture.Dense(l.X), l.Y, kernel.Kernel{Kind: kernel.Linear}, newDenseQlam(q), l.C, l.Lam, model.Options{}, tight)
	if err != nil {
		t.Fatal(err)
	}
	if !closeRel(res.Obj, -l.PrimalObj, 1e-6) {
		t.Errorf("objective %.10g, L2-SVM primal %.10g", res.Obj, -l.PrimalObj)
	}
	checkDec(t, "L2-SVM", m, l.Xtest, l.Dec, 1e-5)
	// And the same through smo directly on the L2-SVM dual: Q = yyᵀ∘K + I/C'.
	kq, _ := kernel.NewQ(kernel.Kernel{Kind: kernel.Linear}, fixture.Dense(l.X), l.Y, 1/l.Cprime)
	p := make([]float64, n)
	for i := range p {
		p[i] = -1
	}
	r2, err := smo.Solve(context.Background(), &smo.Problem{Q: kq, P: p, Y: l.Y}, smo.Options{Eps: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if !closeRel(r2.Obj, res.Obj, 1e-8) {
		t.Errorf("SVM2+ objective %.10g, L2-SVM dual by smo %.10g", res.Obj, r2.Obj)
	}
	// And the registry's "l2svm", whose loss is C_l2·Σξᵢ² (LIBLINEAR's
	// convention, dual shift 1/(2C_l2)): C'/2 = C_l2, so C_l2 = (C + λ)/2.
	spec, err := model.Lookup("l2svm")
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Resolve(model.Values{"C": ftoa(l.Cprime / 2), "kernel": "linear", "eps": "1e-9"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.Fit(context.Background(), lupiSet(l.X, nil, l.Y), v, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := f.Predict(&data.Dataset{X: fixture.Dense(l.Xtest)})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range l.Dec {
		if !closeRel(p2.Decision[i], d, 1e-5) {
			t.Errorf("l2svm with C = (C+λ)/2: decision[%d] = %.10g, SVM2+ (K̃ = I) reference %.10g", i, p2.Decision[i], d)
		}
	}
}

func randPSD(n int, r *rand.Rand) *mat.SymDense {
	Z := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			Z.Set(i, j, r.NormFloat64())
		}
	}
	return kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}.Gram(Z)
}

// qlambdaEq5 is eq (5) written literally, (1/λ)(K̃ − K̃(λ/C·I + K̃)⁻¹K̃),
// with an LU solve.
func qlambdaEq5(kt *mat.SymDense, C, lambda float64) *mat.Dense {
	n := kt.SymmetricDim()
	a := mat.NewDense(n, n, nil)
	a.Copy(kt)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+lambda/C)
	}
	var x, p mat.Dense
	if err := x.Solve(a, kt); err != nil {
		panic(err)
	}
	p.Mul(kt, &x)
	p.Sub(kt, &p)
	p.Scale(1/lambda, &p)
	return &p
}

// qlambdaClosed is (1/C)(I − (I + (C/λ)K̃)⁻¹) with an explicit LU inverse.
func qlambdaClosed(kt *mat.SymDense, C, lambda float64) *mat.Dense {
	n := kt.SymmetricDim()
	m := mat.NewDense(n, n, nil)
	m.Scale(C/lambda, kt)
	for i := 0; i < n; i++ {
		m.Set(i, i, m.At(i, i)+1)
	}
	var inv mat.Dense
	if err := inv.Inverse(m); err != nil {
		panic(err)
	}
	inv.Scale(-1, &inv)
	for i := 0; i < n; i++ {
		inv.Set(i, i, inv.At(i, i)+1)
	}
	inv.Scale(1/C, &inv)
	return &inv
}

// TestQLambdaClosedForm: Qλ by Cholesky equals eq (5) written literally and
// the closed form (1/C)(I − (I + (C/λ)K̃)⁻¹), both by LU.
func TestQLambdaClosedForm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cl := range [][2]float64{{1, 1}, {10, 0.1}, {0.01, 100}, {1000, 0.001}} {
		kt := randPSD(40, r)
		a, err := QLambda(context.Background(), kt, cl[0], cl[1])
		if err != nil {
			t.Fatal(err)
		}
		scale := 1 / cl[0]
		for name, b := range map[string]*mat.Dense{"eq (5)": qlambdaEq5(kt, cl[0], cl[1]), "closed form": qlambdaClosed(kt, cl[0], cl[1])} {
			for i := 0; i < 40; i++ {
				for j := 0; j < 40; j++ {
					if math.Abs(a.At(i, j)-b.At(i, j)) > 1e-9*scale {
						t.Fatalf("C=%g λ=%g: Qλ[%d][%d] Cholesky %v, %s %v", cl[0], cl[1], i, j, a.At(i, j), name, b.At(i, j))
					}
				}
			}
		}
	}
	// The factor form for a linear K̃ agrees too.
	Z := mat.NewDense(30, 4, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 4; j++ {
			Z.Set(i, j, r.NormFloat64())
		}
	}
	v, err := LowRankQLambda(Z, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	b := qlambdaClosed(kernel.Kernel{Kind: kernel.Linear}.Gram(Z), 2, 0.5)
	var vv mat.Dense
	vv.Mul(v, v.T())
	if !mat.EqualApprox(&vv, b, 1e-10) {
		t.Fatal("factor form VVᵀ differs from the closed form")
	}
}

// TestSVM1PlusIdentityFeatures: privileged features that only identify the
// sample (K̃ = I) with λ → 0 leave the slacks free: SVM1+ is the C-SVM (LIBSVM).
func TestSVM1PlusIdentityFeatures(t *testing.T) {
	c := load(t).CSVM
	n := len(c.Y)
	eye := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		eye.Set(i, i, 1)
	}
	m, res, err := trainSVM1(context.Background(), fixture.Dense(c.X), eye, c.Y, kernel.Kernel{Kind: kernel.Linear}, kernel.Kernel{Kind: kernel.Precomputed}, c.C, 1e-9, model.Options{}, 1e-10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("not converged: %d iterations, violation %g", res.Iter, res.Violation)
	}
	if !closeRel(res.Obj, c.Obj, 1e-6) {
		t.Errorf("objective %.10g, LIBSVM C-SVM %.10g", res.Obj, c.Obj)
	}
	checkDec(t, "SVM1+ K̃=I", m, c.Xtest, c.Dec, 1e-5)
}

func toyLUPI(n int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	ds := &data.Dataset{Name: "toy", Kind: data.KindLUPI, X: mat.NewDense(n, 2, nil), Z: mat.NewDense(n, 2, nil), Classes: []string{"a", "b", "c"}}
	for i := 0; i < n; i++ {
		c := i % 3
		ds.Y = append(ds.Y, c)
		ang := 2 * math.Pi * float64(c) / 3
		ds.X.Set(i, 0, 2*math.Cos(ang)+0.7*r.NormFloat64())
		ds.X.Set(i, 1, 2*math.Sin(ang)+0.7*r.NormFloat64())
		ds.Z.Set(i, 0, float64(c)+0.1*r.NormFloat64())
		ds.Z.Set(i, 1, r.NormFloat64())
	}
	return ds
}

// TestRegistryMulticlassSaveLoad: OvR through the wrapper, predictions
// survive Save / Load, diagnostics have one entry per training row.
func TestRegistryMulticlassSaveLoad(t *testing.T) {
	ds := toyLUPI(60, 3)
	for _, id := range []string{"svm2plus", "svm1plus"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := spec.Resolve(model.Values{"C": "10", "lambda": "0.1"})
		calls := 0
		f, err := spec.Fit(context.Background(), ds, v, model.Options{Progress: func(model.Progress) { calls++ }})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		rep := f.Report()
		if len(rep.Sub) != 3 || !rep.Converged {
			t.Fatalf("%s: %d sub-models, converged %v", id, len(rep.Sub), rep.Converged)
		}
		for _, s := range rep.Sub {
			if len(s.Diagnostics["slack"]) != 60 || len(s.Diagnostics["alpha"]) != 60 {
				t.Fatalf("%s: diagnostics lengths %d, %d", id, len(s.Diagnostics["slack"]), len(s.Diagnostics["alpha"]))
			}
		}
		p, err := f.Predict(&data.Dataset{X: ds.X})
		if err != nil {
			t.Fatal(err)
		}
		acc := 0
		for i, l := range p.Labels {
			if l == ds.Y[i] {
				acc++
			}
		}
		if acc < 40 {
			t.Errorf("%s: training accuracy %d/60", id, acc)
		}
		raw, err := model.Save(id, f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := model.Load(raw)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := g.Predict(&data.Dataset{X: ds.X})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Labels {
			if p.Labels[i] != p2.Labels[i] || p.Decision[i] != p2.Decision[i] {
				t.Fatalf("%s: prediction %d changed after Save/Load", id, i)
			}
		}
	}
}

// TestBadInput: both models, through the registry, refuse missing or
// non-finite privileged features, a single class, one sample, a bad kernel
// parameter and every C or λ that is not positive and finite (0, negative,
// +Inf, NaN), the last with an error naming the parameter; QLambda and
// LowRankQLambda refuse the same C and λ by name; predicting with the wrong
// feature count and a cancelled fit fail; and QLambda refuses a K̃ whose
// eigenvalue −1 lies below −λ/C.
func TestBadInput(t *testing.T) {
	good := toyLUPI(30, 1)
	noZ := toyLUPI(30, 1)
	noZ.Z = nil
	nan := toyLUPI(30, 1)
	nan.Z.Set(3, 1, math.NaN())
	one := toyLUPI(30, 1)
	for i := range one.Y {
		one.Y[i] = 0
	}
	for _, id := range []string{"svm2plus", "svm1plus"} {
		spec, _ := model.Lookup(id)
		def := spec.Defaults()
		cases := map[string]struct {
			ds    *data.Dataset
			v     model.Values
			param string // the error must contain it ("" : any error)
		}{
			"no Z":      {noZ, def, ""},
			"NaN":       {nan, def, ""},
			"one class": {one, def, ""},
			"C = 0":     {good, with(def, "C", "0"), "C = 0"},
			"C < 0":     {good, with(def, "C", "-1"), "C = -1"},
			"C = +Inf":  {good, with(def, "C", "+Inf"), "C = +Inf"},
			"C NaN":     {good, with(def, "C", "NaN"), "C = NaN"},
			"λ = 0":     {good, with(def, "lambda", "0"), "λ = 0"},
			"λ < 0":     {good, with(def, "lambda", "-0.5"), "λ = -0.5"},
			"λ = +Inf":  {good, with(def, "lambda", "+Inf"), "λ = +Inf"},
			"λ NaN":     {good, with(def, "lambda", "NaN"), "λ = NaN"},
			"bad γ":     {good, with(with(def, "kernel", "rbf"), "gamma", "-1"), ""},
			"n = 1":     {model.Subset(good, []int{0}), def, ""},
		}
		for name, c := range cases {
			f, err := spec.Fit(context.Background(), c.ds, c.v, model.Options{})
			if err == nil {
				t.Errorf("%s %s: no error (fitted %v)", id, name, f != nil)
			} else if !strings.Contains(err.Error(), c.param) {
				t.Errorf("%s %s: error %q does not name %q", id, name, err, c.param)
			}
		}
		if _, err := spec.Resolve(model.Values{"C": "0"}); err == nil {
			t.Errorf("%s: Resolve accepts C = 0", id)
		}
		f, err := spec.Fit(context.Background(), good, def, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Predict(&data.Dataset{X: mat.NewDense(2, 5, nil)}); err == nil {
			t.Errorf("%s: no error for a wrong feature count", id)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := spec.Fit(ctx, good, def, model.Options{}); err == nil {
			t.Errorf("%s: cancelled fit returned no error", id)
		}
	}
	if _, err := QLambda(context.Background(), mat.NewSymDense(2, []float64{1, 2, 2, 1}), 1, 1e-3); err == nil {
		t.Error("QLambda accepted an indefinite K̃")
	}
	inf, nanF := math.Inf(1), math.NaN()
	for _, c := range []struct {
		C, lambda float64
		param     string
	}{
		{0, 1, "C = 0"}, {-1, 1, "C = -1"}, {inf, 1, "C = +Inf"}, {nanF, 1, "C = NaN"},
		{1, 0, "λ = 0"}, {1, -0.5, "λ = -0.5"}, {1, inf, "λ = +Inf"}, {1, nanF, "λ = NaN"},
	} {
		_, err := QLambda(context.Background(), randPSD(5, rand.New(rand.NewPCG(1, 1))), c.C, c.lambda)
		if err == nil || !strings.Contains(err.Error(), c.param) {
			t.Errorf("QLambda with C = %v, λ = %v: err = %v; want it to name %q", c.C, c.lambda, err, c.param)
		}
		_, err = LowRankQLambda(mat.NewDense(5, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), c.C, c.lambda)
		if err == nil || !strings.Contains(err.Error(), c.param) {
			t.Errorf("LowRankQLambda with C = %v, λ = %v: err = %v; want it to name %q", c.C, c.lambda, err, c.param)
		}
	}
}

// TestAbsentClass: commonParams' one-class check is reachable through the
// registry: a declared class with no training samples (as a split of data
// with a rare class can leave) passes the wrapper's two-classes test, but
// its one-vs-rest task, and its one-vs-one tasks, see a single class. Both
// models must refuse it with that reason rather than fit a constant.
func TestAbsentClass(t *testing.T) {
	ds := toyLUPI(30, 1)
	var rows []int
	for i, c := range ds.Y {
		if c != 2 {
			rows = append(rows, i)
		}
	}
	sub := model.Subset(ds, rows) // classes a, b, c declared; no c
	if len(sub.Classes) != 3 {
		t.Fatalf("%d classes declared", len(sub.Classes))
	}
	for id, name := range map[string]string{"svm2plus": "SVM2+", "svm1plus": "SVM1+"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, mc := range []string{"ovr", "ovo"} {
			_, err := spec.Fit(context.Background(), sub, with(spec.Defaults(), "multiclass", mc), model.Options{})
			if want := name + ": only one class is present"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: err = %v; want %q", id, mc, err, want)
			}
		}
	}
}

func with(v model.Values, k, val string) model.Values {
	out := v.Clone()
	out[k] = val
	return out
}

// TestSVM2PlusDegenerate: on LUPI data whose labels are an even function of
// the linear privileged features' span (benchData: y = sign(w·u), z ≈ Bu),
// a linear correcting function cannot follow the slacks, and the optimum is
// w = 0 with ξ = 1 for everyone (v on the constant feature), of primal cost
// (Cn + λ)/2: the dual objective must equal −(Cn + λ)/2 and the report must
// warn. With an RBF privileged kernel the solution is not degenerate.
func TestSVM2PlusDegenerate(t *testing.T) {
	ds := benchData(200, 7)
	sc, _ := data.FitScaler(ds, "standard")
	ds = sc.Apply(ds)
	y, _ := ds.BinaryY()
	for _, zk := range []string{"linear", "rbf"} {
		v := model.Values{"C": "1", "lambda": "2", "kernel": "linear", "zkernel": zk, "zgamma": "0.03", "eps": "1e-6"}
		m, err := fitSVM2Plus(context.Background(), ds, y, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep := m.Report()
		warned := strings.Contains(strings.Join(rep.Warnings, " "), "degenerate")
		want := -(1*200 + 2.0) / 2
		if zk == "linear" {
			if math.Abs(rep.Objective-want) > 1e-6*math.Abs(want) || !warned {
				t.Errorf("linear: objective %.9g (degenerate optimum %.9g), warning %v", rep.Objective, want, warned)
			}
		} else if warned || rep.Objective < want*(1-1e-3) || math.Abs(rep.Objective-want) < 1e-3*math.Abs(want) {
			t.Errorf("rbf: objective %.9g (degenerate %.9g), warning %v: expected a non-degenerate solution", rep.Objective, want, warned)
		}
	}
}

// TestQLambdaIndefinite: QLambda on a privileged Gram matrix that is not
// positive semi-definite gives a clear error, not a panic or NaN, when
// λ/C·I + K̃ is not positive definite; when λ/C exceeds |λ_min| it cannot
// tell (Qλ then has negative eigenvalues, and dual (4) is not convex), so
// numericallyPSD must reject the matrix and privileged (the model's path to
// Qλ) must refuse a sigmoid kernel in that regime.
func TestQLambdaIndefinite(t *testing.T) {
	kt := mat.NewSymDense(3, []float64{
		1, 2, 0,
		2, 1, 0,
		0, 0, 1,
	}) // eigenvalues 3, 1, −1
	if _, err := QLambda(context.Background(), kt, 1, 0.5); err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Fatalf("indefinite K̃: err = %v", err)
	}
	if ok, err := numericallyPSD(context.Background(), kt); err != nil || ok {
		t.Fatalf("indefinite K̃: numericallyPSD = %v, %v", ok, err)
	}
	ds := toyLUPI(30, 1)
	_, err := privileged(context.Background(), ds.Z, kernel.Kernel{Kind: kernel.Sigmoid, Gamma: 1}, 1, 10)
	if err == nil || !strings.Contains(err.Error(), "privileged kernel sigmoid(gamma=1, coef0=0) is not positive semi-definite") {
		t.Fatalf("sigmoid K̃ with λ/C = 10: err = %v", err)
	}
}

// TestWorkspaceSharesQLambda: the one-vs-rest tasks of a fit share Qλ
// through the workspace the binary wrapper makes for the family (the
// first task builds it, the others report qlambda_shared); a second fit
// with the same C and λ in a workspace the caller passes reuses it from
// its first task on; fits without a common workspace share nothing, and
// sharing changes no result.
func TestWorkspaceSharesQLambda(t *testing.T) {
	ds := toyLUPI(60, 5)
	spec, err := model.Lookup("svm2plus")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := spec.Resolve(model.Values{"C": "10", "lambda": "0.1", "zkernel": "linear"})
	shared := func(f model.Fitted) []bool {
		var out []bool
		for _, s := range f.Report().Sub {
			out = append(out, s.Extras["qlambda_shared"] == 1)
		}
		return out
	}
	fit := func(ws *model.Workspace) model.Fitted {
		t.Helper()
		f, err := spec.Fit(context.Background(), ds, v, model.Options{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	alone := fit(nil)
	if got := shared(alone); !slices.Equal(got, []bool{false, true, true}) {
		t.Errorf("one-vs-rest without a workspace: Qλ shared %v, want [false true true]", got)
	}
	if got := shared(fit(nil)); !slices.Equal(got, []bool{false, true, true}) {
		t.Errorf("a second fit without a workspace: Qλ shared %v, want [false true true] (nothing kept between fits)", got)
	}
	ws := model.NewWorkspace()
	fit(ws)
	again := fit(ws)
	if got := shared(again); !slices.Equal(got, []bool{true, true, true}) {
		t.Errorf("a second fit in the same workspace: Qλ shared %v, want [true true true]", got)
	}
	for k, s := range again.Report().Sub {
		if a := alone.Report().Sub[k]; s.Objective != a.Objective || s.Iterations != a.Iterations {
			t.Errorf("task %d: objective %v in %d iterations with a shared Qλ, %v in %d without", k, s.Objective, s.Iterations, a.Objective, a.Iterations)
		}
	}
}
