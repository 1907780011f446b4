package multiview

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/experiment"
)

// threeClass is a three-class two-view problem: class c's view A is centred
// at (5c, 0) and its view B at (0, 0, 5c), unit noise.
func threeClass() *data.Dataset {
	ds := twoView(60, 3, 0.4, 21)
	r := rand.New(rand.NewPCG(21, 1))
	for i := range ds.Y {
		c := i % 3
		ds.Y[i] = c
		ds.X.SetRow(i, []float64{5*float64(c) + r.NormFloat64(), r.NormFloat64()})
		ds.Z.SetRow(i, []float64{r.NormFloat64(), r.NormFloat64(), 5*float64(c) + r.NormFloat64()})
	}
	ds.Classes = []string{"a", "b", "c"}
	ds.Name = "toy3"
	return ds
}

func TestExperimentSmall(t *testing.T) {
	cfg := experiment.Config{Quick: true, Seed: 3, Args: map[string]string{
		"per_class": "6", "folds": "3", "tasks": "0", "methods": "SVM-2K,MVTSVM,MCPK,PSVM-2V,MPWTSVM"}}
	res, err := RunMPWTSVM(context.Background(), cfg, []*data.Dataset{threeClass()})
	if err != nil {
		t.Fatal(err)
	}
	md := res.Markdown()
	for _, want := range []string{"Avg. rank", "Friedman", "Nemenyi CD", "87.57", "toy3: a vs b", "toy3: b vs c"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	// MPWTSVM lives in another package: skipped here with a note, and then
	// no W/D/L.
	if !strings.Contains(md, "MPWTSVM skipped") {
		t.Error("no note for the unregistered MPWTSVM")
	}
	ranks := res.Raw["avg_ranks"].([]float64)
	sum := 0.0
	for _, r := range ranks {
		sum += r
	}
	if k := float64(len(ranks)); sum < k*(k+1)/2-1e-9 || sum > k*(k+1)/2+1e-9 {
		t.Errorf("average ranks %v do not sum to k(k+1)/2", ranks)
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
	noZ := threeClass()
	noZ.Z = nil
	if _, err := RunMPWTSVM(ctx, experiment.Config{Quick: true}, []*data.Dataset{noZ}); err == nil {
		t.Error("dataset without view B accepted")
	}
	if _, err := RunMPWTSVM(ctx, experiment.Config{Quick: true, Args: map[string]string{"grid": "huge"}}, []*data.Dataset{threeClass()}); err == nil {
		t.Error("unknown grid accepted")
	}
	if _, err := RunMPWTSVM(ctx, experiment.Config{Quick: true, Args: map[string]string{"per_class": "3"}}, []*data.Dataset{threeClass()}); err == nil {
		t.Error("per_class 3 accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RunMPWTSVM(cctx, experiment.Config{Quick: true, Args: map[string]string{"per_class": "6", "folds": "3"}}, []*data.Dataset{threeClass()}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if _, err := experiment.Lookup("mpwtsvm"); err != nil {
		t.Error(err)
	}
}
