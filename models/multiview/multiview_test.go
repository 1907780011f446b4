package multiview

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

var ids = []string{"svm2k", "psvm2v", "mcpk", "mvtsvm"}

// twoView builds a binary two-view problem: view A is two Gaussian blobs in
// 2-D at distance sep, view B a noisy linear image of view A in 3-D.
func twoView(n int, sep, noise float64, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	xa := mat.NewDense(n, 2, nil)
	xb := mat.NewDense(n, 3, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % 2
		y[i] = c
		s := float64(2*c-1) * sep / 2
		a0, a1 := s+r.NormFloat64(), 0.5*s+r.NormFloat64()
		xa.SetRow(i, []float64{a0, a1})
		xb.SetRow(i, []float64{a0 + a1 + noise*r.NormFloat64(), a0 - 0.5*a1 + noise*r.NormFloat64(), noise * r.NormFloat64()})
	}
	return &data.Dataset{Name: "toy", Kind: data.KindTwoView, X: xa, Z: xb, Y: y, Classes: []string{"neg", "pos"}}
}

func fit(t *testing.T, id string, ds *data.Dataset, v model.Values) model.Fitted {
	t.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	known := model.Values{}
	for k, x := range v {
		if spec.Param(k) != nil {
			known[k] = x
		}
	}
	rv, err := spec.Resolve(known)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.Fit(context.Background(), ds, rv, model.Options{})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return f
}

func accuracy(t *testing.T, f model.Fitted, ds *data.Dataset) float64 {
	t.Helper()
	p, err := f.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for i, l := range p.Labels {
		if l == ds.Y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(p.Labels))
}

func TestRegisteredSpecs(t *testing.T) {
	for _, id := range ids {
		s, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Family != model.FamilyMultiView || s.Z != model.ZView || s.Param("rule") == nil || s.Param("zgamma") == nil {
			t.Errorf("%s: spec %+v", id, s)
		}
	}
}

// Separable data: every model must fit the training set exactly with every rule.
func TestSeparableTrainingAccuracy(t *testing.T) {
	ds := twoView(40, 8, 0.1, 1)
	for _, id := range ids {
		for _, rule := range []string{RuleA, RuleB, RuleBoth} {
			f := fit(t, id, ds, model.Values{"C": "100", "CB": "100", "C2": "100", "gamma": "0.5", "zgamma": "0.5", "rule": rule})
			if acc := accuracy(t, f, ds); acc != 1 {
				t.Errorf("%s rule %s: training accuracy %.3f on separable data, want 1", id, rule, acc)
			}
			if !f.Report().Converged {
				t.Errorf("%s: not converged: %v", id, f.Report().Warnings)
			}
			p, _ := f.Predict(ds)
			if p.Views == nil || len(p.Views["A"]) != 40 || len(p.Views["B"]) != 40 {
				t.Errorf("%s: per-view decisions missing", id)
			}
		}
	}
}

type svmFixture struct {
	X     [][]float64 `json:"x"`
	Y     []float64   `json:"y"`
	XTest [][]float64 `json:"x_test"`
	Fits  map[string]struct {
		C, Gamma      float64
		DecisionTest  []float64 `json:"decision_test"`
		DecisionTrain []float64 `json:"decision_train"`
	} `json:"fits"`
}

func rows(x [][]float64) *mat.Dense {
	m := mat.NewDense(len(x), len(x[0]), nil)
	for i, r := range x {
		m.SetRow(i, r)
	}
	return m
}

// Identical views and C_A = C_B: by symmetry and strict convexity in w the
// SVM-2K solution has w_A = w_B and f_A = f_B = the C-SVM's decision
// (scikit-learn / libsvm reference, testdata/make_fixtures.py), whatever D.
func TestSVM2KIdenticalViewsIsSVM(t *testing.T) {
	raw, err := os.ReadFile("testdata/svm_identical_views.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx svmFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	X, Xt := rows(fx.X), rows(fx.XTest)
	y := make([]int, len(fx.Y))
	for i, v := range fx.Y {
		if v > 0 {
			y[i] = 1
		}
	}
	ds := &data.Dataset{X: X, Z: X, Y: y, Classes: []string{"-1", "+1"}}
	test := &data.Dataset{X: Xt, Z: Xt, Y: make([]int, len(fx.XTest)), Classes: ds.Classes}
	for name, f := range fx.Fits {
		for _, D := range []string{"0.1", "10"} {
			v := model.Values{"C": ftoa(f.C), "CB": ftoa(f.C), "D": D, "gamma": ftoa(f.Gamma), "zgamma": ftoa(f.Gamma)}
			m := fit(t, "svm2k", ds, v)
			p, err := m.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range f.DecisionTest {
				for _, view := range []string{"A", "B"} {
					if got := p.Views[view][i]; math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
						t.Fatalf("%s D=%s view %s row %d: decision %.8f, libsvm %.8f", name, D, view, i, got, want)
					}
				}
			}
		}
	}
}

