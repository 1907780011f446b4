package qp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	testfix "lupilab/models/internal/fixture"
)

// fixture is one problem of testdata/cvxopt_fixtures.json, written by
// testdata/make_fixtures.py (cvxopt.solvers.qp at tolerance ≤ 1e-10).
type fixture struct {
	Name      string     `json:"name"`
	N         int        `json:"n"`
	P         []float64  `json:"P"`
	Q         []float64  `json:"q"`
	A         []float64  `json:"A"`
	B         []float64  `json:"b"`
	E         []float64  `json:"E"`
	D         []float64  `json:"d"`
	Lower     []*float64 `json:"lower"`
	Upper     []*float64 `json:"upper"`
	X         []float64  `json:"x"`
	Obj       float64    `json:"obj"`
	Status    string     `json:"status"`
	Unique    bool       `json:"unique"`
	CvxoptTol float64    `json:"cvxopt_tol"`
	SVM       *struct {
		X      []float64 `json:"X"`
		Y      []float64 `json:"y"`
		Kernel string    `json:"kernel"`
		C      float64   `json:"C"`
	} `json:"svm"`
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	var f struct {
		Cases []fixture `json:"cases"`
	}
	testfix.ReadJSON(t, "testdata/cvxopt_fixtures.json", &f)
	if len(f.Cases) < 20 {
		t.Fatalf("only %d fixtures", len(f.Cases))
	}
	return f.Cases
}

func (f *fixture) problem() *Problem {
	n := f.N
	p := &Problem{Q: f.Q}
	if f.P != nil {
		p.P = mat.NewSymDense(n, f.P)
	}
	if f.A != nil {
		p.A = mat.NewDense(len(f.B), n, f.A)
		p.B = f.B
	}
	if f.E != nil {
		p.E = mat.NewDense(len(f.D), n, f.D2())
		p.D = f.D
	}
	dec := func(v []*float64, inf float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(v))
		for i, x := range v {
			if x == nil {
				out[i] = inf
			} else {
				out[i] = *x
			}
		}
		return out
	}
	p.Lower = dec(f.Lower, math.Inf(-1))
	p.Upper = dec(f.Upper, math.Inf(1))
	return p
}

// D2 returns the equality matrix data.
func (f *fixture) D2() []float64 { return f.E }

// kktCheck verifies the optimality conditions of r for p independently of
// the solver's own residual bookkeeping and returns the worst relative
// violation: primal feasibility, stationarity, dual signs, complementarity.
func kktCheck(p *Problem, r *Result) (primal, dual, compl float64) {
	n := len(p.Q)
	x := mat.NewVecDense(n, r.X)
	grad := mat.NewVecDense(n, append([]float64(nil), p.Q...))
	if p.P != nil {
		var px mat.VecDense
		px.MulVec(p.P, x)
		grad.AddVec(grad, &px)
	}
	scale := 1 + mat.Norm(grad, math.Inf(1))
	if p.A != nil {
		m, _ := p.A.Dims()
		var ax mat.VecDense
		ax.MulVec(p.A, x)
		for i := 0; i < m; i++ {
			primal = math.Max(primal, (ax.AtVec(i)-p.B[i])/(1+math.Abs(p.B[i])))
			dual = math.Max(dual, -r.Z[i])
			compl = math.Max(compl, math.Abs(r.Z[i]*(p.B[i]-ax.AtVec(i)))/scale)
		}
		var atz mat.VecDense
		atz.MulVec(p.A.T(), mat.NewVecDense(m, r.Z))
		grad.AddVec(grad, &atz)
	}
	if p.E != nil {
		m, _ := p.E.Dims()
		var ex mat.VecDense
		ex.MulVec(p.E, x)
		for i := 0; i < m; i++ {
			primal = math.Max(primal, math.Abs(ex.AtVec(i)-p.D[i])/(1+math.Abs(p.D[i])))
		}
		var ety mat.VecDense
		ety.MulVec(p.E.T(), mat.NewVecDense(m, r.Y))
		grad.AddVec(grad, &ety)
	}
	for i := 0; i < n; i++ {
		g := grad.AtVec(i) - r.ZLower[i] + r.ZUpper[i]
		grad.SetVec(i, g)
		dual = math.Max(dual, math.Max(-r.ZLower[i], -r.ZUpper[i]))
		if p.Lower != nil && !math.IsInf(p.Lower[i], -1) {
			primal = math.Max(primal, (p.Lower[i]-r.X[i])/(1+math.Abs(p.Lower[i])))
			compl = math.Max(compl, math.Abs(r.ZLower[i]*(r.X[i]-p.Lower[i]))/scale)
		} else if r.ZLower[i] != 0 {
			dual = math.Inf(1)
		}
		if p.Upper != nil && !math.IsInf(p.Upper[i], 1) {
			primal = math.Max(primal, (r.X[i]-p.Upper[i])/(1+math.Abs(p.Upper[i])))
			compl = math.Max(compl, math.Abs(r.ZUpper[i]*(p.Upper[i]-r.X[i]))/scale)
		} else if r.ZUpper[i] != 0 {
			dual = math.Inf(1)
		}
	}
	dual = math.Max(dual, mat.Norm(grad, math.Inf(1))/scale)
	return primal, dual, compl
}

