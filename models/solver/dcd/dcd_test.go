package dcd

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/qp"
)

// randomBoxQP returns a PSD Q = GGᵀ (rank r, so possibly singular), p and
// finite / infinite upper bounds.
func randomBoxQP(rng *rand.Rand, n, r int, inf bool) *Problem {
	g := mat.NewDense(n, r, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	q := mat.NewSymDense(n, nil)
	q.SymOuterK(1, g)
	p := make([]float64, n)
	up := make([]float64, n)
	for i := range p {
		p[i] = rng.NormFloat64()
		up[i] = 0.5 + rng.Float64()
		if inf && i%3 == 0 {
			up[i] = math.Inf(1)
		}
	}
	return &Problem{Q: q, P: p, Upper: up}
}

// Compare with the dense interior-point solver on random box QPs (full rank
// and singular Q).
func TestAgainstQP(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 12; trial++ {
		n := 5 + rng.Intn(40)
		r := n
		if trial%2 == 1 {
			r = 1 + n/3
		}
		pr := randomBoxQP(rng, n, r, trial%3 == 0 && r == n)
		res, err := Solve(context.Background(), pr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged || res.Violation > 1e-8 {
			t.Fatalf("trial %d: not converged (violation %g)", trial, res.Violation)
		}
		lo := make([]float64, n)
		ref, err := qp.Solve(context.Background(), &qp.Problem{P: pr.Q, Q: pr.P, Lower: lo, Upper: pr.Upper}, qp.Options{})
		if err != nil {
			t.Fatalf("trial %d: qp: %v", trial, err)
		}
		if d := math.Abs(res.Obj - ref.Obj); d > 1e-6*(1+math.Abs(ref.Obj)) {
			t.Errorf("trial %d (n=%d rank %d): objective %v, qp.Solve %v", trial, n, r, res.Obj, ref.Obj)
		}
		if r == n { // strictly convex: unique minimiser
			for i := range ref.X {
				if math.Abs(res.X[i]-ref.X[i]) > 1e-5 {
					t.Errorf("trial %d: x[%d] = %v, qp.Solve %v", trial, i, res.X[i], ref.X[i])
					break
				}
			}
		}
	}
}

// The returned point satisfies the box KKT conditions, recomputed here from
// scratch (gradient Qx + p).
func TestKKTFromScratch(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	pr := randomBoxQP(rng, 60, 20, false)
	for _, polish := range []bool{false, true} {
		res, err := Solve(context.Background(), pr, Options{NoPolish: !polish})
		if err != nil {
			t.Fatal(err)
		}
		g := mat.NewVecDense(60, nil)
		g.MulVec(pr.Q, mat.NewVecDense(60, res.X))
		for i := 0; i < 60; i++ {
			gi := g.AtVec(i) + pr.P[i]
			x := res.X[i]
			if x < -1e-15 || x > pr.Upper[i]+1e-15 {
				t.Fatalf("x[%d] = %v outside [0, %v]", i, x, pr.Upper[i])
			}
			switch {
			case x > 1e-12 && x < pr.Upper[i]-1e-12 && math.Abs(gi) > 1e-7:
				t.Errorf("free x[%d] has gradient %v", i, gi)
			case x <= 1e-12 && gi < -1e-7:
				t.Errorf("x[%d] at 0 with gradient %v < 0", i, gi)
			case x >= pr.Upper[i]-1e-12 && gi > 1e-7:
				t.Errorf("x[%d] at its upper bound with gradient %v > 0", i, gi)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	q := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	if _, err := Solve(context.Background(), &Problem{Q: q, P: []float64{0, 0}}, Options{}); !errors.Is(err, ErrNotConvex) {
		t.Errorf("negative diagonal: %v", err)
	}
	q = mat.NewSymDense(2, []float64{1, 0, 0, 0})
	if _, err := Solve(context.Background(), &Problem{Q: q, P: []float64{0, -1}}, Options{}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("zero curvature, infinite bound: %v", err)
	}
	if _, err := Solve(context.Background(), &Problem{Q: q, P: []float64{0}}, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("bad dims: %v", err)
	}
	if _, err := Solve(context.Background(), &Problem{Q: q, P: []float64{0, math.NaN()}}, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("NaN p: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pr := randomBoxQP(rand.New(rand.NewSource(1)), 30, 30, false)
	if _, err := Solve(ctx, pr, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
