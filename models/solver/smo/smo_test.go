package smo

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomProblem builds Q = AAᵀ + ridge·I (PSD; PD when ridge > 0) with
// rank-limited A, random p and ±1 labels.
func randomProblem(rng *rand.Rand, n, rank int, ridge float64) (*mat.SymDense, []float64, []float64) {
	a := mat.NewDense(n, rank, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < rank; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q := mat.NewSymDense(n, nil)
	q.SymOuterK(1, a)
	for i := 0; i < n; i++ {
		q.SetSym(i, i, q.At(i, i)+ridge)
	}
	p := make([]float64, n)
	y := make([]float64, n)
	for i := range p {
		p[i] = -1 + 0.5*rng.NormFloat64()
		y[i] = 1
		if rng.IntN(2) == 0 {
			y[i] = -1
		}
	}
	return q, p, y
}

// kktResidual returns the largest violation of the KKT conditions of the
// problem at r (with multiplier −rho on the equality): the gradient
// ∇ᵢ − yᵢρ must be ≥ 0 at αᵢ = 0, ≤ 0 at αᵢ = Uᵢ and 0 in between. It also
// recomputes ∇ = Qα + p independently and checks feasibility.
func kktResidual(t *testing.T, q *mat.SymDense, p, y, u []float64, delta float64, r *Result) float64 {
	t.Helper()
	n := len(p)
	g := mat.NewVecDense(n, nil)
	g.MulVec(q, mat.NewVecDense(n, append([]float64(nil), r.Alpha...)))
	worst := 0.0
	sum := 0.0
	obj := 0.0
	for i := 0; i < n; i++ {
		gi := g.AtVec(i) + p[i]
		obj += 0.5*r.Alpha[i]*g.AtVec(i) + p[i]*r.Alpha[i]
		if d := math.Abs(gi - r.Grad[i]); d > 1e-8*(1+math.Abs(gi)) {
			t.Fatalf("gradient %d: solver %g, recomputed %g", i, r.Grad[i], gi)
		}
		ui := math.Inf(1)
		if u != nil {
			ui = u[i]
		}
		a := r.Alpha[i]
		if a < 0 || a > ui {
			t.Fatalf("alpha %d = %g outside [0, %g]", i, a, ui)
		}
		yi := 1.0
		if y != nil {
			yi = y[i]
			sum += yi * a
		}
		res := gi - yi*r.Rho
		var v float64
		switch {
		case ui == 0:
			v = 0
		case a <= 0:
			v = math.Max(-res, 0)
		case a >= ui:
			v = math.Max(res, 0)
		default:
			v = math.Abs(res)
		}
		worst = math.Max(worst, v)
	}
	if y != nil && math.Abs(sum-delta) > 1e-9*(1+math.Abs(delta)) {
		t.Fatalf("yᵀα = %g, want %g", sum, delta)
	}
	if math.Abs(obj-r.Obj) > 1e-9*(1+math.Abs(obj)) {
		t.Fatalf("objective %g, recomputed %g", r.Obj, obj)
	}
	return worst
}

func TestKKTRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	type cfg struct {
		name  string
		eq    bool
		inf   bool
		ridge float64
		delta float64
	}
	cfgs := []cfg{
		{"box+eq", true, false, 0, 0},
		{"box+eq+delta", true, false, 0, 1.5},
		{"inf+eq", true, true, 0.5, 0},
		{"inf+eq+delta", true, true, 0.5, -2},
		{"box", false, false, 0, 0},
		{"inf", false, true, 0.5, 0},
		{"mixed+eq", true, false, 0.1, 0},
	}
	for _, c := range cfgs {
		for rep := 0; rep < 3; rep++ {
			n := 20 + rng.IntN(150)
			q, p, y := randomProblem(rng, n, 1+rng.IntN(n), c.ridge)
			u := make([]float64, n)
			for i := range u {
				u[i] = 0.1 + 2*rng.Float64()
				if c.inf {
					u[i] = math.Inf(1)
				}
				if c.name == "mixed+eq" && i%3 == 0 {
					u[i] = math.Inf(1)
				}
				if c.name == "mixed+eq" && i%7 == 0 {
					u[i] = 0
				}
			}
			if !c.eq {
				y = nil
			}
			var objs []float64
			for _, shrink := range []bool{false, true} {
				for _, mb := range []float64{100, 1e-6} {
					prob := &Problem{Q: Dense(q), P: p, Y: y, Delta: c.delta, Upper: u}
					r, err := Solve(ctx, prob, Options{Eps: 1e-8, Shrinking: shrink, CacheMB: mb, Polish: mb < 1})
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if !r.Converged {
						t.Fatalf("%s: not converged after %d iterations", c.name, r.Iter)
					}
					if v := kktResidual(t, q, p, y, u, c.delta, r); v > 1e-7 {
						t.Errorf("%s n=%d shrink=%v cache=%g: KKT residual %g", c.name, n, shrink, mb, v)
					}
					objs = append(objs, r.Obj)
				}
			}
			for _, o := range objs[1:] {
				if math.Abs(o-objs[0]) > 1e-9*(1+math.Abs(objs[0])) {
					t.Errorf("%s: objectives differ across shrinking/cache settings: %v", c.name, objs)
				}
			}
		}
	}
}

