package svmplus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/experiment"
	_ "lupilab/models/svm" // registers the SVM baseline
)

// TestExperimentQuick runs the protocol at browser size on generated LUPI
// data (the shipped datasets are exercised by `lupi experiment svm2plus`).
func TestExperimentQuick(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 90, 0.2, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runOn(context.Background(), experiment.Config{Quick: true, Seed: 1, Args: map[string]string{"train": "0.5"}}, []*data.Dataset{ds})
	if err != nil {
		t.Fatal(err)
	}
	md := res.Markdown()
	for _, want := range []string{"SVM1+", "SVM2+", "| SVM |", "110.6", "Speed-up"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md)
	if e, err := experiment.Lookup("svm2plus"); err != nil || e.Run == nil {
		t.Fatal("experiment not registered")
	}
	if _, err := runExperiment(context.Background(), experiment.Config{DataDir: t.TempDir()}); err == nil {
		t.Error("no error for a missing dataset directory")
	}
}

// TestBetter: a capped (not converged) fit is eligible only when no fit
// converged; otherwise the validation accuracy decides.
func TestBetter(t *testing.T) {
	cases := []struct {
		acc      float64
		conv     bool
		bestAcc  float64
		bestConv bool
		want     bool
	}{
		{0.99, false, 0.5, true, false}, // capped never beats converged
		{0.5, true, 0.99, false, true},  // converged beats capped
		{0.8, true, 0.7, true, true},
		{0.7, true, 0.7, true, false}, // ties keep the earlier point
		{0.8, false, 0.7, false, true},
		{0.6, false, 0.7, false, false},
	}
	for _, c := range cases {
		if got := better(c.acc, c.conv, c.bestAcc, c.bestConv); got != c.want {
			t.Errorf("better(%v, %v, %v, %v) = %v, want %v", c.acc, c.conv, c.bestAcc, c.bestConv, got, c.want)
		}
	}
}
