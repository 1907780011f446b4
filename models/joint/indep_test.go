package joint

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/internal/fixture"
	"lupilab/models/kernel"
	"lupilab/models/model"
)

// TestIndepAgainstSklearn: each tag's SVM decision equals scikit-learn's SVC
// (libsvm) decision_function on the same data (testdata/make_fixtures.py).
func TestIndepAgainstSklearn(t *testing.T) {
	fx := loadFixtures(t)
	f := fx.Multi
	m, err := TrainIndep(context.Background(), fixture.Dense(f.X), fixture.Dense(f.Tags), nil,
		IndepParams{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: fx.Indep.Gamma}, C: fx.Indep.C, Eps: 1e-9}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(&data.Dataset{X: fixture.Dense(f.Xtest)})
	if err != nil {
		t.Fatal(err)
	}
	for j, dec := range fx.Indep.Decision {
		for r, d := range dec {
			if math.Abs(p.Scores[r][j]-d) > 1e-6 {
				t.Errorf("tag %d row %d: decision %.9g, sklearn %.9g", j, r, p.Scores[r][j], d)
			}
			if p.Tags[r][j] != (d > 0) && math.Abs(d) > 1e-6 {
				t.Errorf("tag %d row %d: tag %v, sklearn decision %.4g", j, r, p.Tags[r][j], d)
			}
		}
	}
}

func TestIndepRegistryAndBadInput(t *testing.T) {
	X, tags := randomTags(60, 3, 8)
	spec, err := model.Lookup("indepsvm")
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.Fit(context.Background(), &data.Dataset{X: X, Tags: tags}, model.Values{"C": "3"}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := model.Save("indepsvm", f)
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := model.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := f.Predict(&data.Dataset{X: X})
	p2, err := g.Predict(&data.Dataset{X: X})
	if err != nil {
		t.Fatal(err)
	}
	for r := range p1.Scores {
		for j := range p1.Scores[r] {
			if p1.Scores[r][j] != p2.Scores[r][j] {
				t.Fatal("prediction changed after save/load")
			}
		}
	}
	never := mat.DenseCopyOf(tags)
	for i := 0; i < 60; i++ {
		never.Set(i, 0, 0)
	}
	for name, c := range map[string]struct {
		tags *mat.Dense
		C    float64
		want string
	}{"no tags": {nil, 1, "no tags"}, "never on": {never, 1, "never on"}, "C = 0": {tags, 0, "C must"}} {
		_, err := TrainIndep(context.Background(), X, c.tags, nil, IndepParams{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}, C: c.C}, model.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, c.want)
		}
	}
}
