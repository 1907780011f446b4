package viz

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"

	_ "lupilab/models/all"
)

// fitDefault fits model id with its default parameters (plus set) on the
// named generated data.
func fitDefault(t testing.TB, id, gen string, n int, set map[string]string) (model.Fitted, *data.Dataset) {
	t.Helper()
	g, ok := data.GeneratorByName(gen)
	if !ok {
		t.Fatalf("no generator %s", gen)
	}
	ds, err := data.GenerateByName(gen, n, g.DefaultNoise, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Resolve(model.Values(set))
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f, ds
}

// lattice returns a regular 200×200 lattice over the data's box (the app's
// full map) or random coordinates (61 × 47, unsorted, reaching beyond the
// data) and its nodes as rows, y outer.
func lattice(r *rand.Rand, X *mat.Dense, random bool) (xs, ys []float64, pts *mat.Dense) {
	if random {
		xs, ys = make([]float64, 61), make([]float64, 47)
		for i := range xs {
			xs[i] = -3 + 6*r.Float64()
		}
		for j := range ys {
			ys[j] = -3 + 6*r.Float64()
		}
	} else {
		g, _ := BoundsOf(200, 200, 0.08, X)
		xs, ys = g.axes()
	}
	pts = mat.NewDense(len(xs)*len(ys), 2, nil)
	for j, y := range ys {
		for i, x := range xs {
			pts.Set(j*len(xs)+i, 0, x)
			pts.Set(j*len(xs)+i, 1, y)
		}
	}
	return xs, ys, pts
}

// closeTo reports the largest |got − want| and fails when it exceeds
// 1e-9 × the largest |want| (at least 1e-9 × floor).
func closeTo(t *testing.T, what string, got, want []float64, floor float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale, worst := floor, 0.0
	for i, w := range want {
		scale = math.Max(scale, math.Abs(w))
		worst = math.Max(worst, math.Abs(got[i]-w))
	}
	t.Logf("%s: largest difference %.3g (scale %.3g, relative %.2g)", what, worst, scale, worst/scale)
	if worst > 1e-9*scale {
		t.Errorf("%s: largest difference %.3g exceeds 1e-9 × %.3g", what, worst, scale)
	}
}

// sameLabels fails on a label that differs where the decision is not within
// rounding of the boundary.
func sameLabels(t *testing.T, what string, got, want []int, dec []float64) {
	t.Helper()
	scale := 0.0
	for _, d := range dec {
		scale = math.Max(scale, math.Abs(d))
	}
	for i := range want {
		if got[i] != want[i] && math.Abs(dec[i]) > 1e-9*scale {
			t.Fatalf("%s: point %d: label %d, Predict %d (decision %g)", what, i, got[i], want[i], dec[i])
		}
	}
}

func planeValues(t *testing.T, f model.Fitted, ds *data.Dataset) map[string][]float64 {
	t.Helper()
	pm := f.(*model.Classifier).Models[0].(interface {
		PlaneValues(ds *data.Dataset) (map[string][]float64, error)
	})
	v, err := pm.PlaneValues(ds)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every fast path equals the model's own prediction (Predict, and
// PlaneValues for the twin planes) at the same points to 1e-9 relative, on
// the app's 200×200 grid and on random coordinates: single-view binary
// models (every layer), multi-class wrappers, two-view models (each view's
// decision, its planes, and the rule on paired points), multi-label models
// (per-tag scores and tags). GP variances and probabilities have their own
// test in models/gp (TestLatentOnGridMatchesPointwise); here the
// probabilities are checked through Predict's Prob.
func TestFastPathsMatchPredict(t *testing.T) {
	single := []struct {
		id, gen string
		n       int
		set     map[string]string
	}{
		{"svm", "moons", 200, nil},
		{"l2svm", "moons", 200, nil},
		{"svm1plus", "lupi2d", 200, nil},
		{"svm2plus", "lupi2d", 200, nil},
		{"twsvm", "moons", 200, nil},
		{"twsvm", "moons", 200, map[string]string{"kernel": "linear"}},
		{"wltsvm", "moons", 200, nil},
		{"twsvm", "blobs", 240, nil},
		{"gpc", "moons", 140, nil},
		{"gpcplus", "lupi2d", 140, nil},
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range single {
		f, ds := fitDefault(t, c.id, c.gen, c.n, c.set)
		t.Run(c.id+"/"+c.gen+kernelName(c.set), func(t *testing.T) {
			for _, random := range []bool{false, true} {
				xs, ys, pts := lattice(r, ds.X, random)
				s, ok, err := evaluateOnAxes(f, xs, ys, nil)
				if err != nil || !ok {
					t.Fatalf("no fast path (%v)", err)
				}
				pd := &data.Dataset{X: pts, Classes: ds.Classes}
				p, err := f.Predict(pd)
				if err != nil {
					t.Fatal(err)
				}
				sameLabels(t, "labels", s.Labels, p.Labels, p.Decision)
				if s.Prob {
					want := make([]float64, len(p.Prob))
					for i, q := range p.Prob {
						want[i] = q[1]
					}
					closeTo(t, "probability", s.Value, want, 1)
					closeTo(t, "mean", s.Layer(LayerMean).Values, p.Decision, 0)
					continue
				}
				closeTo(t, "decision", s.Value, p.Decision, 0)
				if l := s.Layer("pos"); l != nil {
					pv := planeValues(t, f, pd)
					closeTo(t, "plane pos", l.Values, pv["pos"], 0)
					closeTo(t, "plane neg", s.Layer("neg").Values, pv["neg"], 0)
				}
			}
		})
	}
	views := []string{"svm2k", "psvm2v", "mcpk", "mvtsvm", "mpwtsvm"}
	for _, id := range views {
		f, ds := fitDefault(t, id, "twoview2d", 200, nil)
		t.Run(id, func(t *testing.T) {
			for _, random := range []bool{false, true} {
				xa, ya, pa := lattice(r, ds.X, random)
				xb, yb, pb := lattice(r, ds.Z, random)
				a, b, ok, err := viewsOnAxes(f, xa, ya, xb, yb, nil)
				if err != nil || !ok {
					t.Fatalf("no fast path (%v)", err)
				}
				pd := &data.Dataset{X: pa, Z: pb, Classes: ds.Classes}
				p, err := f.Predict(pd)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "view A", a.Value, p.Views["A"], 0)
				closeTo(t, "view B", b.Value, p.Views["B"], 0)
				comb, ok := CombineViews(f, a.Value, b.Value)
				if !ok {
					t.Fatal("no rule")
				}
				closeTo(t, "rule on pairs", comb, p.Decision, 0)
				sameLabels(t, "view A labels", a.Labels, signLabels(p.Views["A"]), p.Views["A"])
				if l := a.Layer("A+"); l != nil {
					pv := planeValues(t, f, pd)
					for _, k := range []string{"A+", "A-"} {
						closeTo(t, "plane "+k, a.Layer(k).Values, pv[k], 0)
					}
					for _, k := range []string{"B+", "B-"} {
						closeTo(t, "plane "+k, b.Layer(k).Values, pv[k], 0)
					}
				} else if id == "mvtsvm" || id == "mpwtsvm" {
					t.Error("twin model without plane layers")
				}
			}
		})
	}
	for _, id := range []string{"jointsvm", "indepsvm"} {
		f, ds := fitDefault(t, id, "multilabel2d", 300, nil)
		t.Run(id, func(t *testing.T) {
			for _, random := range []bool{false, true} {
				xs, ys, pts := lattice(r, ds.X, random)
				out, ok, err := tagsOnAxes(f, xs, ys, ds.NumTags(), nil)
				if err != nil || !ok {
					t.Fatalf("no fast path (%v)", err)
				}
				p, err := f.Predict(&data.Dataset{X: pts})
				if err != nil {
					t.Fatal(err)
				}
				for tg, s := range out {
					want := make([]float64, len(p.Scores))
					wantOn := make([]int, len(p.Scores))
					for i := range p.Scores {
						want[i] = p.Scores[i][tg]
						if p.Tags[i][tg] {
							wantOn[i] = 1
						}
					}
					closeTo(t, "tag score", s.Value, want, 0)
					sameLabels(t, "tag", s.Labels, wantOn, want)
				}
			}
		})
	}
}

func kernelName(set map[string]string) string {
	if k, ok := set["kernel"]; ok {
		return "/" + k
	}
	return ""
}

// Every registered model takes a fast path at its default settings on its
// default data (the app's first picture), and Evaluate* report it.
func TestEveryModelFastByDefault(t *testing.T) {
	gens := map[string]string{}
	for _, s := range model.All() {
		gen := "moons"
		switch {
		case s.Task == model.MultiLabel:
			gen = "multilabel2d"
		case s.Z == model.ZView:
			gen = "twoview2d"
		case s.Z == model.ZPrivileged:
			gen = "lupi2d"
		}
		gens[s.ID] = gen
	}
	for id, gen := range gens {
		if testing.Short() && (id == "gpc" || id == "gpcplus") {
			continue
		}
		f, _ := fitDefault(t, id, gen, 120, nil)
		if !FastGrid(f) {
			t.Errorf("%s: no fast grid at its default settings", id)
		}
	}
}
