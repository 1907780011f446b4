package viz_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	_ "lupilab/models/svm"
	_ "lupilab/models/svmplus"
	"lupilab/models/viz"
)

func fit(t testing.TB, id string, ds *data.Dataset, set map[string]string) model.Fitted {
	t.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	v := spec.Defaults()
	for k, x := range set {
		v[k] = x
	}
	f, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The factorised grid (kernel.Expansion.OnGrid) must give the decision
// values and labels of point-by-point prediction, for RBF and linear SVMs,
// binary and multi-class (one-vs-rest, one-vs-one), and for SVM2+.
func TestFastGridMatchesPointwise(t *testing.T) {
	moons, _ := data.GenerateByName("moons", 300, 0.3, 1)
	blobs, _ := data.GenerateByName("blobs", 300, 0.5, 2)
	lupi, _ := data.GenerateByName("lupi2d", 200, 0.3, 3)
	cases := []struct {
		name, id string
		ds       *data.Dataset
		set      map[string]string
	}{
		{"rbf binary", "svm", moons, map[string]string{"C": "10", "gamma": "2"}},
		{"linear binary", "svm", moons, map[string]string{"kernel": "linear"}},
		{"rbf ovr", "svm", blobs, map[string]string{"gamma": "0.5"}},
		{"rbf ovo", "svm", blobs, map[string]string{"multiclass": "ovo"}},
		{"l2svm", "l2svm", moons, nil},
		{"svm2plus", "svm2plus", lupi, nil},
		{"svm1plus", "svm1plus", lupi, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fit(t, c.id, c.ds, c.set)
			if !viz.FastGrid(f) {
				t.Fatal("no fast grid for a kernel expansion")
			}
			g, err := viz.BoundsOf(57, 43, 0.1, c.ds.X)
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := model.Lookup(c.id)
			s, err := viz.Evaluate(f, spec, g, c.ds.Classes, func() {})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := f.Predict(&data.Dataset{X: g.Points(), Classes: c.ds.Classes})
			if err != nil {
				t.Fatal(err)
			}
			scale := 0.0
			for _, v := range ref.Decision {
				scale = math.Max(scale, math.Abs(v))
			}
			worst := 0.0
			for i, v := range ref.Decision {
				worst = math.Max(worst, math.Abs(s.Value[i]-v))
				if s.Labels[i] != ref.Labels[i] && math.Abs(v) > 1e-9*scale {
					t.Fatalf("pixel %d: label %d, point by point %d (decision %g)", i, s.Labels[i], ref.Labels[i], v)
				}
			}
			if worst > 1e-12*math.Max(1, scale) {
				t.Errorf("largest difference %.3g (scale %.3g)", worst, scale)
			}
		})
	}
}

// Models whose grid needs more than decision values keep the point-by-point
// path: probability outputs and more than two features.
func TestFastGridDeclines(t *testing.T) {
	moons, _ := data.GenerateByName("moons", 120, 0.3, 1)
	if viz.FastGrid(fit(t, "svm", moons, map[string]string{"probability": "true"})) {
		t.Error("fast grid for a probabilistic SVM")
	}
	if viz.FastGrid(fit(t, "svm", moons, map[string]string{"kernel": "poly"})) {
		t.Error("fast grid for a polynomial kernel")
	}
	wide, _ := data.GenerateByName("blobs", 120, 0.5, 1)
	var four mat.Dense
	four.Augment(wide.X, wide.X) // four features
	wide.X, wide.XNames = &four, nil
	if viz.FastGrid(fit(t, "svm", wide, nil)) {
		t.Error("fast grid for four features")
	}
}

// BenchmarkGrid200 evaluates a ~200-support-vector RBF SVM on a 200×200
// grid, by the factorised expansion and point by point.
func BenchmarkGrid200(b *testing.B) {
	moons, _ := data.GenerateByName("moons", 500, 0.45, 3)
	f := fit(b, "svm", moons, map[string]string{"gamma": "2"})
	g, _ := viz.BoundsOf(200, 200, 0.08, moons.X)
	spec, _ := model.Lookup("svm")
	b.Logf("support vectors: %d", len(f.Report().Support))
	b.Run("factorised", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := viz.Evaluate(f, spec, g, moons.Classes, func() {}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pointwise", func(b *testing.B) {
		pts := g.Points()
		for i := 0; i < b.N; i++ {
			if _, err := f.Predict(&data.Dataset{X: pts, Classes: moons.Classes}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
