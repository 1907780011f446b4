package all

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
)

// TestMemoryBudgetRefusesBeforeAllocating: with a budget, a fit whose
// estimated peak exceeds it is refused with a *ResourceError that says
// what, how much and how to proceed — before anything of size n² exists
// (issue 29: GPC on 40 000 rows asked for a 12.8 GB block). Every model
// with an n² structure is refused on 40 000 rows within 1 GiB; the same
// budget lets a small fit run.
func TestMemoryBudgetRefusesBeforeAllocating(t *testing.T) {
	const n = 40000
	big := &data.Dataset{X: mat.NewDense(n, 2, nil), Z: mat.NewDense(n, 2, nil), Y: make([]int, n), Classes: []string{"a", "b"},
		Tags: mat.NewDense(n, 2, nil), Kind: data.KindTwoView}
	for i := 0; i < n; i++ {
		big.X.Set(i, 0, float64(i%97)/97)
		big.X.Set(i, 1, float64(i%89)/89)
		big.Z.Set(i, 0, float64(i%83)/83)
		big.Z.Set(i, 1, float64(i%79)/79)
		big.Y[i] = i % 2
		big.Tags.Set(i, i%2, 1)
	}
	const budget = 1 << 30
	for _, s := range model.All() {
		est := s.Estimate(model.ShapeOf(s.Spec, big), s.Defaults())
		if !est.Known {
			t.Errorf("%s: no cost estimate", s.ID)
			continue
		}
		if est.Bytes <= budget {
			continue // a cache-bounded model (SVMs): it would run
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := s.Fit(context.Background(), big, s.Defaults(), model.Options{MemoryBudget: budget})
		runtime.ReadMemStats(&after)
		var re *model.ResourceError
		if !errors.As(err, &re) {
			t.Errorf("%s on %d rows (estimated %s) with a 1 GiB budget: %v, want a ResourceError", s.ID, n, est, err)
			continue
		}
		msg := err.Error()
		for _, want := range []string{s.Name, "40000 rows", "more than the 1.0 GB allowed", "sub-sample", "rows fit"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", s.ID, msg, want)
			}
		}
		if re.FitRows() <= 0 || re.FitRows() >= n || s.Estimate(spec.Shape{Rows: re.FitRows(), Dim: 2, ZDim: model.ShapeOf(s.Spec, big).ZDim, Classes: 2, Tags: 2}, s.Defaults()).Bytes > budget {
			t.Errorf("%s: %d rows said to fit", s.ID, re.FitRows())
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: allocated %d MB before refusing", s.ID, grew>>20)
		}
	}
	small, err := data.GenerateByName("lupi2d", 40, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	gpc, _ := model.Lookup("gpc")
	v := gpc.Defaults()
	v["optimize"] = "false"
	if _, err := gpc.Fit(context.Background(), small, v, model.Options{MemoryBudget: budget}); err != nil {
		t.Errorf("a small fit within the budget: %v", err)
	}
}

// TestHugeValuesGetAUserMessage: features whose squares overflow (issue
// 29: 1e308 gave "smo: Q[3][3] = NaN is not finite") are refused by every
// model with a message that names the row and column and says what to do.
func TestHugeValuesGetAUserMessage(t *testing.T) {
	for _, s := range model.All() {
		ds, err := data.GenerateByName(run.DefaultGenerator(s), 30, 0.2, 1)
		if err != nil {
			t.Fatal(err)
		}
		ds.X.Set(3, 1, 1e308)
		_, err = s.Fit(context.Background(), ds, s.Defaults(), model.Options{})
		if err == nil || !strings.Contains(err.Error(), "row 4") || !strings.Contains(err.Error(), "too large for the kernels") || !strings.Contains(err.Error(), "-scale") {
			t.Errorf("%s with 1e308: %v", s.ID, err)
		}
	}
}

// TestNonFiniteReportIsAnError: a fit whose report holds a NaN or an
// infinity ends in an error that names the quantity (never a result that
// JSON cannot hold: issue 29's "json: unsupported value: NaN").
func TestNonFiniteReportIsAnError(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 40, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := model.Lookup("gpcplus")
	v := s.Defaults()
	v["gamplitude"], v["optimize"] = "1e4", "false"
	f, err := s.Fit(context.Background(), ds, v, model.Options{})
	if err == nil {
		if r := f.Report(); r != nil {
			for k, x := range r.Extras {
				if x != x || x > 1e308 || x < -1e308 {
					t.Errorf("gpcplus with gamplitude = 1e4 reported %s = %v", k, x)
				}
			}
		}
		return
	}
	if !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), "numerically extreme") {
		t.Errorf("gpcplus with gamplitude = 1e4: %v", err)
	}
}

// TestMCPKNonFiniteObjective: MCPK on data whose linear kernel makes its
// objective overflow ends in a clear error — issue 29 saw "qp: invalid
// problem: tolerances must be > 0" (a NaN tolerance for the next step).
func TestMCPKNonFiniteObjective(t *testing.T) {
	ds, err := data.GenerateByName("twoview2d", 20, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ds.X.Scale(1e100, ds.X)
	ds.Z.Scale(1e100, ds.Z)
	s, _ := model.Lookup("mcpk")
	v := s.Defaults()
	v["kernel"], v["zkernel"] = "linear", "linear"
	_, err = s.Fit(context.Background(), ds, v, model.Options{})
	if err == nil || strings.Contains(err.Error(), "qp:") || !strings.Contains(err.Error(), "non-finite objective") {
		t.Errorf("MCPK on features near 1e100: %v", err)
	}
}
