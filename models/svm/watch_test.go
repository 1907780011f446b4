package svm

import (
	"context"
	"encoding/json"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
)

// TestWatch: a watched fit takes the same path as an unwatched one (the
// same objective, iterations, α, ρ and decision values, bit for bit), hands over snapshots at steps 1, 2, 4,
// … whose models predict, and its last snapshot is close to the result.
func TestWatch(t *testing.T) {
	ds, err := data.GenerateByName("moons", 200, 0.25, 3)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := model.Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	v := model.Values{"C": "10", "gamma": "2"}
	plain, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var snaps []model.Snapshot
	frames := &model.Frames{}
	watched, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1,
		Watch: &model.Watch{Due: frames.Due, Take: func(s model.Snapshot) { snaps = append(snaps, s) }}})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := plain.Report(), watched.Report()
	da, _ := plain.Predict(ds)
	db, _ := watched.Predict(ds)
	a, _ := json.Marshal([]any{pa.Objective, pa.Iterations, pa.Rho, pa.Diagnostics, da})
	b, _ := json.Marshal([]any{pb.Objective, pb.Iterations, pb.Rho, pb.Diagnostics, db})
	if string(a) != string(b) {
		t.Fatal("watching changed the fit")
	}
	iters := plain.Report().Iterations
	if len(snaps) < 3 {
		t.Fatalf("%d snapshots over %d iterations", len(snaps), iters)
	}
	want := 1
	for _, s := range snaps {
		if s.Iter != want || s.Model == nil || s.Quantity == "" || !(s.Value >= 0) {
			t.Fatalf("snapshot %+v (want iteration %d, a model and a measure)", s, want)
		}
		want *= 2
	}
	final, err := plain.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	last, err := snaps[len(snaps)-1].Model.Predict(ds)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := snaps[0].Model.Predict(ds)
	agree := func(pr *model.Prediction) int {
		p := pr.Labels
		n := 0
		for i := range p {
			if p[i] == final.Labels[i] {
				n++
			}
		}
		return n
	}
	t.Logf("%d iterations, %d snapshots (violation %.3g → %.3g); agreement with the result: first %d, last %d of %d",
		iters, len(snaps), snaps[0].Value, snaps[len(snaps)-1].Value, agree(first), agree(last), ds.Rows())
	if agree(last) < ds.Rows()*95/100 {
		t.Errorf("the last snapshot (iteration %d of %d) agrees with the result on %d of %d rows", snaps[len(snaps)-1].Iter, iters, agree(last), ds.Rows())
	}
}
