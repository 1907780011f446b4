package joint

import (
	"context"
	"math"
	"math/rand/v2"
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
	OneTag struct {
		X        [][]float64
		Tags     []float64
		Gamma, C float64
		Alpha    []float64
		Obj      float64
		Xtest    [][]float64
		Decision []float64
	} `json:"onetag"`
	Multi struct {
		X, Tags, Xtest [][]float64
		Cases          []struct {
			Kind                  string
			Sigma2, Reg, C, Gamma float64
			Alpha                 []float64
			Obj                   float64
			Cov                   [][]float64
			Exhaustive, Trainsets [][]float64
			ExhaustiveScore       []float64 `json:"exhaustive_score"`
			TrainsetsScore        []float64 `json:"trainsets_score"`
			ExhaustiveGap         []float64 `json:"exhaustive_gap"`
			TrainsetsGap          []float64 `json:"trainsets_gap"`
		}
	} `json:"multi"`
	Indep struct {
		C, Gamma float64
		Decision [][]float64
	} `json:"indep"`
}

func loadFixtures(t *testing.T) *fixtures {
	t.Helper()
	var f fixtures
	fixture.ReadJSON(t, "testdata/fixtures.json", &f)
	return &f
}

func column(v []float64) *mat.Dense { return mat.NewDense(len(v), 1, append([]float64(nil), v...)) }