func ftoa(f float64) string { b, _ := json.Marshal(f); return string(b) }

// dualityGap fits a model and returns |primal − (−dual)| / max(1, |primal|)
// where the primal objective is evaluated from the fitted decision functions
// with the optimal slacks: a check of the dual derivation, the recovery of
// w and b, and the solver (KKT residual of the whole chain).
func TestSVM2KDualityGap(t *testing.T) {
	ds := twoView(50, 2, 0.7, 3)
	yb, _ := ds.BinaryY()
	for _, eps := range []string{"0", "0.05"} {
		v := withDefaults(svm2kParams(), model.Values{"C": "2", "CB": "0.5", "D": "0.7", "gamma": "0.8", "zgamma": "0.3", "epsilon": eps})
		bm, err := fitSVM2K(context.Background(), ds, yb, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := bm.(*svmLike)
		views, _ := m.ViewDecisions(ds)
		fa, fb := views["A"], views["B"]
		e := v.Float("epsilon")
		primal := 0.5*quad(m.A) + 0.5*quad(m.B)
		for i, yi := range yb {
			primal += 2*math.Max(0, 1-yi*fa[i]) + 0.5*math.Max(0, 1-yi*fb[i]) + 0.7*math.Max(0, math.Abs(fa[i]-fb[i])-e)
		}
		dual := -m.Rep.Objective
		if gap := math.Abs(primal-dual) / math.Max(1, math.Abs(primal)); gap > 1e-6 {
			t.Errorf("ε=%s: primal %.9g, dual %.9g, relative gap %.2g", eps, primal, dual, gap)
		}
	}
}

// quad returns ‖w‖² = coefᵀ K coef of an expansion over its own rows.
func quad(e *expansion) float64 {
	K := e.Kernel.Gram(e.x)
	c := mat.NewVecDense(len(e.Coef), e.Coef)
	return mat.Inner(c, K, c)
}

func TestPSVM2VDualityGap(t *testing.T) {
	ds := twoView(50, 2, 0.7, 4)
	yb, _ := ds.BinaryY()
	for _, eps := range []string{"0", "0.1"} {
		ca, cb, dd, tau := 1.5, 0.8, 0.6, 2.0
		v := withDefaults(psvm2vParams(), model.Values{"C": ftoa(ca), "CB": ftoa(cb), "D": ftoa(dd), "tradeoff": ftoa(tau),
			"gamma": "0.8", "zgamma": "0.3", "epsilon": eps})
		bm, err := fitPSVM2V(context.Background(), ds, yb, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := bm.(*svmLike)
		primal, _, _ := privPrimal(m, ds, yb, ca, cb, tau)
		views, _ := m.ViewDecisions(ds)
		for i := range yb {
			primal += dd * math.Max(0, math.Abs(views["A"][i]-views["B"][i])-v.Float("epsilon"))
		}
		dual := -m.Rep.Objective
		if gap := math.Abs(primal-dual) / math.Max(1, math.Abs(primal)); gap > 1e-6 {
			t.Errorf("ε=%s: primal %.9g, dual %.9g, relative gap %.2g", eps, primal, dual, gap)
		}
	}
}

// privPrimal evaluates ½‖w_A‖² + (γ/2)‖w_B‖² + C_A Σξ^A + C_B Σξ^B with the
// optimal slacks ξ^A = max(0, 1 − y f_A, y f_B), ξ^B = max(0, 1 − y f_B, y f_A).
func privPrimal(m *svmLike, ds *data.Dataset, y []float64, ca, cb, tau float64) (float64, []float64, []float64) {
	views, _ := m.ViewDecisions(ds)
	fa, fb := views["A"], views["B"]
	// Augmented kernel: ‖w‖² = cᵀ(K + 11ᵀ)c.
	sa, sb := sum(m.A.Coef), sum(m.B.Coef)
	obj := 0.5*(quad(m.A)+sa*sa) + 0.5*tau*(quad(m.B)+sb*sb)
	xa, xb := make([]float64, len(y)), make([]float64, len(y))
	for i, yi := range y {
		xa[i] = math.Max(0, math.Max(1-yi*fa[i], yi*fb[i]))
		xb[i] = math.Max(0, math.Max(1-yi*fb[i], yi*fa[i]))
		obj += ca*xa[i] + cb*xb[i]
	}
	return obj, xa, xb
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// MCPK reaches a stationary point of its non-convex primal: the convex–
// concave objective trace never increases, and no small random perturbation
// of the expansion coefficients lowers the primal objective.
func TestMCPKStationary(t *testing.T) {
	ds := twoView(40, 2, 0.7, 5)
	yb, _ := ds.BinaryY()
	ca, cb, dd, tau := 1.0, 2.0, 3.0, 0.5
	v := withDefaults(mcpkParams(), model.Values{"C": ftoa(ca), "CB": ftoa(cb), "D": ftoa(dd), "tradeoff": ftoa(tau), "gamma": "0.8", "zgamma": "0.3"})
	bm, err := fitMCPK(context.Background(), ds, yb, v, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := bm.(*svmLike)
	if !m.Rep.Converged {
		t.Fatalf("not converged: %v", m.Rep.Warnings)
	}
	p, err := readPriv(ds, yb, v)
	if err != nil {
		t.Fatal(err)
	}
	n := len(yb)
	// Coefficients over all rows (newExpansion drops exact zeros only).
	gA, gB := full(m.A, ds.X), full(m.B, ds.Z)
	for i := range gB {
		gB[i] *= tau
	}
	obj0, xiA, xiB, _, _ := mcpkObjective(p, yb, gA, gB)
	if math.Abs(obj0-m.Rep.Objective) > 1e-9*math.Max(1, obj0) {
		t.Fatalf("reported objective %v, recomputed %v", m.Rep.Objective, obj0)
	}
	coupled := 0.0
	for i := range xiA {
		coupled += xiA[i] * xiB[i]
	}
	t.Logf("objective %.6g, Σξ^Aξ^B = %.4g, %v CCP steps", obj0, coupled, m.Rep.Extras["ccp_steps"])
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 300; trial++ {
		da, db := make([]float64, n), make([]float64, n)
		for i := range da {
			da[i], db[i] = 1e-4*r.NormFloat64(), 1e-4*r.NormFloat64()
		}
		ga, gb := make([]float64, n), make([]float64, n)
		for i := range ga {
			ga[i], gb[i] = gA[i]+da[i], gB[i]+db[i]
		}
		obj, _, _, _, _ := mcpkObjective(p, yb, ga, gb)
		if obj < obj0-1e-6*math.Max(1, obj0) {
			t.Fatalf("trial %d: perturbation lowers the objective from %.9g to %.9g", trial, obj0, obj)
		}
	}
}

// full returns the expansion coefficients aligned with the rows of X (the
// expansion keeps the rows with non-zero coefficients, in order).
func full(e *expansion, X *mat.Dense) []float64 {
	n, _ := X.Dims()
	out := make([]float64, n)
	k := 0
	for i := 0; i < n && k < len(e.Coef); i++ {
		if mat.Equal(X.RowView(i), e.x.RowView(k)) {
			out[i] = e.Coef[k]
			k++
		}
	}
	return out
}

// With the coupling weight D → 0, MCPK loses its only non-convex term and
// becomes PSVM-2V without the agreement term (agreement penalty → 0): the two
// must give the same decisions.
func TestMCPKWithoutCouplingIsPSVM2V(t *testing.T) {
	ds := twoView(40, 2, 0.7, 6)
	base := model.Values{"C": "1", "CB": "0.5", "D": "1e-5", "tradeoff": "2", "gamma": "0.8", "zgamma": "0.3"}
	a := fit(t, "mcpk", ds, base)
	b := fit(t, "psvm2v", ds, base)
	pa, _ := a.Predict(ds)
	pb, _ := b.Predict(ds)
	for _, view := range []string{"A", "B"} {
		for i := range pa.Views[view] {
			if d := math.Abs(pa.Views[view][i] - pb.Views[view][i]); d > 1e-3 {
				t.Fatalf("view %s row %d: mcpk %.6f, psvm2v %.6f", view, i, pa.Views[view][i], pb.Views[view][i])
			}
		}
	}
}

// MvTSVM: primal objectives of both plane problems (with the ridge term)
// evaluated at the recovered planes equal minus the dual objectives.
func TestMvTSVMDualityGap(t *testing.T) {
	ds := twoView(40, 2, 0.7, 7)
	yb, _ := ds.BinaryY()
	for _, eps := range []string{"0", "0.05"} {
		c1, c2, dd, hh, ridge := 1.0, 0.5, 0.8, 2.0, 1e-3
		v := withDefaults(mvtsvmParams(), model.Values{"C": ftoa(c1), "C2": ftoa(c2), "D": ftoa(dd), "H": ftoa(hh), "ridge": ftoa(ridge),
			"gamma": "0.8", "zgamma": "0.3", "epsilon": eps})
		bm, err := fitMvTSVM(context.Background(), ds, yb, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := bm.(*mvtsvmModel)
		e := v.Float("epsilon")
		// Plane values at every training row for view t and plane p.
		val := func(tv *twinView, X *mat.Dense, pl twinPlane) []float64 {
			K := tv.Kernel.Cross(X, tv.x)
			var f mat.VecDense
			f.MulVec(K, mat.NewVecDense(len(pl.Coef), pl.Coef))
			out := f.RawVector().Data
			for i := range out {
				out[i] += pl.Bias
			}
			return out
		}
		reg := func(pl twinPlane) float64 { return 0.5 * ridge * (pl.Norm*pl.Norm + pl.Bias*pl.Bias) }
		primal := 0.0
		for _, pr := range []struct {
			pos      bool
			c, agree float64
		}{{true, c1, dd}, {false, c2, hh}} {
			pa := m.A.Pos
			pb := m.B.Pos
			if !pr.pos {
				pa, pb = m.A.Neg, m.B.Neg
			}
			fa, fb := val(m.A, ds.X, pa), val(m.B, ds.Z, pb)
			primal += reg(pa) + reg(pb)
			for i, yi := range yb {
				own := (yi > 0) == pr.pos
				if own {
					primal += 0.5*fa[i]*fa[i] + 0.5*fb[i]*fb[i] + pr.agree*math.Max(0, math.Abs(fa[i]-fb[i])-e)
				} else {
					s := 1.0 // positive-plane problem: −f ≥ 1 on the negatives
					if !pr.pos {
						s = -1 // negative-plane problem: f ≥ 1 on the positives
					}
					primal += pr.c * (math.Max(0, 1+s*fa[i]) + math.Max(0, 1+s*fb[i]))
				}
			}
		}
		dual := -m.Rep.Objective
		if gap := math.Abs(primal-dual) / math.Max(1, math.Abs(primal)); gap > 1e-6 {
			t.Errorf("ε=%s: primal %.9g, dual %.9g, relative gap %.2g", eps, primal, dual, gap)
		}
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ds := twoView(30, 2, 0.5, 8)
	for _, id := range ids {
		f := fit(t, id, ds, model.Values{"rule": RuleA})
		b, err := model.Save(id, f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := model.Load(b)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		p1, _ := f.Predict(ds)
		p2, err := g.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1.Decision {
			if p1.Decision[i] != p2.Decision[i] || p1.Views["B"][i] != p2.Views["B"][i] {
				t.Fatalf("%s: row %d differs after reload", id, i)
			}
		}
	}
}

// threeClasses relabels the rows of a twoView problem into three classes
// (row i: class i mod 3) and moves class "c" by shift in one coordinate
// of each view.
func threeClasses(ds *data.Dataset, shift float64) *data.Dataset {
	for i := range ds.Y {
		ds.Y[i] = i % 3
		if ds.Y[i] == 2 {
			ds.X.Set(i, 1, ds.X.At(i, 1)+shift)
			ds.Z.Set(i, 2, ds.Z.At(i, 2)+shift)
		}
	}
	ds.Classes = []string{"a", "b", "c"}
	return ds
}

func TestMultiClassOvO(t *testing.T) {
	ds := threeClasses(twoView(45, 4, 0.3, 10), 6)
	for _, id := range ids {
		f := fit(t, id, ds, model.Values{"multiclass": "ovo", "C": "10", "CB": "10", "C2": "10", "gamma": "0.5", "zgamma": "0.5"})
		if acc := accuracy(t, f, ds); acc < 0.9 {
			t.Errorf("%s: 3-class training accuracy %.2f", id, acc)
		}
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	good := twoView(20, 2, 0.5, 11)
	noB := twoView(20, 2, 0.5, 11)
	noB.Z = nil
	oneClass := twoView(20, 2, 0.5, 11)
	for i := range oneClass.Y {
		oneClass.Y[i] = 0
	}
	nan := twoView(20, 2, 0.5, 11)
	nan.Z.Set(3, 1, math.NaN())
	for _, id := range ids {
		spec, _ := model.Lookup(id)
		cases := []struct {
			name string
			ds   *data.Dataset
			v    model.Values
			want string
		}{
			{"no view B", noB, nil, "view B"},
			{"one class", oneClass, nil, "class"},
			{"NaN", nan, nil, "finite"},
			{"C = 0", good, model.Values{"C": "0"}, "C"},
			{"C < 0", good, model.Values{"C": "-1"}, "C"},
			{"bad rule", good, model.Values{"rule": "AB"}, "rule"},
		}
		for _, c := range cases {
			_, err := spec.Fit(ctx, c.ds, c.v, model.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: error %v, want one mentioning %q", id, c.name, err, c.want)
			}
		}
		// Test time: view B missing or of the wrong width.
		f := fit(t, id, good, nil)
		if _, err := f.Predict(noB); !errors.Is(err, ErrNoViewB) {
			t.Errorf("%s: predict without view B: %v", id, err)
		}
		wide := *good
		wide.Z = mat.NewDense(20, 4, nil)
		if _, err := f.Predict(&wide); err == nil {
			t.Errorf("%s: predict with a 4-column view B accepted", id)
		}
		// Cancelled context.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := spec.Fit(cctx, good, nil, model.Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled fit returned %v", id, err)
		}
	}
}

// The optimal dual objectives of SVM-2K and PSVM-2V agree with cvxopt solving
// the same duals, written independently in Python (testdata/make_fixtures.py).
func TestDualObjectivesAgainstCvxopt(t *testing.T) {
	raw, err := os.ReadFile("testdata/duals_cvxopt.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		XA, XB         [][]float64
		Y              []float64
		GammaA, GammaB float64
		Cases          []map[string]any
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, dst := range map[string]any{"x_a": &fx.XA, "x_b": &fx.XB, "y": &fx.Y, "gamma_a": &fx.GammaA, "gamma_b": &fx.GammaB, "cases": &fx.Cases} {
		if err := json.Unmarshal(m[k], dst); err != nil {
			t.Fatal(err)
		}
	}
	y := make([]int, len(fx.Y))
	for i, v := range fx.Y {
		if v > 0 {
			y[i] = 1
		}
	}
	ds := &data.Dataset{X: rows(fx.XA), Z: rows(fx.XB), Y: y, Classes: []string{"-1", "+1"}}
	for _, c := range fx.Cases {
		id := c["model"].(string)
		v := model.Values{"gamma": ftoa(fx.GammaA), "zgamma": ftoa(fx.GammaB)}
		for _, k := range []string{"C", "CB", "D", "tradeoff", "epsilon"} {
			if x, ok := c[k]; ok {
				v[k] = ftoa(x.(float64))
			}
		}
		f := fit(t, id, ds, v)
		want := c["objective"].(float64)
		if got := f.Report().Objective; math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("%s %v: objective %.10g, cvxopt %.10g", id, v, got, want)
		}
	}
}

// With rule A a two-view model needs view A only at test time (paper 000
// uses SVM-2K so, with the second view privileged): predicting without Z
// gives the same decisions as with it.
func TestRuleAWithoutViewB(t *testing.T) {
	ds := twoView(30, 2, 0.5, 12)
	noB := *ds
	noB.Z = nil
	for _, id := range ids {
		f := fit(t, id, ds, model.Values{"rule": RuleA})
		full, err := f.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		onlyA, err := f.Predict(&noB)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for i := range full.Decision {
			if full.Decision[i] != onlyA.Decision[i] || full.Decision[i] != full.Views["A"][i] {
				t.Fatalf("%s row %d: %v with view B, %v without", id, i, full.Decision[i], onlyA.Decision[i])
			}
		}
	}
}

// On LUPI data (Z privileged) every model predicts from view A alone, with
// a warning, whatever rule was asked for.
func TestLUPIDataForcesRuleA(t *testing.T) {
	ds := twoView(30, 2, 0.5, 13)
	ds.Kind = data.KindLUPI
	noB := *ds
	noB.Z = nil
	for _, id := range ids {
		f := fit(t, id, ds, model.Values{"rule": RuleBoth})
		if len(f.Report().Warnings) == 0 || !strings.Contains(f.Report().Warnings[0], "privileged") {
			t.Errorf("%s: no warning: %v", id, f.Report().Warnings)
		}
		if _, err := f.Predict(&noB); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}
