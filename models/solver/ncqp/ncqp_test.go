package ncqp

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/qp"
)

// dense adapts a SymDense.
type dense struct{ m *mat.SymDense }

func (d dense) Dim() int            { return d.m.SymmetricDim() }
func (d dense) At(i, j int) float64 { return d.m.At(i, j) }
func (d dense) AddColumn(j int, s float64, y []float64) {
	for i := range y {
		y[i] += s * d.m.At(i, j)
	}
}

// mpLike builds a problem with MPWTSVM's (31) structure: m groups pairs,
// blocks (a, b, l1, l2, x1, x2), H = [[H1 on (a, l2)], [H2 on (b, l1)], C on
// (x1, x2)] with H1 = G1G1ᵀ, H2 = G2G2ᵀ of rank r. coupling = 0 makes it
// convex.
func mpLike(rng *rand.Rand, m, r int, coupling float64) *Problem {
	n := 6 * m
	h := mat.NewSymDense(n, nil)
	for _, pair := range [][2]int{{0, 3}, {1, 2}} {
		g := mat.NewDense(m, r, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < r; j++ {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var hb mat.SymDense
		hb.SymOuterK(1, g)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				v := hb.At(i, j)
				a, b := pair[0]*m, pair[1]*m
				h.SetSym(a+i, a+j, v)
				h.SetSym(b+i, b+j, v)
				h.SetSym(a+i, b+j, -v)
			}
		}
	}
	for j := 0; j < m; j++ {
		h.SetSym(4*m+j, 5*m+j, coupling)
	}
	p := make([]float64, n)
	for j := 0; j < 2*m; j++ {
		p[j] = -1
	}
	pr := &Problem{H: dense{h}, P: p}
	for j := 0; j < m; j++ {
		pr.Groups = append(pr.Groups, []int{j, 2*m + j, 5*m + j}, []int{m + j, 3*m + j, 4*m + j})
		pr.Coef = append(pr.Coef, []float64{1, 1, -coupling}, []float64{1, 1, -coupling})
		pr.Bound = append(pr.Bound, 1, 2)
	}
	return pr
}

// The natural residual vanishes exactly at KKT points: check the returned
// point against explicit multipliers recomputed here. For each group, the
// multiplier θ of the sum constraint is read from a free variable (θ = −gᵢ/aᵢ)
// or, if none, chosen as the best θ ≥ 0; then every variable must satisfy
// gᵢ + θaᵢ ≥ 0 with equality when xᵢ > 0, and θ(b − aᵀx) = 0.
func checkKKT(t *testing.T, pr *Problem, x, g []float64, tol float64) {
	t.Helper()
	for gi, idx := range pr.Groups {
		a := pr.Coef[gi]
		s := 0.0
		for k, i := range idx {
			s += a[k] * x[i]
			if x[i] < 0 {
				t.Fatalf("x[%d] = %v < 0", i, x[i])
			}
		}
		if s > pr.Bound[gi]+tol {
			t.Fatalf("group %d: Σax = %v > %v", gi, s, pr.Bound[gi])
		}
		theta := 0.0
		for k, i := range idx {
			if x[i] > 1e-9 && a[k] != 0 {
				theta = -g[i] / a[k]
				break
			}
		}
		if theta < -tol {
			t.Errorf("group %d: multiplier %v < 0", gi, theta)
		}
		if math.Abs(theta*(pr.Bound[gi]-s)) > tol*(1+math.Abs(theta)) {
			t.Errorf("group %d: complementarity θ(b − aᵀx) = %v", gi, theta*(pr.Bound[gi]-s))
		}
		for k, i := range idx {
			r := g[i] + theta*a[k]
			if r < -tol || (x[i] > 1e-9 && math.Abs(r) > tol) {
				t.Errorf("group %d var %d: reduced gradient %v at x = %v", gi, i, r, x[i])
			}
		}
	}
}

