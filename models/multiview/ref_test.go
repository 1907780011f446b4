package multiview

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/internal/fixture"
	"lupilab/models/model"
)

// MvTSVM and MCPK against references written from the papers alone
// (testdata/ref_mvtsvm_mcpk.py, without our code): MvTSVM's primal pair
// (Xie & Sun 2015, kernel version, ridge r) and MCPK's primal (Tang et al.
// 2019, as paper 001 restates PSVM-2V/MCPK), with the slacks eliminated,
// solved by cvxopt and then exactly on the active set (ref_pwlqp.py, a
// certified optimum); MvTSVM's dual solved by cvxopt too (its optimum is
// minus the primal's to 1e-9 in the fixture).

type refMVData struct {
	XA [][]float64 `json:"x_a"`
	XB [][]float64 `json:"x_b"`
	Y  []float64   `json:"y"`
	TA [][]float64 `json:"t_a"`
	TB [][]float64 `json:"t_b"`
}

func (r refMVData) datasets() (train, test *data.Dataset) {
	y := make([]int, len(r.Y))
	for i, v := range r.Y {
		if v > 0 {
			y[i] = 1
		}
	}
	train = &data.Dataset{Name: "ref", Kind: data.KindTwoView, X: rows(r.XA), Z: rows(r.XB), Y: y, Classes: []string{"-1", "+1"}}
	test = &data.Dataset{Name: "ref-test", Kind: data.KindTwoView, X: rows(r.TA), Z: rows(r.TB)}
	return train, test
}

// refWorst is max |got − want|/max(1, |want|) (+Inf for a length mismatch
// or an empty reference: a fixture field that did not load).
func refWorst(got, want []float64) float64 {
	if len(want) == 0 || len(got) != len(want) {
		return math.Inf(1)
	}
	w := 0.0
	for i := range want {
		d := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
		if d > w || math.IsNaN(d) {
			w = d
		}
	}
	return w
}

func refValues(p map[string]float64, extra model.Values) model.Values {
	v := model.Values{}
	for k, x := range p {
		v[k] = ftoa(x)
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

type refMvTSVM struct {
	refMVData
	Cases []struct {
		Params          map[string]float64
		ObjectivePrimal []float64 `json:"objective_primal"`
		ObjectiveDual   []float64 `json:"objective_dual"`
		TestPosA        []float64 `json:"test_pos_A"`
		TestPosB        []float64 `json:"test_pos_B"`
		TestNegA        []float64 `json:"test_neg_A"`
		TestNegB        []float64 `json:"test_neg_B"`
		NormPosA        float64   `json:"norm_u_pos_A"`
		NormPosB        float64   `json:"norm_u_pos_B"`
		NormNegA        float64   `json:"norm_u_neg_A"`
		NormNegB        float64   `json:"norm_u_neg_B"`
	}
}

// planeValues returns K(x, C)·coef + bias of a plane of a view.
func planeValues(v *twinView, p twinPlane, X *mat.Dense) []float64 {
	K := v.Kernel.Cross(X, v.x)
	r, _ := K.Dims()
	out := make([]float64, r)
	for i := range out {
		out[i] = mat.Dot(K.RowView(i), mat.NewVecDense(len(p.Coef), p.Coef)) + p.Bias
	}
	return out
}

// TestMvTSVMObjectiveAgainstReference: our objective (the dual optimum in
// minimisation form, summed over the two problems) is minus the sum of the
// certified primal optima, to 1e-6 relative.
func TestMvTSVMObjectiveAgainstReference(t *testing.T) {
	var ref refMvTSVM
	fixture.ReadJSON(t, "testdata/ref_mvtsvm.json", &ref)
	train, _ := ref.datasets()
	for _, c := range ref.Cases {
		f := fit(t, "mvtsvm", train, refValues(c.Params, nil))
		want := -(c.ObjectivePrimal[0] + c.ObjectivePrimal[1])
		got := f.Report().Objective
		d := math.Abs(got-want) / math.Max(1, math.Abs(want))
		if d > 1e-6 {
			t.Errorf("%v: objective %.12g, reference %.12g", c.Params, got, want)
		}
		t.Logf("%v: |Δ objective| %.1e (relative)", c.Params, d)
	}
}

// TestMvTSVMPlanesAgainstReference: the four planes' values K(x, C)u + b on
// test rows and their norms ‖u‖, and the per-view decisions
// f_t = |K u₋ + b₋|/‖u₋‖ − |K u₊ + b₊|/‖u₊‖ and the combined ½(f_A + f_B),
// equal the certified optimum's to 1e-6 (relative to max(1, |value|)).
func TestMvTSVMPlanesAgainstReference(t *testing.T) {
	var ref refMvTSVM
	fixture.ReadJSON(t, "testdata/ref_mvtsvm.json", &ref)
	train, test := ref.datasets()
	const tol = 1e-6
	for _, c := range ref.Cases {
		f := fit(t, "mvtsvm", train, refValues(c.Params, nil))
		m := f.(*model.Classifier).Models[0].(*mvtsvmModel)
		worst := 0.0
		for _, q := range []struct {
			name  string
			view  *twinView
			plane twinPlane
			X     *mat.Dense
			want  []float64
			norm  float64
		}{{"A+", m.A, m.A.Pos, test.X, c.TestPosA, c.NormPosA}, {"A−", m.A, m.A.Neg, test.X, c.TestNegA, c.NormNegA},
			{"B+", m.B, m.B.Pos, test.Z, c.TestPosB, c.NormPosB}, {"B−", m.B, m.B.Neg, test.Z, c.TestNegB, c.NormNegB}} {
			d := refWorst(planeValues(q.view, q.plane, q.X), q.want)
			dn := math.Abs(q.plane.Norm-q.norm) / math.Max(1, q.norm)
			worst = math.Max(worst, math.Max(d, dn))
			if d > tol || dn > tol {
				t.Errorf("%v: plane %s: test values differ by %.2g, ‖u‖ %.10g vs %.10g", c.Params, q.name, d, q.plane.Norm, q.norm)
			}
		}
		p, err := f.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		n := len(c.TestPosA)
		fa, fb, both := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			fa[i] = math.Abs(c.TestNegA[i])/c.NormNegA - math.Abs(c.TestPosA[i])/c.NormPosA
			fb[i] = math.Abs(c.TestNegB[i])/c.NormNegB - math.Abs(c.TestPosB[i])/c.NormPosB
			both[i] = 0.5 * (fa[i] + fb[i])
		}
		dv := math.Max(refWorst(p.Views["A"], fa), math.Max(refWorst(p.Views["B"], fb), refWorst(p.Decision, both)))
		if dv > tol {
			t.Errorf("%v: decisions differ by %.2g", c.Params, dv)
		}
		t.Logf("%v: planes %.1e, decisions %.1e", c.Params, worst, dv)
	}
}
