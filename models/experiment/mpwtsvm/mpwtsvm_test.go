package mpwtsvm

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/experiment/exptest"
)

// threeClass is a three-class two-view problem: class c's view A is centred
// at (5c, 0) and its view B at (0, 0, 5c), unit noise.
func threeClass() *data.Dataset {
	const n = 60
	r := rand.New(rand.NewPCG(21, 1))
	ds := &data.Dataset{Name: "toy3", Kind: data.KindTwoView, X: mat.NewDense(n, 2, nil), Z: mat.NewDense(n, 3, nil), Y: make([]int, n), Classes: []string{"a", "b", "c"}}
	for i := range ds.Y {
		c := i % 3
		ds.Y[i] = c
		ds.X.SetRow(i, []float64{5*float64(c) + r.NormFloat64(), r.NormFloat64()})
		ds.Z.SetRow(i, []float64{r.NormFloat64(), r.NormFloat64(), 5*float64(c) + r.NormFloat64()})
	}
	return ds
}

func lookup(t *testing.T) *experiment.Experiment {
	e, err := experiment.Lookup("mpwtsvm")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The experiment on an easy three-class problem: every table, average
// ranks that sum to k(k+1)/2, high accuracies; the same result with 1 and 3
// parallel tasks, every task rerun from its JSON alone.
func TestExperimentSmall(t *testing.T) {
	cfg := experiment.Config{Quick: true, Seed: 3, FS: exptest.FS(t, threeClass()), Args: map[string]string{
		"datasets": "toy3", "per_class": "9", "folds": "3", "tasks": "0", "methods": "SVM-2K,MVTSVM,MCPK,PSVM-2V,MPWTSVM"}}
	res := exptest.Reproducible(t, lookup(t), cfg, 3)
	md := res.Markdown()
	for _, want := range []string{"Avg. rank", "Friedman", "Nemenyi CD", "87.57", "toy3: a vs b", "toy3: b vs c", "W/D/L of MPWTSVM"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	ranks := res.Raw["avg_ranks"].([]float64)
	sum := 0.0
	for _, r := range ranks {
		sum += r
	}
	if k := float64(len(ranks)); len(ranks) != 5 || sum < k*(k+1)/2-1e-9 || sum > k*(k+1)/2+1e-9 {
		t.Errorf("average ranks %v do not sum to k(k+1)/2 over 5 methods", ranks)
	}
	acc := res.Raw["mean_accuracy"].([][]float64)
	if len(acc) != 3 {
		t.Fatalf("%d tasks, want 3", len(acc))
	}
	for _, row := range acc {
		for _, a := range row {
			if !(a >= 80 && a <= 100) {
				t.Errorf("accuracy %v on an easy problem", a)
			}
		}
	}
}

func TestExperimentBadInput(t *testing.T) {
	ctx := context.Background()
	e := lookup(t)
	noZ := threeClass()
	noZ.Z, noZ.Kind, noZ.Name = nil, data.KindPlain, "noz"
	fsys := exptest.FS(t, threeClass(), noZ)
	run := func(ctx context.Context, args map[string]string) error {
		_, err := e.Run(ctx, experiment.Config{Quick: true, FS: fsys, Args: args})
		return err
	}
	if run(ctx, map[string]string{"datasets": "noz"}) == nil {
		t.Error("dataset without view B accepted")
	}
	for _, args := range []map[string]string{
		{"datasets": "toy3", "grid": "huge"}, {"datasets": "toy3", "per_class": "3"}, {"datasets": "toy3", "methods": "MCPK"}, {"datasets": "toy3", "svmplus": "svm"},
	} {
		if run(ctx, args) == nil {
			t.Errorf("%v accepted", args)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := run(cctx, map[string]string{"datasets": "toy3", "per_class": "6", "folds": "3"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

// A method that fails on every cell (MPWTSVM's k = 5 neighbours in folds
// of 4 samples per class) is reported in a note with NaN results; the
// others' columns stand.
func TestExperimentMethodFails(t *testing.T) {
	cfg := experiment.Config{Quick: true, Seed: 3, FS: exptest.FS(t, threeClass()), Args: map[string]string{
		"datasets": "toy3", "per_class": "6", "folds": "3", "tasks": "1", "methods": "MCPK,MPWTSVM"}}
	res, err := lookup(t).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Markdown()
	if !strings.Contains(md, "MPWTSVM on toy3: a vs b: 2 failure(s)") || !strings.Contains(md, "k = 5 neighbours exceeds") {
		t.Errorf("no failure note:\n%s", md)
	}
	acc := res.Raw["mean_accuracy"].([][]float64)
	if !(acc[0][0] >= 80) || acc[0][1] == acc[0][1] {
		t.Errorf("mean accuracies %v: want MCPK's ≥ 80 and MPWTSVM's NaN", acc)
	}
}