// TestPolishIllConditioned: Q = AAᵀ + 10⁻⁴I with A of rank 3 (eigenvalues
// ~n and 10⁻⁴, as SVM2+'s K + Qλ at large C), no upper bounds: plain SMO
// needs a huge number of iterations; with Newton polishing it must converge
// in far fewer, to the same optimum (KKT residual, objective).
func TestPolishIllConditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for _, eq := range []bool{true, false} {
		n := 150
		q, p, y := randomProblem(rng, n, 3, 1e-4)
		if !eq {
			y = nil
		}
		pol, err := Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y}, Options{Eps: 1e-6, Shrinking: true, Polish: true})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y}, Options{Eps: 1e-6, Shrinking: true, MaxIter: 20 * pol.Iter})
		if err != nil {
			t.Fatal(err)
		}
		if !pol.Converged || pol.Polishes == 0 {
			t.Fatalf("eq=%v: polished solve converged=%v after %d iterations, %d polishes", eq, pol.Converged, pol.Iter, pol.Polishes)
		}
		if v := kktResidual(t, q, p, y, nil, 0, pol); v > 1e-6 {
			t.Errorf("eq=%v: KKT residual %g with polishing", eq, v)
		}
		if plain.Converged {
			t.Errorf("eq=%v: plain SMO converged in %d iterations, polishing took %d: expected polishing to need < 1/20", eq, plain.Iter, pol.Iter)
		}
		if pol.Obj > plain.Obj+1e-9*(1+math.Abs(plain.Obj)) {
			t.Errorf("eq=%v: objective %g (polished) above %g (plain, stopped early)", eq, pol.Obj, plain.Obj)
		}
		t.Logf("eq=%v: plain %d iterations (converged %v), polished %d iterations / %d polishes", eq, plain.Iter, plain.Converged, pol.Iter, pol.Polishes)
	}
}

