package twin

import (
	"context"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
)

// On LUPI data (Z privileged, known only while training) MPWTSVM learns from
// both views but predicts with rule (33), view A alone, whatever rule was
// asked for, and says so; it then needs no Z to predict, and its decision
// is view A's (33) of the same planes. As the multi-view baselines do
// (multiview.TestLUPIDataForcesRuleA).
func TestMPWTSVMOnLUPIDataPredictsFromViewA(t *testing.T) {
	ds, err := data.LUPI2D(80, 0.2, 3)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := model.Lookup("mpwtsvm")
	if err != nil {
		t.Fatal(err)
	}
	v := spec.Defaults()
	v["rule"] = "both"
	f, err := spec.Fit(context.Background(), ds, v, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := f.Report().Warnings; len(w) == 0 || !strings.Contains(w[0], "privileged") {
		t.Errorf("no warning that it predicts from view A: %v", w)
	}
	noZ := *ds
	noZ.Z = nil
	got, err := f.Predict(&noZ)
	if err != nil {
		t.Fatalf("predicting without Z: %v", err)
	}
	withZ, err := f.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Labels {
		if got.Labels[i] != withZ.Labels[i] {
			t.Fatalf("row %d: %v without Z, %v with it: the prediction read Z", i, got.Labels[i], withZ.Labels[i])
		}
	}
	// the same planes' view-A rule (33), computed from both views
	y, _ := ds.BinaryY()
	cfg := mpCfg(t, "rule", "A")
	m, err := fitMP(context.Background(), ds, y, cfg, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Decision(&noZ)
	if err != nil {
		t.Fatal(err)
	}
	views, err := m.ViewDecisions(ds)
	if err != nil {
		t.Fatal(err)
	}
	closeVec(t, "rule A without Z against (33) with both views", d, views["A"], 1e-12)
}
