package compute

import (
	"context"
	"testing"
	"time"

	"lupilab/models/wire"
)

// TestWatchedFitPace: a Pace message changes a running watched fit's pace
// — the snapshots after it say the new speed and the pauses before them
// are at most watchPace/speed — and Skip ends the snapshots: the fit
// finishes with no more of them, on the unwatched fit's result. (The
// engine's pauses are recorded, not slept: the test does not wait.)
func TestWatchedFitPace(t *testing.T) {
	e := testEngine()
	req := wire.FitRequest{Data: moons, Split: split, Model: "svm", Params: map[string]string{"C": "10"}, Grid: &wire.GridSpec{Side: 40}}
	var plain *wire.FitResult
	parts, _ := decodeParts(t, do(t, e, context.Background(), wire.KindFit, req, nil))
	for _, p := range parts {
		if p.Fit != nil {
			plain = p.Fit
		}
	}
	var naps []time.Duration
	e.nap = func(d time.Duration) { naps = append(naps, d) }
	req.Watch, req.WatchSpeed = true, 0 // the standard pace
	m, err := wire.Encode(9, wire.KindFit, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	type snap struct {
		speed float64
		nap   time.Duration // the pause just before it (0: none)
	}
	var snaps []snap
	var fit *wire.FitResult
	var end string
	napsSeen := 0
	e.Handle(context.Background(), m, func(m wire.Message) {
		if m.Kind != wire.KindPart {
			end = m.Kind
			return
		}
		var p wire.Part
		if _, err := m.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Fit != nil {
			fit = p.Fit
		}
		if p.Snapshot == nil {
			return
		}
		s := snap{speed: p.Snapshot.Speed}
		if len(naps) > napsSeen {
			s.nap, napsSeen = naps[len(naps)-1], len(naps)
		}
		snaps = append(snaps, s)
		switch len(snaps) {
		case 2:
			e.Pace(9, wire.Pace{Speed: 4})
		case 5:
			e.Pace(9, wire.Pace{Skip: true})
		}
	})
	t.Logf("snapshots (speed, pause before): %v", snaps)
	if end != wire.KindResult || fit == nil {
		t.Fatalf("the watched fit ended with %q", end)
	}
	if len(snaps) != 5 {
		t.Fatalf("%d snapshots; want 5: the fit was skipped to its end after the fifth", len(snaps))
	}
	for i, s := range snaps {
		want := 1.0
		if i >= 2 {
			want = 4
		}
		if s.speed != want {
			t.Errorf("snapshot %d sent at speed %v, want %v", i+1, s.speed, want)
		}
		if limit := time.Duration(float64(watchPace) / want); s.nap > limit {
			t.Errorf("snapshot %d at speed %v came after a pause of %v (> %v)", i+1, want, s.nap, limit)
		}
	}
	if fit.Report.Objective != plain.Report.Objective || fit.Report.Iterations != plain.Report.Iterations || fit.Scores.TestAcc != plain.Scores.TestAcc {
		t.Errorf("skipping changed the fit: %+v vs %+v", fit.Report, plain.Report)
	}

	// A Pace message that comes before its job starts holds for it.
	naps, napsSeen = nil, 0
	e.Pace(10, wire.Pace{Speed: 2})
	m, _ = wire.Encode(10, wire.KindFit, req, nil)
	var speeds []float64
	e.Handle(context.Background(), m, func(m wire.Message) {
		var p wire.Part
		if m.Kind == wire.KindPart {
			if _, err := m.Decode(&p); err == nil && p.Snapshot != nil {
				speeds = append(speeds, p.Snapshot.Speed)
			}
		}
	})
	for _, s := range speeds {
		if s != 2 {
			t.Fatalf("snapshot speeds %v; want 2 (the early Pace message)", speeds)
		}
	}
	if len(speeds) == 0 {
		t.Fatal("no snapshot")
	}
	for _, d := range naps {
		if d > watchPace/2 {
			t.Errorf("a pause of %v at speed 2", d)
		}
	}
}
