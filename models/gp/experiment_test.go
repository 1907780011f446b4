package gp

import (
	"context"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/experiment"
	_ "lupilab/models/svm"
	_ "lupilab/models/svmplus"
)

// The experiment runs end to end (quick, one repeat) on a generated LUPI set
// and reports every method, average ranks, the paper's table and the
// deviations of its SVM and SVM+ model selection from the paper's
// (svmCVNote, svmPlusGridNote).
func TestExperimentQuick(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 150, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, err := experiment.Lookup("gpcplus")
	if err != nil {
		t.Fatal(err)
	}
	_ = e
	res, err := runOn(context.Background(), experiment.Config{Quick: true, Repeats: 1, Seed: 1}, []*data.Dataset{ds})
	if err != nil {
		t.Fatal(err)
	}
	md := res.Markdown()
	t.Log(md)
	for _, want := range []string{"GPC+", "average ranking", "Paper 002, Table 1", "9.50±0.11", svmCVNote, svmPlusGridNote} {
		if !strings.Contains(md, want) {
			t.Errorf("result lacks %q", want)
		}
	}
	if _, err := runOn(context.Background(), experiment.Config{Quick: true, Args: map[string]string{"train": "x"}}, []*data.Dataset{ds}); err == nil {
		t.Error("bad train argument accepted")
	}
	noZ := *ds
	noZ.Z = nil
	if _, err := runOn(context.Background(), experiment.Config{Quick: true}, []*data.Dataset{&noZ}); err == nil {
		t.Error("dataset without Z accepted")
	}
}
