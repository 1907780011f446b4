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
