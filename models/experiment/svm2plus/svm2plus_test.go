package svm2plus

import (
	"context"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/experiment/exptest"
)

// TestExperimentQuick runs the protocol at browser size on generated LUPI
// data (the shipped datasets are exercised by `lupi experiment svm2plus`):
// the tables, the same result with 1 and 3 parallel tasks, every task rerun
// from its JSON alone.
func TestExperimentQuick(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 90, 0.2, 3)
	if err != nil {
		t.Fatal(err)
	}
	ds.Name = "lupi2d"
	e, err := experiment.Lookup("svm2plus")
	if err != nil {
		t.Fatal(err)
	}
	cfg := experiment.Config{Quick: true, Seed: 1, FS: exptest.FS(t, ds), Args: map[string]string{"train": "0.5", "datasets": "lupi2d"}}
	res := exptest.Reproducible(t, e, cfg, 3)
	md := res.Markdown()
	for _, want := range []string{"SVM1+", "SVM2+", "| SVM |", "SVM-2K", "110.6", "Training time ratios"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// SVM-2K's coordinate search: 3 parameters × 3 values, plus the final fit
	runs := res.Raw["runs"].([]*runStats)
	for _, r := range runs {
		want := map[string]int{"SVM": 3 + 1, "SVM-2K": 9 + 1, "SVM1+": 9 + 1, "SVM2+": 9 + 1}[r.Model]
		if r.NFits != want {
			t.Errorf("%s: %d fits, want %d", r.Model, r.NFits, want)
		}
		if len(r.TestAcc) != 1 || !(r.TestAcc[0] > 0 && r.TestAcc[0] <= 1) {
			t.Errorf("%s: test accuracy %v", r.Model, r.TestAcc)
		}
	}
	t.Log("\n" + md)
	if _, err := e.Run(context.Background(), experiment.Config{DataDir: t.TempDir()}); err == nil {
		t.Error("no error for a missing dataset directory")
	}
	for _, args := range []map[string]string{{"grid": "1,-1"}, {"train": "1"}, {"max_train": "-3"}, {"gird": "1"}} {
		if _, err := e.Run(context.Background(), experiment.Config{Quick: true, FS: cfg.FS, Args: args}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