func TestNonConvexKKT(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 6; trial++ {
		pr := mpLike(rng, 8+rng.Intn(10), 20, 0.5)
		res, err := Solve(context.Background(), pr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("trial %d: residual %g", trial, res.Residual)
		}
		if res.Obj > 0 {
			t.Errorf("objective %v above the start value 0", res.Obj)
		}
		// gradient recomputed from the dense matrix
		g := append([]float64(nil), pr.P...)
		for i, xi := range res.X {
			pr.H.AddColumn(i, xi, g)
		}
		checkKKT(t, pr, res.X, g, 1e-6)
		if r, _ := Residual(pr, res.X, g); r > 1e-6 {
			t.Errorf("Residual = %v", r)
		}
	}
}

// Convex instances (no coupling): the same minimum as the interior-point QP.
func TestConvexAgainstQP(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for trial := 0; trial < 4; trial++ {
		pr := mpLike(rng, 6+rng.Intn(6), 30, 0)
		res, err := Solve(context.Background(), pr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := pr.H.Dim()
		p := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				p.SetSym(i, j, pr.H.At(i, j))
			}
		}
		a := mat.NewDense(len(pr.Groups), n, nil)
		for gi, idx := range pr.Groups {
			for k, i := range idx {
				a.Set(gi, i, pr.Coef[gi][k])
			}
		}
		up := make([]float64, n)
		for i := range up {
			up[i] = math.Inf(1)
			if i >= 4*n/6 {
				up[i] = 0 // slacks play no role without coupling
			}
		}
		ref, err := qp.Solve(context.Background(), &qp.Problem{P: p, Q: pr.P, A: a, B: pr.Bound, Lower: make([]float64, n), Upper: up}, qp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Obj-ref.Obj) > 1e-6*(1+math.Abs(ref.Obj)) {
			t.Errorf("trial %d: objective %v, qp.Solve %v", trial, res.Obj, ref.Obj)
		}
	}
}

// SolveSoft: optimality checked from outside — the objective, evaluated
// independently, does not decrease under small feasible moves of any
// softLike is a SoftProblem on the first four blocks of an mpLike problem of
// m rows per block (the slack blocks dropped: variables a, b, l1, l2), with
// groups (a_j, l1_j) and (b_j, l2_j); it returns the problem and its H.
func softLike(rng *rand.Rand, base *Problem, m int) (*SoftProblem, *mat.SymDense) {
	n := 4 * m
	h := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			h.SetSym(i, j, base.H.At(i, j))
		}
	}
	sp := &SoftProblem{H: dense{h}, P: base.P[:n], Rho: 2}
	for j := 0; j < m; j++ {
		sp.Groups = append(sp.Groups, []int{j, 2*m + j}, []int{m + j, 3*m + j})
		sp.C = append(sp.C, 1+rng.Float64(), 0.5)
		sp.Xi0 = append(sp.Xi0, rng.Float64(), 0)
	}
	return sp, h
}

