package model

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/spec"
)

// centroid is a tiny binary model for testing the wrappers: the decision is
// the difference of squared distances to the two class centroids.
type centroid struct {
	Pos, Neg []float64
}

func (c *centroid) Decision(ds *data.Dataset) ([]float64, error) {
	n := ds.Rows()
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		r := ds.X.RawRowView(i)
		for j, v := range r {
			out[i] += (v-c.Neg[j])*(v-c.Neg[j]) - (v-c.Pos[j])*(v-c.Pos[j])
		}
	}
	return out, nil
}

func (c *centroid) Report() *Report {
	return &Report{Model: "centroid", Converged: true, Iterations: 1}
}

func fitCentroid(ctx context.Context, train *data.Dataset, y []float64, v Values, opt Options) (BinaryModel, error) {
	_, d := train.X.Dims()
	c := &centroid{Pos: make([]float64, d), Neg: make([]float64, d)}
	var np, nn float64
	for i, yi := range y {
		r := train.X.RawRowView(i)
		for j := range r {
			if yi > 0 {
				c.Pos[j] += r[j]
			} else {
				c.Neg[j] += r[j]
			}
		}
		if yi > 0 {
			np++
		} else {
			nn++
		}
	}
	for j := range c.Pos {
		c.Pos[j] /= np
		c.Neg[j] /= nn
	}
	opt.Report(Progress{Fraction: 1})
	return c, nil
}

func loadCentroid(raw json.RawMessage) (BinaryModel, error) {
	var c centroid
	err := json.Unmarshal(raw, &c)
	return &c, err
}

func init() {
	fit, load := WrapBinary("test-centroid", fitCentroid, loadCentroid)
	Bind(&spec.Spec{ID: "test-centroid", Name: "Centroid", Task: Binary,
		Params: []Param{{Name: "C", Kind: Float, Default: "1", Min: 1e-3, Max: 1e3, Log: true}, spec.StrategyParam()}}, fit, load)
}

// three well separated blobs on a line: class k around (3k, 0).
func blobs() *data.Dataset {
	var x []float64
	var y []int
	for k := 0; k < 3; k++ {
		for i := 0; i < 5; i++ {
			x = append(x, 3*float64(k)+0.1*float64(i), 0.1*float64(i%2))
			y = append(y, k)
		}
	}
	return &data.Dataset{X: mat.NewDense(15, 2, x), Y: y, Classes: []string{"a", "b", "c"}}
}

func TestWrapBinaryOvROvO(t *testing.T) {
	spec, err := Lookup("test-centroid")
	if err != nil {
		t.Fatal(err)
	}
	ds := blobs()
	for _, strat := range []string{"ovr", "ovo"} {
		v, err := spec.Resolve(Values{"multiclass": strat})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		f, err := spec.Fit(context.Background(), ds, v, Options{Progress: func(Progress) { calls++ }})
		if err != nil {
			t.Fatal(err)
		}
		c := f.(*Classifier)
		want := map[string]int{"ovr": 3, "ovo": 3}[strat]
		if len(c.Models) != want || calls != want {
			t.Errorf("%s: %d models, %d progress calls", strat, len(c.Models), calls)
		}
		p, err := f.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range p.Labels {
			if l != ds.Y[i] {
				t.Errorf("%s: row %d predicted %d, true %d", strat, i, l, ds.Y[i])
			}
		}
		// Save / Load round trip predicts identically.
		b, err := Save(spec.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := Load(b)
		if err != nil {
			t.Fatal(err)
		}
		q, err := g.Predict(ds)
		if err != nil {
			t.Fatal(err)
		}
		a1, _ := json.Marshal(p)
		a2, _ := json.Marshal(q)
		if string(a1) != string(a2) {
			t.Errorf("%s: loaded model predicts differently", strat)
		}
	}
}

func TestScaledModelTakesRawFeatures(t *testing.T) {
	spec, _ := Lookup("test-centroid")
	raw := blobs()
	two := Subset(raw, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	two.Classes = []string{"a", "b"}
	sc, err := data.FitScaler(two, "standard")
	if err != nil {
		t.Fatal(err)
	}
	scaled := sc.Apply(two)
	f, err := spec.Fit(context.Background(), scaled, spec.Defaults(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SaveScaled(spec.ID, f, sc)
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.(*Scaled); !ok {
		t.Fatalf("loaded %T, want *Scaled", g)
	}
	p1, _ := f.Predict(scaled)
	p2, err := g.Predict(two) // raw features
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1.Decision {
		if math.Abs(p1.Decision[i]-p2.Decision[i]) > 1e-12 {
			t.Fatalf("row %d: %v on scaled data, %v from the saved model on raw data", i, p1.Decision[i], p2.Decision[i])
		}
	}
	// Re-saving a loaded scaled model keeps the scaler.
	b2, err := Save(spec.ID, g)
	if err != nil || !strings.Contains(string(b2), `"scaler"`) {
		t.Errorf("re-saved model lost its scaler: %v", err)
	}
}

func TestResolveAndValidate(t *testing.T) {
	spec, _ := Lookup("test-centroid")
	for _, bad := range []Values{{"C": "-1"}, {"C": "x"}, {"C": "NaN"}, {"C": "1e9"}, {"nope": "1"}, {"multiclass": "all"}} {
		if _, err := spec.Resolve(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	v, err := spec.Resolve(Values{"C": "10"})
	if err != nil || v.Float("C") != 10 || v.String("multiclass") != "ovr" {
		t.Errorf("resolve: %v %v", v, err)
	}
	if _, err := Lookup("no-such-model"); err == nil || !strings.Contains(err.Error(), "test-centroid") {
		t.Errorf("lookup error should list known models: %v", err)
	}
	for _, bad := range [][]byte{[]byte("{"), []byte(`{"format":"x"}`), []byte(`{"format":"lupilab-model","version":99}`)} {
		if _, _, err := Load(bad); err == nil {
			t.Errorf("Load(%s) accepted", bad)
		}
	}
}

func TestOneClassAndCheckData(t *testing.T) {
	spec, _ := Lookup("test-centroid")
	ds := blobs()
	one := Subset(ds, []int{0, 1, 2})
	if _, err := spec.Fit(context.Background(), one, spec.Defaults(), Options{}); err == nil {
		t.Error("one class accepted")
	}
	if err := spec.CheckData(&data.Dataset{X: ds.X}); err == nil {
		t.Error("data without labels accepted")
	}
	if got := spec.ForPredict(&data.Dataset{X: ds.X, Z: ds.X}); got.Z != nil {
		t.Error("a model without Z use was shown Z")
	}
}
