package qp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var inf = math.Inf(1)

func TestInfeasible(t *testing.T) {
	cases := map[string]*Problem{
		"inequalities": {Q: []float64{1, 1}, A: mat.NewDense(2, 2, []float64{1, 1, -1, -1}), B: []float64{-1, -1}},
		"equalities": {P: mat.NewSymDense(2, []float64{1, 0, 0, 1}), Q: []float64{0, 0},
			E: mat.NewDense(2, 2, []float64{1, 1, 2, 2}), D: []float64{1, 3}},
		"box_vs_equality": {P: mat.NewSymDense(3, []float64{2, 0, 0, 0, 1, 0, 0, 0, 1}), Q: []float64{1, 0, -1},
			E: mat.NewDense(1, 3, []float64{1, 1, 1}), D: []float64{10}, Lower: []float64{0, 0, 0}, Upper: []float64{1, 1, 1}},
		"ineq_vs_bounds": {Q: []float64{-1, 0}, A: mat.NewDense(1, 2, []float64{1, 1}), B: []float64{-0.5}, Lower: []float64{0, 0}},
		"lower_gt_upper": {Q: []float64{0, 0}, Lower: []float64{0, 2}, Upper: []float64{1, 1}},
		"b_minus_inf":    {Q: []float64{0}, A: mat.NewDense(1, 1, []float64{1}), B: []float64{math.Inf(-1)}},
		"fixed_vs_ineq": {Q: []float64{1, 1}, A: mat.NewDense(1, 2, []float64{1, 1}), B: []float64{0.5},
			Lower: []float64{1, 0}, Upper: []float64{1, 3}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Solve(context.Background(), p, Options{})
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("want ErrInfeasible, got %v (result %+v)", err, r)
			}
			if r == nil {
				return // detected during validation
			}
			if r.Status != StatusInfeasible || r.Converged {
				t.Errorf("status %v converged %v", r.Status, r.Converged)
			}
			checkFarkas(t, p, r)
		})
	}
}

// checkFarkas verifies the returned certificate: Aᵀz + Eᵀy − zL + zU ≈ 0,
// z, zL, zU ≥ 0 and bᵀz + dᵀy − lᵀzL + uᵀzU < 0.
func checkFarkas(t *testing.T, p *Problem, r *Result) {
	t.Helper()
	n := len(p.Q)
	v := make([]float64, n)
	lhs := 0.0
	if p.A != nil {
		for i := range p.B {
			if r.Z[i] < 0 {
				t.Errorf("z[%d] = %g < 0", i, r.Z[i])
			}
			for j := 0; j < n; j++ {
				v[j] += p.A.At(i, j) * r.Z[i]
			}
			lhs += p.B[i] * r.Z[i]
		}
	}
	if p.E != nil {
		for i := range p.D {
			for j := 0; j < n; j++ {
				v[j] += p.E.At(i, j) * r.Y[i]
			}
			lhs += p.D[i] * r.Y[i]
		}
	}
	for j := 0; j < n; j++ {
		if r.ZLower[j] < 0 || r.ZUpper[j] < 0 {
			t.Errorf("negative bound multiplier at %d", j)
		}
		v[j] += r.ZUpper[j] - r.ZLower[j]
		if r.ZLower[j] != 0 {
			lhs -= p.Lower[j] * r.ZLower[j]
		}
		if r.ZUpper[j] != 0 {
			lhs += p.Upper[j] * r.ZUpper[j]
		}
	}
	if !(lhs < 0) {
		t.Errorf("certificate margin bᵀz + … = %g, want < 0", lhs)
	}
	if nv := normInf(v); nv > 1e-7*(-lhs) {
		t.Errorf("‖Aᵀz + Eᵀy − zL + zU‖∞ = %g vs margin %g", nv, -lhs)
	}
}