// TestPolishWidensTheFace: an SVM2+-like dual (no upper bound; Q of rank
// 30 plus a ridge of 10⁻⁴, n = 600; 579 variables free at the optimum)
// whose optimum has more free variables than SMO has freed at the first
// polish. The polish must widen the face by the violators and finish within
// 20n SMO iterations, at a KKT point (residual ≤ 1e-6, recomputed
// independently). Measured: 6 125 iterations (4 850 without the budget
// floor polishBudgetFloor, which lets this problem's first polish widen F
// from 67 to 245 without finishing and so delays the second); before the
// widening rounds, 313 800; plain SMO does not finish in 50× as many as the
// polished run.
func TestPolishWidensTheFace(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	n := 600
	q, p, y := randomProblem(rng, n, 30, 1e-4)
	pol, err := Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y}, Options{Eps: 1e-6, Shrinking: true, Polish: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pol.Converged || pol.Polishes == 0 {
		t.Fatalf("polished solve converged=%v after %d iterations, %d polishes", pol.Converged, pol.Iter, pol.Polishes)
	}
	if v := kktResidual(t, q, p, y, nil, 0, pol); v > 1e-6 {
		t.Errorf("KKT residual %g", v)
	}
	if pol.Iter > 20*n {
		t.Errorf("%d SMO iterations (%d polishes, %d free): the widening polish should finish within 20n = %d", pol.Iter, pol.Polishes, pol.NFree, 20*n)
	}
	plain, err := Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y}, Options{Eps: 1e-6, Shrinking: true, MaxIter: 50 * pol.Iter})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Converged {
		t.Errorf("plain SMO converged in %d iterations against %d polished: the test no longer exercises the polish", plain.Iter, pol.Iter)
	}
	if pol.Obj > plain.Obj+1e-9*(1+math.Abs(plain.Obj)) {
		t.Errorf("objective %g (polished) above %g (plain, stopped early)", pol.Obj, plain.Obj)
	}
	t.Logf("polished: %d iterations, %d polishes, %d free; plain: %d iterations (converged %v)", pol.Iter, pol.Polishes, pol.NFree, plain.Iter, plain.Converged)
}

// The row-serving path without SubRow (plain Matrix) must agree.
type plainMatrix struct{ s *mat.SymDense }

func (m plainMatrix) Size() int          { return m.s.SymmetricDim() }
func (m plainMatrix) Diag(i int) float64 { return m.s.At(i, i) }
func (m plainMatrix) Row(i int, dst []float64) {
	for j := range dst {
		dst[j] = m.s.At(i, j)
	}
}

func TestPlainMatrixAndAlpha0(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	q, p, y := randomProblem(rng, 80, 10, 0)
	u := make([]float64, 80)
	for i := range u {
		u[i] = 1
	}
	a, err := Solve(context.Background(), &Problem{Q: Dense(q), P: p, Y: y, Upper: u}, Options{Eps: 1e-9, Shrinking: true})
	if err != nil {
		t.Fatal(err)
	}
	// feasible start: a pair of opposite labels at 0.5
	a0 := make([]float64, 80)
	var ip, in = -1, -1
	for i, v := range y {
		if v > 0 && ip < 0 {
			ip = i
		}
		if v < 0 && in < 0 {
			in = i
		}
	}
	a0[ip], a0[in] = 0.5, 0.5
	b, err := Solve(context.Background(), &Problem{Q: plainMatrix{q}, P: p, Y: y, Upper: u, Alpha0: a0}, Options{Eps: 1e-9, Shrinking: true, CacheMB: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Obj-b.Obj) > 1e-9*(1+math.Abs(a.Obj)) {
		t.Fatalf("objectives %g vs %g", a.Obj, b.Obj)
	}
	if kktResidual(t, q, p, y, u, 0, b) > 1e-8 {
		t.Fatal("KKT violated")
	}
}

func TestMaxIterAndCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	q, p, y := randomProblem(rng, 200, 50, 0)
	u := make([]float64, 200)
	for i := range u {
		u[i] = 10
	}
	r, err := Solve(context.Background(), &Problem{Q: Dense(q), P: p, Y: y, Upper: u}, Options{Eps: 1e-10, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged || r.Iter != 5 {
		t.Fatalf("MaxIter 5: converged=%v iter=%d", r.Converged, r.Iter)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y, Upper: u}, Options{Eps: 1e-12, ProgressEvery: 1, Progress: func(int, float64) {
		calls++
		cancel()
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: got %v", err)
	}
	if calls == 0 {
		t.Fatal("no progress calls")
	}
}

func TestBadInput(t *testing.T) {
	q := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	inf := math.Inf(1)
	cases := []struct {
		name string
		p    *Problem
		want error
	}{
		{"nil", &Problem{}, nil},
		{"p length", &Problem{Q: Dense(q), P: []float64{1}}, nil},
		{"NaN p", &Problem{Q: Dense(q), P: []float64{math.NaN(), 1}}, nil},
		{"bad y", &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, 2}}, nil},
		{"negative U", &Problem{Q: Dense(q), P: []float64{-1, -1}, Upper: []float64{-1, 1}}, nil},
		{"infeasible delta, one sign", &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, 1}, Delta: -1, Upper: []float64{inf, inf}}, ErrInfeasible},
		{"infeasible delta, bounds", &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, -1}, Delta: 3, Upper: []float64{1, inf}}, ErrInfeasible},
		{"delta without y", &Problem{Q: Dense(q), P: []float64{-1, -1}, Delta: 1}, nil},
		{"alpha0 infeasible", &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, -1}, Alpha0: []float64{1, 0}, Upper: []float64{1, 1}}, nil},
		{"negative diag", &Problem{Q: Dense(mat.NewSymDense(2, []float64{-1, 0, 0, 1})), P: []float64{-1, -1}}, nil},
	}
	for _, c := range cases {
		_, err := Solve(context.Background(), c.p, Options{})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := Solve(context.Background(), &Problem{Q: Dense(q), P: []float64{-1, -1}}, Options{Eps: -1}); err == nil {
		t.Error("negative eps accepted")
	}
}