// TestOneTagIsBiasFreeSVM: with one tag and K_ψ(y,y') = yy' the joint SVM is
// the bias-free binary SVM min ½αᵀ(yyᵀ∘K)α − 1ᵀα, 0 ≤ α ≤ C. Reference:
// cvxopt (testdata/make_fixtures.py), and a direct smo solve of that dual.
func TestOneTagIsBiasFreeSVM(t *testing.T) {
	f := loadFixtures(t).OneTag
	X := fixture.Dense(f.X)
	k := kernel.Kernel{Kind: kernel.RBF, Gamma: f.Gamma}
	p := Params{Kernel: k, C: f.C, Output: OutputParams{Kind: OutLinear}, Eps: 1e-9}
	m, err := Train(context.Background(), X, column(f.Tags), nil, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := m.Report()
	if !rep.Converged {
		t.Fatal("not converged")
	}
	if d := math.Abs(rep.Objective - f.Obj); d > 1e-7*math.Abs(f.Obj) {
		t.Errorf("objective %.12g, cvxopt %.12g", rep.Objective, f.Obj)
	}
	alpha := rep.Diagnostics["alpha"]
	for i, a := range f.Alpha {
		if math.Abs(alpha[i]-a) > 1e-5 {
			t.Errorf("α[%d] = %.8g, cvxopt %.8g", i, alpha[i], a)
		}
	}
	pred, err := m.Predict(&data.Dataset{X: fixture.Dense(f.Xtest)})
	if err != nil {
		t.Fatal(err)
	}
	for r, dec := range f.Decision {
		// S(+1) − S(−1) = 2 Σ αᵢ yᵢ K(xᵢ, x)
		if math.Abs(pred.Scores[r][0]-2*dec) > 1e-5 {
			t.Errorf("row %d: score %.8g, want 2×%.8g", r, pred.Scores[r][0], dec)
		}
		if pred.Tags[r][0] != (dec > 0) {
			t.Errorf("row %d: tag %v, bias-free SVM decision %.4g", r, pred.Tags[r][0], dec)
		}
	}
	// direct smo solve of the bias-free SVM dual on the same data
	y := make([]float64, len(f.Tags))
	pl := make([]float64, len(y))
	up := make([]float64, len(y))
	for i, v := range f.Tags {
		y[i], pl[i], up[i] = 2*v-1, -1, f.C
	}
	q, err := kernel.NewQ(k, X, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := smo.Solve(context.Background(), &smo.Problem{Q: q, P: pl, Upper: up}, smo.Options{Eps: 1e-9, Shrinking: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if math.Abs(res.Alpha[i]-alpha[i]) > 1e-9 {
			t.Errorf("α[%d]: joint %.12g, direct smo %.12g", i, alpha[i], res.Alpha[i])
		}
	}
}

// TestAgainstCVXOPT compares the dual solution, and the predictions by eq
// (12) and eq (13), with cvxopt and brute force in numpy for Gaussian
// (two Σ settings, one with λ = 0), polynomial and linear output kernels.
func TestAgainstCVXOPT(t *testing.T) {
	f := loadFixtures(t).Multi
	X, tags, Xt := fixture.Dense(f.X), fixture.Dense(f.Tags), fixture.Dense(f.Xtest)
	for _, c := range f.Cases {
		p := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: c.Gamma}, C: c.C, Eps: 1e-9,
			Output: OutputParams{Kind: c.Kind, Sigma2: c.Sigma2, Reg: c.Reg, Degree: 3, Coef0: 1}}
		m, err := Train(context.Background(), X, tags, nil, p, model.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
		if c.Cov != nil {
			for a := range c.Cov {
				for b := range c.Cov[a] {
					if math.Abs(m.out.Cov[a*m.out.T+b]-c.Cov[a][b]) > 1e-12 {
						t.Errorf("%s: Σ[%d][%d] = %.15g, numpy %.15g", c.Kind, a, b, m.out.Cov[a*m.out.T+b], c.Cov[a][b])
					}
				}
			}
		}
		rep := m.Report()
		if d := math.Abs(rep.Objective - c.Obj); d > 1e-7*math.Abs(c.Obj) {
			t.Errorf("%s σ²=%v: objective %.12g, cvxopt %.12g", c.Kind, c.Sigma2, rep.Objective, c.Obj)
		}
		for i, a := range c.Alpha {
			if math.Abs(rep.Diagnostics["alpha"][i]-a) > 1e-5*c.C {
				t.Errorf("%s: α[%d] = %.8g, cvxopt %.8g", c.Kind, i, rep.Diagnostics["alpha"][i], a)
			}
		}
		for _, rule := range []struct {
			name  string
			want  [][]float64
			score []float64
			gap   []float64
		}{{PredictExhaustive, c.Exhaustive, c.ExhaustiveScore, c.ExhaustiveGap}, {PredictTrainSets, c.Trainsets, c.TrainsetsScore, c.TrainsetsGap}} {
			pred, err := m.PredictWith(&data.Dataset{X: Xt}, rule.name)
			if err != nil {
				t.Fatal(err)
			}
			for r := range rule.want {
				if math.Abs(pred.Decision[r]-rule.score[r]) > 1e-5*math.Max(1, math.Abs(rule.score[r])) {
					t.Errorf("%s %s row %d: best score %.8g, numpy %.8g", c.Kind, rule.name, r, pred.Decision[r], rule.score[r])
				}
				if rule.gap[r] < 1e-4 {
					continue // a near tie: either answer is right
				}
				for j, v := range rule.want[r] {
					if pred.Tags[r][j] != (v > 0) {
						t.Errorf("%s %s row %d: tags %v, numpy %v", c.Kind, rule.name, r, pred.Tags[r], rule.want[r])
						break
					}
				}
			}
		}
	}
}

// randomTags builds n rows in 2-D with T correlated tags.
func randomTags(n, T int, seed uint64) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, 2, nil)
	tags := mat.NewDense(n, T, nil)
	for i := 0; i < n; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		X.Set(i, 0, a)
		X.Set(i, 1, b)
		for j := 0; j < T; j++ {
			th := 2 * math.Pi * float64(j) / float64(T)
			v := a*math.Cos(th) + b*math.Sin(th) + 0.5*rng.NormFloat64()
			if v > 0.3 || (j > 0 && tags.At(i, j-1) == 1 && rng.Float64() < 0.3) {
				tags.Set(i, j, 1)
			}
		}
	}
	return X, tags
}

// TestKKT checks the box-constrained KKT conditions of the returned α on an
// explicitly formed Q = K_ψ ∘ K_φ (Gram and output kernel evaluated here).
func TestKKT(t *testing.T) {
	X, tags := randomTags(120, 5, 1)
	for _, kind := range []string{OutGaussian, OutPoly, OutLinear} {
		eps := 1e-4
		p := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.7}, C: 3, Eps: eps,
			Output: OutputParams{Kind: kind, Sigma2: 2, Reg: 0.1, Degree: 3, Coef0: 1}}
		m, err := Train(context.Background(), X, tags, nil, p, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		alpha := m.Report().Diagnostics["alpha"]
		Y := signs(tags)
		K := p.Kernel.Gram(X)
		n := len(Y)
		for i := 0; i < n; i++ {
			g := -1.0
			for j := 0; j < n; j++ {
				g += m.out.Eval(Y[i], Y[j]) * K.At(i, j) * alpha[j]
			}
			switch {
			case alpha[i] <= 0 && g < -eps:
				t.Errorf("%s: α[%d] = 0 but gradient %.3g < −eps", kind, i, g)
			case alpha[i] >= p.C && g > eps:
				t.Errorf("%s: α[%d] = C but gradient %.3g > eps", kind, i, g)
			case alpha[i] > 0 && alpha[i] < p.C && math.Abs(g) > eps:
				t.Errorf("%s: free α[%d] with gradient %.3g", kind, i, g)
			}
			if alpha[i] < 0 || alpha[i] > p.C {
				t.Errorf("%s: α[%d] = %v outside [0, C]", kind, i, alpha[i])
			}
		}
	}
}