func TestUnbounded(t *testing.T) {
	cases := map[string]*Problem{
		"lp_free":      {Q: []float64{-1, 1}, Lower: []float64{0, 0}},
		"lp_ineq":      {Q: []float64{-1, -1}, A: mat.NewDense(1, 2, []float64{1, -1}), B: []float64{1}, Lower: []float64{0, 0}},
		"qp_null_dir":  {P: mat.NewSymDense(2, []float64{1, 0, 0, 0}), Q: []float64{0, -1}},
		"qp_with_eq":   {P: mat.NewSymDense(3, []float64{1, 0, 0, 0, 0, 0, 0, 0, 0}), Q: []float64{0, -1, 0}, E: mat.NewDense(1, 3, []float64{0, 1, -1}), D: []float64{0}},
		"rankdef_kern": {P: mat.NewSymDense(2, []float64{1, 1, 1, 1}), Q: []float64{1, -2}, Upper: []float64{5, inf}, Lower: []float64{-inf, -3}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Solve(context.Background(), p, Options{})
			if !errors.Is(err, ErrUnbounded) {
				t.Fatalf("want ErrUnbounded, got %v (result %+v)", err, r)
			}
			if r.Status != StatusUnbounded {
				t.Fatalf("status %v", r.Status)
			}
			d := r.Certificate
			n := len(p.Q)
			// X is a feasible point (the constraints were confirmed feasible).
			if r.X == nil {
				t.Fatal("no feasible point in X")
			}
			if pr, _, _ := kktCheck(p, &Result{X: r.X, Z: make([]float64, len(p.B)), Y: make([]float64, len(p.D)),
				ZLower: make([]float64, n), ZUpper: make([]float64, n)}); pr > 1e-7 {
				t.Errorf("X violates the constraints by %g", pr)
			}
			qd := 0.0
			for i := range d {
				qd += p.Q[i] * d[i]
			}
			if !(qd < 0) {
				t.Fatalf("qᵀd = %g", qd)
			}
			tol := 1e-7 * -qd
			if p.P != nil {
				var pd mat.VecDense
				pd.MulVec(p.P, mat.NewVecDense(n, d))
				if nv := mat.Norm(&pd, math.Inf(1)); nv > tol {
					t.Errorf("‖Pd‖ = %g", nv)
				}
			}
			if p.A != nil {
				var ad mat.VecDense
				ad.MulVec(p.A, mat.NewVecDense(n, d))
				if mat.Max(&ad) > tol {
					t.Errorf("max(Ad) = %g", mat.Max(&ad))
				}
			}
			if p.E != nil {
				var ed mat.VecDense
				ed.MulVec(p.E, mat.NewVecDense(n, d))
				if nv := mat.Norm(&ed, math.Inf(1)); nv > tol {
					t.Errorf("‖Ed‖ = %g", nv)
				}
			}
			for i := range d {
				if p.Lower != nil && !math.IsInf(p.Lower[i], -1) && d[i] < -tol {
					t.Errorf("d[%d] = %g leaves lower bound", i, d[i])
				}
				if p.Upper != nil && !math.IsInf(p.Upper[i], 1) && d[i] > tol {
					t.Errorf("d[%d] = %g leaves upper bound", i, d[i])
				}
			}
		})
	}
}

// A bounded LP whose feasible set is unbounded must not be reported
// unbounded, nor a feasible QP with a long, thin feasible set infeasible.
func TestNoFalseCertificates(t *testing.T) {
	cases := map[string]*Problem{
		"unbounded_set_bounded_obj": {Q: []float64{1, 1}, Lower: []float64{0, 0}},
		"ray_with_quadratic":        {P: mat.NewSymDense(2, []float64{1, 0, 0, 0}), Q: []float64{0, 1}, Lower: []float64{-inf, 0}},
		"thin_slab": {Q: []float64{0, 1}, A: mat.NewDense(2, 2, []float64{1, 0, -1, 0}), B: []float64{1e-6, 0},
			Lower: []float64{-inf, -1}},
		"zero_objective_free": {Q: []float64{0, 0, 0}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Solve(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("not converged: %v", r.Status)
			}
		})
	}
}