func TestUnbounded(t *testing.T) {
	// Q = [[1,−1],[−1,1]] with y = (1,−1): the direction (1,1) keeps yᵀα = 0,
	// has zero curvature and slope −2: unbounded without upper bounds.
	q := mat.NewSymDense(2, []float64{1, -1, -1, 1})
	_, err := Solve(context.Background(), &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, -1}}, Options{MaxIter: 100000})
	if !errors.Is(err, ErrUnbounded) {
		t.Fatalf("got %v, want ErrUnbounded", err)
	}
}

func TestAnalytic2(t *testing.T) {
	// Two points x = ±1 with a linear kernel: Q = [[1,1],[1,1]] (yyᵀ∘K with
	// K = [[1,−1],[−1,1]]), p = −1, α₁ = α₂ = a: ½·4a² − 2a, minimum at
	// a = ½ (hard margin), objective −½, rho = 0.
	q := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	r, err := Solve(context.Background(), &Problem{Q: Dense(q), P: []float64{-1, -1}, Y: []float64{1, -1}, Upper: []float64{10, 10}}, Options{Eps: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Alpha[0]-0.5) > 1e-12 || math.Abs(r.Alpha[1]-0.5) > 1e-12 || math.Abs(r.Obj+0.5) > 1e-12 || math.Abs(r.Rho) > 1e-12 {
		t.Fatalf("got α=%v obj=%g rho=%g", r.Alpha, r.Obj, r.Rho)
	}
}

// Single-precision rows solve the problem with Q rounded to float32: the
// KKT conditions of the exact problem then hold to about float32 precision
// (relative to the size of Q·α).
func TestFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, eq := range []bool{true, false} {
		q, p, y := randomProblem(rng, 120, 30, 0.1)
		u := make([]float64, 120)
		for i := range u {
			u[i] = 1
			if i%4 == 0 {
				u[i] = math.Inf(1)
			}
		}
		if !eq {
			y = nil
		}
		a, err := Solve(context.Background(), &Problem{Q: Dense(q), P: p, Y: y, Upper: u}, Options{Eps: 1e-6, Shrinking: true, Float32: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Solve(context.Background(), &Problem{Q: plainMatrix{q}, P: p, Y: y, Upper: u}, Options{Eps: 1e-10, Shrinking: true})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Converged || math.Abs(a.Obj-b.Obj) > 1e-5*math.Abs(b.Obj) {
			t.Fatalf("eq=%v: float32 objective %g, float64 %g", eq, a.Obj, b.Obj)
		}
	}
}

// rbfRows serves RBF C-SVM dual rows through Row only (no SubRow).
type rbfRows struct {
	x     [][]float64
	gamma float64
	y     []float64
}

func (r rbfRows) Size() int          { return len(r.x) }
func (r rbfRows) Diag(i int) float64 { return 1 }
func (r rbfRows) Row(i int, dst []float64) {
	for j := range dst {
		d := 0.0
		for c := range r.x[i] {
			e := r.x[i][c] - r.x[j][c]
			d += e * e
		}
		dst[j] = r.y[i] * r.y[j] * math.Exp(-r.gamma*d)
	}
}

// BenchmarkSolve runs the solver on an RBF C-SVM dual served by Row only
// (no SubRow: the generic path), n = 2000.
func BenchmarkSolve(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 11))
	n := 2000
	m := rbfRows{x: make([][]float64, n), gamma: 0.1, y: make([]float64, n)}
	p := make([]float64, n)
	u := make([]float64, n)
	for i := range m.x {
		m.x[i] = make([]float64, 10)
		for c := range m.x[i] {
			m.x[i][c] = rng.NormFloat64()
		}
		m.y[i] = -1
		if m.x[i][0]+m.x[i][1]*m.x[i][2]+0.8*rng.NormFloat64() > 0 {
			m.y[i] = 1
		}
		p[i], u[i] = -1, 1
	}
	for _, f32 := range []bool{false, true} {
		name := "float64"
		if f32 {
			name = "float32"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Solve(context.Background(), &Problem{Q: m, P: p, Y: m.y, Upper: u}, Options{Shrinking: true, Float32: f32}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// factoredMatrix is a dense Q = WWᵀ that also offers W (smo.Factored).
type factoredMatrix struct {
	DenseMatrix
	w *mat.Dense
}

func (m factoredMatrix) Factor() *mat.Dense { return m.w }

// The polish's factored path (Q_FF = W_F W_Fᵀ, ∇ += W(W_Fᵀ Δα_F), no rows
// of the face) must reach the optimum the row path reaches. Q = WWᵀ of rank
// 31 with a constant column (bounded with no upper bound on α, like SVM2+
// whose augmented z̃ holds a 1), n = 600.
func TestPolishFactored(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n, r := 600, 30
	w := mat.NewDense(n, r+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			w.Set(i, j, rng.NormFloat64())
		}
		w.Set(i, r, 0.1)
	}
	q := mat.NewSymDense(n, nil)
	q.SymOuterK(1, w)
	_, p, y := randomProblem(rng, n, 1, 0)
	ctx := context.Background()
	opt := Options{Eps: 1e-6, Shrinking: true, Polish: true}
	fac, err := Solve(ctx, &Problem{Q: factoredMatrix{Dense(q), w}, P: p, Y: y}, opt)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Solve(ctx, &Problem{Q: Dense(q), P: p, Y: y}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]*Result{"factored": fac, "rows": rows} {
		if !res.Converged || res.Polishes == 0 {
			t.Fatalf("%s: converged=%v after %d iterations, %d polishes", name, res.Converged, res.Iter, res.Polishes)
		}
		if v := kktResidual(t, q, p, y, nil, 0, res); v > 1e-6 {
			t.Errorf("%s: KKT residual %g", name, v)
		}
	}
	if d := math.Abs(fac.Obj - rows.Obj); d > 1e-9*(1+math.Abs(rows.Obj)) {
		t.Errorf("objective %.12g (factored) against %.12g (rows)", fac.Obj, rows.Obj)
	}
	if fac.Iter > 20*n {
		t.Errorf("factored: %d SMO iterations, more than 20n", fac.Iter)
	}
	t.Logf("factored: %d iterations, %d polishes, %d free, obj %.12g; rows: %d iterations, %d polishes, obj %.12g", fac.Iter, fac.Polishes, fac.NFree, fac.Obj, rows.Iter, rows.Polishes, rows.Obj)
}