// TestEq13EqualsEq12 — when every label vector of {−1,+1}^T occurs in the
// training data the candidates of eq (13) are all of {−1,+1}^T, so it must
// give eq (12)'s answer exactly; otherwise eq (12)'s best score is never lower.
// Both are also checked against the score computed from its definition.
func TestEq13EqualsEq12(t *testing.T) {
	const T = 3
	X, tags := randomTags(200, T, 2)
	// make sure every one of the 2^T sets occurs
	for c := 0; c < 1<<T; c++ {
		for j := 0; j < T; j++ {
			tags.Set(c, j, float64(c>>j&1))
		}
	}
	Xt, _ := randomTags(100, T, 3)
	p := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}, C: 2,
		Output: OutputParams{Kind: OutGaussian, Sigma2: 1, Reg: 0.2}}
	m, err := Train(context.Background(), X, tags, nil, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LabelSets()) != 1<<T {
		t.Fatalf("%d label sets", len(m.LabelSets()))
	}
	a, err := m.PredictWith(&data.Dataset{X: Xt}, PredictTrainSets)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.PredictWith(&data.Dataset{X: Xt}, PredictExhaustive)
	if err != nil {
		t.Fatal(err)
	}
	for r := range a.Tags {
		for j := range a.Tags[r] {
			if a.Tags[r][j] != b.Tags[r][j] {
				t.Fatalf("row %d: eq (13) %v, eq (12) %v", r, a.Tags[r], b.Tags[r])
			}
		}
		if math.Abs(a.Decision[r]-b.Decision[r]) > 1e-12*math.Max(1, math.Abs(b.Decision[r])) {
			t.Errorf("row %d: scores %.15g vs %.15g", r, a.Decision[r], b.Decision[r])
		}
	}

	// five tags, not every set present: eq (12) ≥ eq (13), and the γ-table
	// score equals the definition.
	X, tags = randomTags(150, 5, 4)
	m, err = Train(context.Background(), X, tags, nil, p, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ = m.PredictWith(&data.Dataset{X: Xt}, PredictTrainSets)
	b, _ = m.PredictWith(&data.Dataset{X: Xt}, PredictExhaustive)
	agree := 0
	for r := range a.Tags {
		if b.Decision[r] < a.Decision[r]-1e-12 {
			t.Errorf("row %d: eq (12) best %.12g below eq (13) best %.12g", r, b.Decision[r], a.Decision[r])
		}
		y := make([]float64, 5)
		same := true
		for j, on := range a.Tags[r] {
			y[j] = -1
			if on {
				y[j] = 1
			}
			same = same && on == b.Tags[r][j]
		}
		if same {
			agree++
		}
		if s := m.Score(Xt.RawRowView(r), y); math.Abs(s-a.Decision[r]) > 1e-10*math.Max(1, math.Abs(s)) {
			t.Errorf("row %d: γ-table score %.15g, definition %.15g", r, a.Decision[r], s)
		}
	}
	t.Logf("T=5, %d of 32 label sets in training: eq (13) agrees with eq (12) on %d of %d test rows",
		len(m.LabelSets()), agree, len(a.Tags))
}