func TestNotPSD(t *testing.T) {
	P := mat.NewSymDense(3, []float64{2, 0, 0, 0, -1, 0, 0, 0, 1})
	_, err := Solve(context.Background(), &Problem{P: P, Q: []float64{0, 0, 0}, Lower: []float64{-1, -1, -1}, Upper: []float64{1, 1, 1}}, Options{})
	if !errors.Is(err, ErrNotPSD) {
		t.Fatalf("want ErrNotPSD, got %v", err)
	}
	if !strings.Contains(err.Error(), "-1") {
		t.Errorf("message should name the eigenvalue: %v", err)
	}
	// Indefinite without a negative diagonal entry.
	P2 := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if err := CheckPSD(P2, 0); !errors.Is(err, ErrNotPSD) {
		t.Fatalf("CheckPSD([1 2; 2 1]) = %v", err)
	}
	// A PSD kernel matrix perturbed by rounding (λ_min ≈ −1e-14·‖P‖) passes,
	// a clearly negative one (λ_min = −1e-6·‖P‖) does not.
	n := 30
	rng := rand.New(rand.NewPCG(1, 2))
	F := mat.NewDense(5, n, nil)
	for i := 0; i < 5; i++ {
		for j := 0; j < n; j++ {
			F.Set(i, j, rng.NormFloat64())
		}
	}
	var K mat.SymDense
	K.SymOuterK(1, F.T())
	norm := 0.0
	for i := 0; i < n; i++ {
		norm = math.Max(norm, math.Abs(K.At(i, i)))
	}
	for _, c := range []struct {
		shift float64
		ok    bool
	}{{-1e-14, true}, {0, true}, {-1e-6, false}} {
		S := mat.NewSymDense(n, nil)
		S.CopySym(&K)
		for i := 0; i < n; i++ {
			S.SetSym(i, i, S.At(i, i)+c.shift*norm*float64(n))
		}
		err := CheckPSD(S, 0)
		if (err == nil) != c.ok {
			t.Errorf("shift %g: CheckPSD = %v", c.shift, err)
		}
	}
}

func TestInputErrors(t *testing.T) {
	I2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	nan := math.NaN()
	cases := map[string]*Problem{
		"nil_q":         {P: I2},
		"P_shape":       {P: I2, Q: []float64{1, 2, 3}},
		"A_shape":       {Q: []float64{1, 2}, A: mat.NewDense(1, 3, nil), B: []float64{1}},
		"B_len":         {Q: []float64{1, 2}, A: mat.NewDense(2, 2, nil), B: []float64{1}},
		"B_without_A":   {Q: []float64{1, 2}, B: []float64{1}},
		"E_shape":       {Q: []float64{1, 2}, E: mat.NewDense(1, 1, []float64{1}), D: []float64{1}},
		"D_without_E":   {Q: []float64{1, 2}, D: []float64{1}},
		"A_without_B":   {Q: []float64{1, 2}, A: mat.NewDense(1, 2, []float64{1, 1})},
		"E_without_D":   {Q: []float64{1, 2}, E: mat.NewDense(1, 2, []float64{1, 1})},
		"lower_len":     {Q: []float64{1, 2}, Lower: []float64{0}},
		"upper_len":     {Q: []float64{1, 2}, Upper: []float64{0, 1, 2}},
		"nan_q":         {Q: []float64{nan, 1}},
		"inf_q":         {Q: []float64{inf, 1}},
		"nan_P":         {P: mat.NewSymDense(2, []float64{1, nan, nan, 1}), Q: []float64{1, 1}},
		"nan_A":         {Q: []float64{1, 2}, A: mat.NewDense(1, 2, []float64{nan, 1}), B: []float64{1}},
		"nan_b":         {Q: []float64{1, 2}, A: mat.NewDense(1, 2, []float64{1, 1}), B: []float64{nan}},
		"inf_E":         {Q: []float64{1, 2}, E: mat.NewDense(1, 2, []float64{inf, 1}), D: []float64{1}},
		"inf_d":         {Q: []float64{1, 2}, E: mat.NewDense(1, 2, []float64{1, 1}), D: []float64{inf}},
		"nan_lower":     {Q: []float64{1, 2}, Lower: []float64{nan, 0}},
		"lower_is_inf":  {Q: []float64{1, 2}, Lower: []float64{inf, 0}},
		"upper_is_-inf": {Q: []float64{1, 2}, Upper: []float64{math.Inf(-1), 0}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Solve(context.Background(), p, Options{})
			if !errors.Is(err, ErrInput) {
				t.Fatalf("want ErrInput, got %v", err)
			}
			if r != nil {
				t.Errorf("result should be nil on input errors")
			}
		})
	}
	if _, err := Solve(context.Background(), nil, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("nil problem: %v", err)
	}
	if _, err := Solve(context.Background(), &Problem{Q: []float64{1}}, Options{Tol: -1}); !errors.Is(err, ErrInput) {
		t.Errorf("negative Tol: %v", err)
	}
}