// TestCvxoptFixtures solves every fixture at the default tolerance (objective
// within 1e-6, x within 1e-5 relative where unique) and at Tol = 1e-11
// (objective within 1e-9, x within 1e-6), and checks the KKT conditions.
func TestCvxoptFixtures(t *testing.T) {
	for _, c := range []struct {
		name        string
		tol, obj, x float64
	}{{"default", 0, 1e-6, 1e-5}, {"tight", 1e-11, 1e-9, 1e-6}} {
		t.Run(c.name, func(t *testing.T) { testFixtures(t, c.tol, c.obj, c.x) })
	}
}

func testFixtures(t *testing.T, fixtureTol, objTol, xTol float64) {
	var worstObj, worstX float64
	for _, f := range loadFixtures(t) {
		f := f
		t.Run(f.Name, func(t *testing.T) {
			if f.Status != "optimal" {
				t.Fatalf("fixture not solved to optimality by cvxopt: %s", f.Status)
			}
			p := f.problem()
			r, err := Solve(context.Background(), p, Options{Tol: fixtureTol})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("not converged: %v after %d iterations (relP %.3g relD %.3g gap %.3g)", r.Status, r.Iter, r.RelPrimalRes, r.RelDualRes, r.RelGap)
			}
			relObj := math.Abs(r.Obj-f.Obj) / math.Max(1, math.Abs(f.Obj))
			worstObj = math.Max(worstObj, relObj)
			if relObj > objTol {
				t.Errorf("objective %.12g, cvxopt %.12g (rel err %.3g)", r.Obj, f.Obj, relObj)
			}
			if f.Unique {
				d := 0.0
				nx := 0.0
				for i := range r.X {
					d = math.Max(d, math.Abs(r.X[i]-f.X[i]))
					nx = math.Max(nx, math.Abs(f.X[i]))
				}
				relX := d / math.Max(1, nx)
				worstX = math.Max(worstX, relX)
				if relX > xTol {
					t.Errorf("‖x − x_cvxopt‖∞ = %.3g (rel %.3g)", d, relX)
				}
			}
			pr, du, co := kktCheck(p, r)
			if pr > 1e-7 || du > 1e-7 || co > 1e-7 {
				t.Errorf("KKT violations: primal %.3g dual %.3g complementarity %.3g", pr, du, co)
			}
			// Our objective must not beat cvxopt's by more than the
			// feasibility tolerance allows (and vice versa): both are
			// feasible to ~1e-8, so a lower objective is a bug signal.
			t.Logf("n=%d iter=%d obj=%.12g cvxopt=%.12g relerr=%.2g kkt=(%.1g,%.1g,%.1g)", f.N, r.Iter, r.Obj, f.Obj, relObj, pr, du, co)
		})
	}
	t.Logf("max relative objective error vs cvxopt: %.3g; max relative x error (unique cases): %.3g", worstObj, worstX)
}

// TestSVMDualStrongDuality checks the SVM-dual fixtures by an independent
// route: from the dual solution α build the primal SVM (w via the kernel,
// b from the free support vectors) and check that the primal hinge objective
// ½‖w‖² + CΣ max(0, 1 − yᵢf(xᵢ)) equals minus the dual objective.
func TestSVMDualStrongDuality(t *testing.T) {
	for _, f := range loadFixtures(t) {
		if f.SVM == nil {
			continue
		}
		f := f
		t.Run(f.Name, func(t *testing.T) {
			n := f.N
			r, err := Solve(context.Background(), f.problem(), Options{})
			if err != nil || !r.Converged {
				t.Fatalf("solve: %v, converged %v", err, r != nil && r.Converged)
			}
			X, y, C := f.SVM.X, f.SVM.Y, f.SVM.C
			kern := func(i, j int) float64 {
				a, b := X[2*i:2*i+2], X[2*j:2*j+2]
				if f.SVM.Kernel == "linear" {
					return a[0]*b[0] + a[1]*b[1]
				}
				dx, dy := a[0]-b[0], a[1]-b[1]
				return math.Exp(-0.5 * (dx*dx + dy*dy))
			}
			g := make([]float64, n) // g_i = Σ_j α_j y_j K(x_j, x_i)
			wNorm2 := 0.0
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					g[i] += r.X[j] * y[j] * kern(j, i)
				}
				wNorm2 += r.X[i] * y[i] * g[i]
			}
			// b is the multiplier of yᵀα = 0 (stationarity for a free αᵢ:
			// yᵢgᵢ − 1 + yᵢY = 0 ⇒ yᵢ(gᵢ + Y) = 1, so f = g + Y).
			b := r.Y[0]
			hinge := 0.0
			for i := 0; i < n; i++ {
				hinge += math.Max(0, 1-y[i]*(g[i]+b))
			}
			primal := 0.5*wNorm2 + C*hinge
			if rel := math.Abs(primal+r.Obj) / math.Abs(r.Obj); rel > 1e-6 {
				t.Errorf("primal SVM objective %.10g vs −dual %.10g (rel %.3g)", primal, -r.Obj, rel)
			}
			// Free support vectors lie on the margin.
			for i := 0; i < n; i++ {
				if r.X[i] > 1e-4*C && r.X[i] < (1-1e-4)*C {
					if m := y[i] * (g[i] + b); math.Abs(m-1) > 1e-5 {
						t.Errorf("free SV %d has margin %.8g, want 1", i, m)
					}
				}
			}
		})
	}
}