func TestBadInput(t *testing.T) {
	X, tags := randomTags(30, 3, 5)
	ok := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}, C: 1, Output: OutputParams{Kind: OutGaussian, Sigma2: 1, Reg: 0.1}}
	ctx := context.Background()
	try := func(name string, X, tags *mat.Dense, p Params, want string) {
		t.Helper()
		_, err := Train(ctx, X, tags, nil, p, model.Options{})
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not mention %q", name, err, want)
		}
	}
	try("no tags", X, nil, ok, "no tags")
	never := mat.DenseCopyOf(tags)
	for i := 0; i < 30; i++ {
		never.Set(i, 1, 0)
	}
	try("tag never on", X, never, ok, "never on")
	always := mat.DenseCopyOf(tags)
	for i := 0; i < 30; i++ {
		always.Set(i, 2, 1)
	}
	try("tag always on", X, always, ok, "every training row")
	nan := mat.DenseCopyOf(X)
	nan.Set(4, 1, math.NaN())
	try("NaN", nan, tags, ok, "finite")
	for _, c := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		p := ok
		p.C = c
		try("C", X, tags, p, "C must be positive")
	}
	p := ok
	p.Output.Kind = "cubic"
	try("output kind", X, tags, p, "unknown output kernel")
	p = ok
	p.Output.Sigma2 = 0
	try("σ²", X, tags, p, "σ²")
	// collinear tags with λ = 0: Σ singular
	dup := mat.NewDense(30, 2, nil)
	for i := 0; i < 30; i++ {
		dup.Set(i, 0, tags.At(i, 0))
		dup.Set(i, 1, tags.At(i, 0))
	}
	p = ok
	p.Output.Reg = 0
	try("singular Σ", X, dup, p, "λ")
	big := mat.NewDense(30, 13, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 13; j++ {
			big.Set(i, j, float64((i+j)%2))
		}
	}
	p = ok
	p.Predict = PredictExhaustive
	try("exhaustive, T = 13", X, big, p, "exceeds")
	p = ok
	p.Kernel.Gamma = -1
	_, err := Train(ctx, X, tags, nil, p, model.Options{})
	if err == nil {
		t.Error("negative gamma: no error")
	}
	// registry path: a dataset without tags
	spec, err := model.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Fit(ctx, &data.Dataset{X: X, Y: make([]int, 30), Classes: []string{"a", "b"}}, nil, model.Options{}); err == nil {
		t.Error("class-labelled dataset: no error")
	}
	if _, err := spec.Fit(ctx, &data.Dataset{X: X, Tags: tags}, model.Values{"C": "0"}, model.Options{}); err == nil {
		t.Error("C = 0 through the registry: no error")
	}
	m, err := Train(ctx, X, tags, nil, ok, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(&data.Dataset{X: mat.NewDense(2, 3, nil)}); err == nil {
		t.Error("wrong feature count at prediction: no error")
	}
	if _, err := m.Predict(&data.Dataset{X: nan}); err == nil {
		t.Error("NaN at prediction: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Train(cctx, X, tags, nil, ok, model.Options{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestRegistrySaveLoad fits through the registry, saves, loads and checks the
// predictions are identical; the report carries the γ table size.
func TestRegistrySaveLoad(t *testing.T) {
	X, tags := randomTags(80, 4, 6)
	Xt, _ := randomTags(40, 4, 7)
	spec, err := model.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Task != model.MultiLabel || spec.Family != model.FamilyTags {
		t.Errorf("task %s family %s", spec.Task, spec.Family)
	}
	for _, ok := range []string{OutGaussian, OutPoly, OutLinear} {
		calls := 0
		f, err := spec.Fit(context.Background(), &data.Dataset{X: X, Tags: tags, Kind: data.KindMultiLabel},
			model.Values{"okernel": ok, "gamma": "0.5", "C": "2"}, model.Options{Progress: func(model.Progress) { calls++ }})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 {
			t.Error("no progress reports")
		}
		rep := f.Report()
		if rep.Extras["gamma_table_bytes"] <= 0 || rep.Params["okernel"] != ok {
			t.Errorf("report extras %v params %v", rep.Extras, rep.Params)
		}
		b, err := model.Save("jointsvm", f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := model.Load(b)
		if err != nil {
			t.Fatal(err)
		}
		p1, err := f.Predict(&data.Dataset{X: Xt})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := g.Predict(&data.Dataset{X: Xt})
		if err != nil {
			t.Fatal(err)
		}
		for r := range p1.Tags {
			for j := range p1.Tags[r] {
				if p1.Tags[r][j] != p2.Tags[r][j] || p1.Scores[r][j] != p2.Scores[r][j] {
					t.Fatalf("%s: prediction changed after save/load at row %d", ok, r)
				}
			}
		}
	}
	if _, _, err := model.Load([]byte(`{"format":"lupilab-model","version":1,"model":"jointsvm","fitted":{"kernel":{"Kind":"rbf","Gamma":1},"output":{"kind":"linear","tags":2},"label_sets":[[1,-1]],"sv_x":{"rows":1,"cols":1,"data":[0]},"alpha":[1,2],"sv_set":[0]}}`)); err == nil {
		t.Error("malformed saved model: no error")
	}
}