// svmLike returns a box + one-equality problem of size n (an RBF-kernel
// SVM dual on random 2-D points with C = 10).
func svmLike(n int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([][2]float64, n)
	y := make([]float64, n)
	for i := range X {
		y[i] = 1
		if i%2 == 1 {
			y[i] = -1
		}
		X[i] = [2]float64{rng.NormFloat64() + 0.7*y[i], rng.NormFloat64() - 0.7*y[i]}
	}
	P := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			dx, dy := X[i][0]-X[j][0], X[i][1]-X[j][1]
			P.SetSym(i, j, y[i]*y[j]*math.Exp(-0.5*(dx*dx+dy*dy)))
		}
	}
	q := make([]float64, n)
	lo := make([]float64, n)
	up := make([]float64, n)
	for i := range q {
		q[i] = -1
		up[i] = 10
	}
	return &Problem{P: P, Q: q, E: mat.NewDense(1, n, y), D: []float64{0}, Lower: lo, Upper: up}
}

func TestMaxIterAndProgress(t *testing.T) {
	p := svmLike(60, 1)
	calls := 0
	r, err := Solve(context.Background(), p, Options{MaxIter: 3, Progress: func(it int) {
		if it != calls {
			t.Errorf("progress iter %d, want %d", it, calls)
		}
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged || r.Status != StatusMaxIter || r.Iter != 3 {
		t.Fatalf("converged %v status %v iter %d", r.Converged, r.Status, r.Iter)
	}
	if calls != 3 {
		t.Errorf("progress called %d times, want 3", calls)
	}
	if !(r.RelPrimalRes > 0 || r.RelDualRes > 0 || r.RelGap > 0) || math.IsNaN(r.RelGap) {
		t.Errorf("residuals not reported: %+v", r)
	}
	full, err := Solve(context.Background(), p, Options{})
	if err != nil || !full.Converged {
		t.Fatalf("full solve: %v", err)
	}
	if full.RelGap > 1e-8 || full.RelGap >= r.RelGap {
		t.Errorf("gap after 3 iterations %g, at convergence %g", r.RelGap, full.RelGap)
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Solve(ctx, svmLike(80, 2), Options{Progress: func(int) {
		n++
		if n == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if n != 2 {
		t.Errorf("progress called %d times after cancel", n)
	}
}

// The multipliers and objective agree with the textbook KKT solution of a
// problem with a known closed form: projecting c onto the simplex.
func TestSimplexProjection(t *testing.T) {
	c := []float64{0.9, 0.5, -0.2, 0.3}
	// Projection: x = max(c − θ, 0) with Σx = 1 → θ = (0.9+0.5+0.3−1)/3 = 0.7/3.
	theta := 0.7 / 3
	want := []float64{0.9 - theta, 0.5 - theta, 0, 0.3 - theta}
	n := len(c)
	q := make([]float64, n)
	for i := range q {
		q[i] = -c[i]
	}
	I := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		I.SetSym(i, i, 1)
	}
	r, err := Solve(context.Background(), &Problem{P: I, Q: q, E: mat.NewDense(1, n, []float64{1, 1, 1, 1}), D: []float64{1},
		Lower: make([]float64, n)}, Options{})
	if err != nil || !r.Converged {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(r.X[i]-want[i]) > 1e-7 {
			t.Errorf("x[%d] = %.10g, want %g", i, r.X[i], want[i])
		}
	}
	// y = θ (stationarity x − c + y − zL = 0 with x > 0), zL[2] = θ − c[2].
	if math.Abs(r.Y[0]-theta) > 1e-7 || math.Abs(r.ZLower[2]-(theta+0.2)) > 1e-7 {
		t.Errorf("y = %g (want %g), zL[2] = %g (want %g)", r.Y[0], theta, r.ZLower[2], theta+0.2)
	}
}

func TestDroppedInfiniteRows(t *testing.T) {
	// Row 0 has b = +Inf (ignored); row 1 is active.
	p := &Problem{P: mat.NewSymDense(1, []float64{1}), Q: []float64{-5}, A: mat.NewDense(2, 1, []float64{1, 1}), B: []float64{inf, 2}}
	r, err := Solve(context.Background(), p, Options{})
	if err != nil || !r.Converged {
		t.Fatal(err)
	}
	if math.Abs(r.X[0]-2) > 1e-7 || r.Z[0] != 0 || math.Abs(r.Z[1]-3) > 1e-6 {
		t.Errorf("x = %g z = %v", r.X[0], r.Z)
	}
}

// For n ≥ 256 Progress is also called inside the factorisations (same
// iteration number, non-decreasing), and cancellation there is prompt.
func TestProgressInsideFactorisation(t *testing.T) {
	p := svmLike(300, 4)
	var iters []int
	r, err := Solve(context.Background(), p, Options{Progress: func(it int) { iters = append(iters, it) }})
	if err != nil || !r.Converged {
		t.Fatal(err)
	}
	for i := 1; i < len(iters); i++ {
		if iters[i] < iters[i-1] || iters[i] > iters[i-1]+1 {
			t.Fatalf("progress sequence not monotone: %v", iters)
		}
	}
	// ⌈300/64⌉ = 5 ticks per factorisation, plus one call per iteration.
	if len(iters) < 5*r.Iter {
		t.Errorf("only %d progress calls for %d iterations", len(iters), r.Iter)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Solve(ctx, p, Options{Progress: func(int) {
		calls++
		if calls == 3 { // inside the convexity check's factorisation
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

// Edge cases with known answers: zero constraint rows, n = 1, all variables
// fixed, and objectives in tiny or huge units (the cost scaling must make the
// stopping test relative, not absolute).
func TestEdgeCases(t *testing.T) {
	I2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	scaled := func(c float64) *Problem {
		return &Problem{P: mat.NewSymDense(2, []float64{c, 0, 0, c}), Q: []float64{2 * c, -3 * c}, Lower: []float64{-1, -1}, Upper: []float64{1, 1}}
	}
	cases := []struct {
		name string
		p    *Problem
		x    []float64
		obj  float64
		err  error
	}{
		{"zero_row_ok", &Problem{P: I2, Q: []float64{1, -1}, A: mat.NewDense(2, 2, []float64{0, 0, 1, 1}), B: []float64{1, 0.5}}, []float64{-1, 1}, -1, nil},
		{"zero_row_bad", &Problem{P: I2, Q: []float64{1, -1}, A: mat.NewDense(2, 2, []float64{0, 0, 1, 1}), B: []float64{-1, 0.5}}, nil, 0, ErrInfeasible},
		{"zero_eq_row_ok", &Problem{P: I2, Q: []float64{1, -1}, E: mat.NewDense(2, 2, []float64{0, 0, 1, 1}), D: []float64{0, 0.5}}, []float64{-0.75, 1.25}, -0.9375, nil},
		{"zero_eq_row_bad", &Problem{P: I2, Q: []float64{1, -1}, E: mat.NewDense(2, 2, []float64{0, 0, 1, 1}), D: []float64{1, 0.5}}, nil, 0, ErrInfeasible},
		{"n1", &Problem{P: mat.NewSymDense(1, []float64{2}), Q: []float64{-4}}, []float64{2}, -4, nil},
		{"n1_lp_box", &Problem{Q: []float64{-4}, Lower: []float64{-1}, Upper: []float64{3}}, []float64{3}, -12, nil},
		{"all_fixed", &Problem{Q: []float64{1, 2}, Lower: []float64{1, 2}, Upper: []float64{1, 2}}, []float64{1, 2}, 5, nil},
		{"all_fixed_ineq_bad", &Problem{Q: []float64{1, 2}, Lower: []float64{1, 2}, Upper: []float64{1, 2}, A: mat.NewDense(1, 2, []float64{1, 1}), B: []float64{2}}, nil, 0, ErrInfeasible},
		// min c(½‖x‖² + 2x₁ − 3x₂) on the box: x = (−1, 1), objective c(1 − 2 − 3) = −4c.
		{"tiny_units", scaled(1e-12), []float64{-1, 1}, -4e-12, nil},
		{"huge_units", scaled(1e12), []float64{-1, 1}, -4e12, nil},
		{"big_finite_bounds", &Problem{P: I2, Q: []float64{1, -1}, Lower: []float64{-1e15, -1e15}, Upper: []float64{1e15, 1e15}}, []float64{-1, 1}, -1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(context.Background(), c.p, Options{})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("want %v, got %v", c.err, err)
				}
				return
			}
			if err != nil || !r.Converged {
				t.Fatalf("err %v converged %v", err, r != nil && r.Converged)
			}
			if rel := math.Abs(r.Obj-c.obj) / math.Abs(c.obj); rel > 1e-8 {
				t.Errorf("obj %.12g, want %.12g (rel %.2g)", r.Obj, c.obj, rel)
			}
			for i := range c.x {
				if math.Abs(r.X[i]-c.x[i]) > 1e-6 {
					t.Errorf("x = %v, want %v", r.X, c.x)
					break
				}
			}
			if pr, du, co := kktCheck(c.p, r); pr > 1e-8 || du > 1e-7 || co > 1e-7*math.Abs(c.obj) {
				t.Errorf("KKT %.2g %.2g %.2g", pr, du, co)
			}
		})
	}
}