// coordinate, and ψ' is the stated slack.
func TestSoftOptimal(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	base := mpLike(rng, 10, 15, 0)
	sp, h := softLike(rng, base, 10)
	n := h.SymmetricDim()
	res, err := SolveSoft(context.Background(), sp, Options{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("residual %g", res.Residual)
	}
	obj := func(x []float64) float64 {
		v := 0.0
		for i := 0; i < n; i++ {
			v += sp.P[i] * x[i]
			for j := 0; j < n; j++ {
				v += 0.5 * x[i] * h.At(i, j) * x[j]
			}
		}
		for g, idx := range sp.Groups {
			s := -sp.C[g]
			for _, i := range idx {
				s += x[i]
			}
			// ψ(s) = max_{ξ≥0} sξ − (ρ/2)(ξ−ξ⁰)², by a fine search around the closed form
			best := math.Inf(-1)
			for k := 0; k <= 2000; k++ {
				xi := float64(k) * 1e-3 * (1 + sp.Xi0[g] + math.Abs(s)/sp.Rho)
				best = math.Max(best, s*xi-sp.Rho/2*(xi-sp.Xi0[g])*(xi-sp.Xi0[g]))
			}
			v += best
		}
		return v
	}
	f0 := obj(res.X)
	if math.Abs(f0-res.Obj) > 1e-5*(1+math.Abs(f0)) {
		t.Errorf("reported objective %v, recomputed %v", res.Obj, f0)
	}
	for i := 0; i < n; i++ {
		for _, d := range []float64{1e-3, -1e-3} {
			x := append([]float64(nil), res.X...)
			x[i] += d
			if x[i] < 0 {
				continue
			}
			if f := obj(x); f < f0-1e-6 {
				t.Errorf("moving x[%d] by %v lowers the objective: %v < %v", i, d, f, f0)
			}
		}
	}
}

func TestInputErrors(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pr := mpLike(rng, 3, 2, 1)
	pr.Bound[0] = -1
	if _, err := Solve(context.Background(), pr, Options{}); err == nil {
		t.Error("negative bound accepted")
	}
	pr = mpLike(rng, 3, 2, 1)
	pr.Groups[1] = pr.Groups[0]
	if _, err := Solve(context.Background(), pr, Options{}); err == nil {
		t.Error("overlapping groups accepted")
	}
	pr = mpLike(rng, 3, 2, 1)
	pr.Groups[0], pr.Coef[0] = []int{0, 3 * 3}, []float64{1, 1} // a and l2 are coupled by H: not diagonal inside the group
	if _, err := Solve(context.Background(), pr, Options{}); err == nil {
		t.Error("non-diagonal group accepted")
	}
}

// Both solvers report progress on long solves and stop, with the
// context's error, when it is cancelled: the first report cancels it.
func TestProgressAndCancel(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	pr := mpLike(rng, 60, 40, 0.3)
	sp, _ := softLike(rng, pr, 60)
	for name, solve := range map[string]func(context.Context, Options) error{
		"Solve": func(ctx context.Context, o Options) error {
			_, err := Solve(ctx, pr, o)
			return err
		},
		"SolveSoft": func(ctx context.Context, o Options) error {
			_, err := SolveSoft(ctx, sp, o)
			return err
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		calls, lastSweep := 0, -1
		err := solve(ctx, Options{Tol: 1e-300, MaxSweeps: 100000, Progress: func(sweep int, r float64) {
			if sweep < lastSweep || !(r >= 0) {
				t.Errorf("%s: progress (%d, %v) after sweep %d", name, sweep, r, lastSweep)
			}
			calls++
			lastSweep = sweep
			cancel()
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled solve returned %v", name, err)
		}
		if calls == 0 {
			t.Errorf("%s: no progress reported", name)
		}
	}
}

// rootOf finds the root of the piecewise-linear r(θ) = b between its
// breakpoints without allocating for a block of a few variables (it runs
// once per block update, millions of times in an MPWTSVM experiment); a
// block larger than its stack buffer still gets the right root.
func TestRootOfBreakpoints(t *testing.T) {
	for _, n := range []int{3, 100} {
		h, q, a := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range h {
			h[i], q[i], a[i] = 1+float64(i%3), -1-float64(i%5), 1
		}
		r := func(th float64) float64 {
			s := 0.0
			for i := range h {
				if v := -(q[i] + th*a[i]) / h[i]; v > 0 {
					s += a[i] * v
				}
			}
			return s
		}
		b := r(2.5)
		th, err := rootOf(r, h, q, a, b, 0, math.Inf(1))
		if err != nil || math.Abs(th-2.5) > 1e-12 {
			t.Fatalf("n = %d: root %v (err %v), want 2.5", n, th, err)
		}
		if n <= 62 {
			if allocs := testing.AllocsPerRun(100, func() { rootOf(r, h, q, a, b, 0, math.Inf(1)) }); allocs != 0 {
				t.Fatalf("n = %d: rootOf allocates %v times per call", n, allocs)
			}
		}
	}
}
