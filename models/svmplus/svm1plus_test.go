package svmplus

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/solver/qp"
)

// svm1Primal solves SVM1+'s primal, paper 000 eq (1) with linear kernels,
//
//	min ½‖w‖² + C·Σξᵢ + (λ/2)‖v‖²  s.t.  ξᵢ = zᵢᵀv + ρ,  yᵢ(wᵀxᵢ + b) ≥ 1 − ξᵢ,  ξᵢ ≥ 0,
//
// with the dense interior-point solver, ξ substituted: variables
// (w, b, v, ρ), P = diag(I, 0, λI, 0), q = (0, 0, C·Σzᵢ, C·n), and 2n rows
// −yᵢ(wᵀxᵢ + b) − (zᵢᵀv + ρ) ≤ −1, −(zᵢᵀv + ρ) ≤ 0. It returns w, b, the
// slacks ξ and the optimal value.
func svm1Primal(t *testing.T, X, Z *mat.Dense, y []float64, C, lambda float64) (w []float64, b float64, xi []float64, obj float64) {
	t.Helper()
	n, d := X.Dims()
	_, s := Z.Dims()
	nv := d + 1 + s + 1
	ib, iv, ir := d, d+1, d+1+s // offsets of b, v, ρ
	P := mat.NewSymDense(nv, nil)
	q := make([]float64, nv)
	for j := 0; j < d; j++ {
		P.SetSym(j, j, 1)
	}
	for j := 0; j < s; j++ {
		P.SetSym(iv+j, iv+j, lambda)
	}
	A := mat.NewDense(2*n, nv, nil)
	bb := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			A.Set(i, j, -y[i]*X.At(i, j))
		}
		A.Set(i, ib, -y[i])
		for j := 0; j < s; j++ {
			A.Set(i, iv+j, -Z.At(i, j))
			A.Set(n+i, iv+j, -Z.At(i, j))
			q[iv+j] += C * Z.At(i, j)
		}
		A.Set(i, ir, -1)
		A.Set(n+i, ir, -1)
		q[ir] += C
		bb[i] = -1
	}
	r, err := qp.Solve(context.Background(), &qp.Problem{P: P, Q: q, A: A, B: bb}, qp.Options{Tol: 1e-11, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged {
		t.Fatalf("primal QP: status %v after %d iterations (relative residuals %g, %g, gap %g)", r.Status, r.Iter, r.RelPrimalRes, r.RelDualRes, r.RelGap)
	}
	xi = make([]float64, n)
	for i := range xi {
		xi[i] = r.X[ir]
		for j := 0; j < s; j++ {
			xi[i] += Z.At(i, j) * r.X[iv+j]
		}
	}
	return r.X[:d], r.X[ib], xi, r.Obj
}

// TestSVM1PlusPrimal checks SVM1+ (dual (2) by the generalised SMO, through
// the registry) against its primal, eq (1), solved independently by the
// dense interior-point QP solver, with linear kernels on small random
// problems: the slacks ξᵢ = g(zᵢ) of the report (the diagnostic the UI
// draws), the decision values on the training and on fresh points, and the
// objective (dual = −primal) must agree. SVM1+ stops at a KKT violation of
// 1e-10 and the QP at 1e-11 relative; ξ and f (of order 1) must agree to
// 1e-8 absolute (they differ by ≤ 1.1e-9 at commit time), the objective to
// 1e-10 relative. The data make the slacks predictable from z; C/λ spans
// 10⁻¹ to 10³, and every case is non-degenerate (‖w‖² ≥ 0.01, slacks up to
// about 1–2), which the test asserts: with w = 0 (a frequent optimum of
// SVM1+ with linear kernels) the decision values would test little.
func TestSVM1PlusPrimal(t *testing.T) {
	spec, err := model.Lookup("svm1plus")
	if err != nil {
		t.Fatal(err)
	}
	for ci, cl := range [][2]float64{{1, 1}, {10, 3}, {3, 0.1}, {0.1, 0.1}, {0.3, 10}, {100, 1}, {1, 30}} {
		C, lambda := cl[0], cl[1]
		r := rand.New(rand.NewPCG(5, uint64(ci)))
		n := 40
		X, Z := mat.NewDense(n, 2, nil), mat.NewDense(n, 3, nil)
		y := make([]float64, n)
		ds := &data.Dataset{Name: "random", Kind: data.KindLUPI, X: X, Z: Z, Classes: bin("neg", "pos"), Y: make([]int, n)}
		for i := 0; i < n; i++ {
			// y at random; the privileged h says how far xᵢ is pushed
			// towards (or across) the boundary, so that a correcting
			// function of z can predict the slacks.
			y[i] = 1
			if r.IntN(2) == 0 {
				y[i] = -1
			}
			h := 2 * r.Float64()
			X.Set(i, 0, y[i]*(1.5-h)+0.3*r.NormFloat64())
			X.Set(i, 1, r.NormFloat64())
			Z.Set(i, 0, h)
			Z.Set(i, 1, r.NormFloat64())
			Z.Set(i, 2, r.NormFloat64())
			if y[i] > 0 {
				ds.Y[i] = 1
			}
		}
		Xt := mat.NewDense(10, 2, nil)
		for i := 0; i < 10; i++ {
			Xt.Set(i, 0, 2*r.NormFloat64())
			Xt.Set(i, 1, 2*r.NormFloat64())
		}
		w, b, xi, obj := svm1Primal(t, X, Z, y, C, lambda)
		if w2 := w[0]*w[0] + w[1]*w[1]; w2 < 1e-2 {
			t.Fatalf("case %d: degenerate primal solution (‖w‖² = %g)", ci, w2)
		}
		v, err := spec.Resolve(model.Values{"C": ftoa(C), "lambda": ftoa(lambda), "kernel": "linear", "zkernel": "linear", "eps": "1e-10"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := spec.Fit(context.Background(), ds, v, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep := f.Report()
		if !rep.Converged {
			t.Fatalf("case %d: SVM1+ did not converge (%v)", ci, rep.Warnings)
		}
		if !closeRel(rep.Objective, -obj, 1e-10) {
			t.Errorf("case %d: dual objective %.12g, primal (qp) %.12g", ci, rep.Objective, -obj)
		}
		slack := rep.Diagnostics["slack"]
		if len(slack) != n {
			t.Fatalf("case %d: %d slacks for %d samples", ci, len(slack), n)
		}
		var smax, dmax float64
		for i, s := range slack {
			smax = math.Max(smax, s)
			dmax = math.Max(dmax, math.Abs(s-xi[i]))
			if math.Abs(s-xi[i]) > 1e-8 {
				t.Errorf("case %d: slack[%d] = %.10g, primal ξ = %.10g", ci, i, s, xi[i])
			}
		}
		if smax < 0.1 {
			t.Fatalf("case %d: all slacks below %g: not a test of them", ci, smax)
		}
		for name, Xe := range map[string]*mat.Dense{"training": X, "fresh": Xt} {
			p, err := f.Predict(&data.Dataset{X: Xe})
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range p.Decision {
				want := b + w[0]*Xe.At(i, 0) + w[1]*Xe.At(i, 1)
				dmax = math.Max(dmax, math.Abs(got-want))
				if math.Abs(got-want) > 1e-8 {
					t.Errorf("case %d: decision on %s point %d = %.10g, primal %.10g", ci, name, i, got, want)
				}
			}
		}
		t.Logf("case %d (C=%g λ=%g): primal %.10g, ‖w‖² %.4g, b %.6g, max ξ %.4g; largest difference in ξ and f %.2g, in the objective %.2g relative", ci, C, lambda, obj, w[0]*w[0]+w[1]*w[1], b, smax, dmax, math.Abs(rep.Objective+obj)/math.Abs(obj))
	}
}
