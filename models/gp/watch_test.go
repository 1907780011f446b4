package gp

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
)

// TestWatch: watched GPC and GPC+ fits take the path of unwatched ones
// (the same evidence, hyper-parameters and predictions, bit for bit) and
// hand over one snapshot per type-II ML step whose model predicts.
func TestWatch(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 60, 0.2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gpc", "gpcplus"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		v, err := spec.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var snaps []model.Snapshot
		watched, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1,
			Watch: &model.Watch{Due: func(int) bool { return true }, Take: func(s model.Snapshot) { snaps = append(snaps, s) }}})
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := plain.Report(), watched.Report()
		da, _ := plain.Predict(ds)
		db, _ := watched.Predict(ds)
		a, _ := json.Marshal([]any{pa.Objective, pa.Extras["amplitude"], pa.Extras["lengthscale"], da})
		b, _ := json.Marshal([]any{pb.Objective, pb.Extras["amplitude"], pb.Extras["lengthscale"], db})
		if string(a) != string(b) {
			t.Fatalf("%s: watching changed the fit", id)
		}
		evals := int(pa.Extras["evidence_evaluations"])
		if len(snaps) < 3 || len(snaps) > evals {
			t.Fatalf("%s: %d snapshots for %d evidence evaluations", id, len(snaps), evals)
		}
		for i, s := range snaps {
			if s.Iter != i+1 || s.Model == nil || math.IsNaN(s.Value) || s.Value > 0 {
				t.Fatalf("%s: snapshot %d: %+v", id, i, s)
			}
			if _, err := s.Model.Predict(ds); err != nil {
				t.Fatalf("%s: snapshot %d predicts: %v", id, i, err)
			}
		}
		t.Logf("%s: %d snapshots over %d evaluations; log evidence %.3f → %.3f (final %.3f)", id, len(snaps), evals,
			snaps[0].Value, snaps[len(snaps)-1].Value, -pa.Objective)
	}
}
