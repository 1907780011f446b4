package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "lupilab/models/all"
	"lupilab/models/compute"
	"lupilab/models/wire"
)

// TestFitStatus: the status line holds the training to the cost model's
// estimate (which predicts the training alone) and says the phases after
// it — scoring the points, drawing the map — for what they are: no
// percentage (an indeterminate bar) and no time left or "longer than
// estimated" (it used to show a full bar, or 95 % and "taking longer than
// the 2 s estimated", while a large map was drawn).
func TestFitStatus(t *testing.T) {
	// training: the estimate carries the bar and the time left
	frac, text := fitStatus(wire.Progress{Fraction: -1, Stage: "SMO", Message: "max KKT violation 0.3"}, estimate{Seconds: 10}, 4, false)
	if frac != 0.4 || !strings.Contains(text, "about 6 s left (estimated)") || !strings.HasPrefix(text, "SMO — max KKT violation 0.3") {
		t.Errorf("training, 4 s of an estimated 10: %v %q", frac, text)
	}
	frac, text = fitStatus(wire.Progress{Fraction: -1, Stage: "SMO"}, estimate{Seconds: 2}, 5, false)
	if frac != 0.95 || !strings.Contains(text, "taking longer than the 2 s estimated") {
		t.Errorf("training past its estimate: %v %q", frac, text)
	}
	// the solver's own fraction, without an estimate
	if frac, text = fitStatus(wire.Progress{Fraction: 0.5, Stage: "EP sweep 3"}, estimate{Seconds: 0}, 3, false); frac != 0.5 || !strings.Contains(text, "about 3 s left") {
		t.Errorf("solver fraction 0.5 after 3 s: %v %q", frac, text)
	}
	// after the training: no percentage, no time left, no estimate
	for _, c := range []struct {
		p    wire.Progress
		est  float64
		want string
	}{
		{wire.Progress{Fraction: 1, Stage: stagePredicting}, 2, "scoring the training and test points"},
		{wire.Progress{Fraction: 1, Stage: stagePredicting}, 0, "scoring the training and test points"},
		{wire.Progress{Fraction: -1, Stage: stageMapping}, 2, "drawing the decision map"},
		{wire.Progress{Fraction: -1, Stage: stageMapping}, 30, "drawing the decision map"},
	} {
		frac, text := fitStatus(c.p, estimate{Seconds: c.est}, 7, false)
		if frac >= 0 {
			t.Errorf("%s (estimate %g s): the bar shows %v, want indeterminate", c.p.Stage, c.est, frac)
		}
		if !strings.Contains(text, c.want) || !strings.Contains(text, "7 s so far") {
			t.Errorf("%s: %q, want it to say %q and the time so far", c.p.Stage, text, c.want)
		}
		for _, bad := range []string{"left", "estimated", "%"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s (estimate %g s): %q says %q", c.p.Stage, c.est, text, bad)
			}
		}
	}
	// a watched fit is slowed down to be seen: the estimate does not apply
	if frac, text = fitStatus(wire.Progress{Fraction: -1, Stage: "SMO"}, estimate{Seconds: 1}, 12, true); frac >= 0 || strings.Contains(text, "estimated") {
		t.Errorf("watched fit: %v %q", frac, text)
	}
}

// TestFitStatusKnowsTheEnginesStages: the stages fitStatus tells apart are
// those the compute engine reports after the training (a renamed stage
// would silently bring back the training's estimate).
func TestFitStatusKnowsTheEnginesStages(t *testing.T) {
	e := compute.New(func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join("..", "web", "datasets", name))
	})
	e.ProgressEvery = 0
	req := wire.FitRequest{Data: wire.DataRef{Source: "gen:moons", N: 300, Noise: 0.2, Seed: 1}, Split: wire.Split{TrainFrac: 0.7, Seed: 1, Scale: "standard"},
		Model: "svm", Grid: &wire.GridSpec{Side: 60}}
	m, err := wire.Encode(1, wire.KindFit, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var order []string
	e.Handle(context.Background(), m, func(m wire.Message) {
		if m.Kind != wire.KindProgress {
			return
		}
		var p wire.Progress
		if _, err := m.Decode(&p); err == nil && !seen[p.Stage] {
			seen[p.Stage] = true
			order = append(order, p.Stage)
		}
	})
	t.Logf("stages: %q", order)
	if !seen[stagePredicting] || !seen[stageMapping] {
		t.Errorf("the engine's stages %q do not include %q and %q", order, stagePredicting, stageMapping)
	}
}

// TestLoadStatus: the status line says what loads and how far: the compute
// engine's bytes as a percentage when the size is known, the bytes alone
// when not, and no percentage while the engine starts.
func TestLoadStatus(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		l    ComputeLoad
		frac float64
		text string
	}{
		{ComputeLoad{Phase: "waiting"}, -1, "Loading the compute engine…"},
		{ComputeLoad{Phase: "fetching", Loaded: 0.75 * mb, Total: 3 * mb}, 0.25, "Loading the compute engine… 25 %"},
		{ComputeLoad{Phase: "fetching", Loaded: 3 * mb, Total: 3 * mb}, 1, "Loading the compute engine… 100 %"},
		{ComputeLoad{Phase: "fetching", Loaded: 1.25 * mb}, -1, "Loading the compute engine… 1.2 MB"},
		{ComputeLoad{Phase: "starting", Loaded: 3 * mb, Total: 3 * mb}, -1, "Starting the compute engine…"},
	} {
		frac, text := loadStatus(c.l)
		if frac != c.frac || text != c.text {
			t.Errorf("%+v: %v %q, want %v %q", c.l, frac, text, c.frac, c.text)
		}
	}
}

// TestFitStatusUpperBound: an estimate that is an upper bound (a large C)
// is said as one, before and after it runs out.
func TestFitStatusUpperBound(t *testing.T) {
	up := estimate{Seconds: 40, UpTo: true}
	if _, text := fitStatus(wire.Progress{Fraction: -1, Stage: "SMO"}, up, 10, false); !strings.Contains(text, "up to 30 s left (estimated)") {
		t.Errorf("upper bound, 10 s in: %q", text)
	}
	if _, text := fitStatus(wire.Progress{Fraction: -1, Stage: "SMO"}, up, 45, false); !strings.Contains(text, "longer than the 40 s estimated at most") {
		t.Errorf("upper bound, 45 s in: %q", text)
	}
	if got := up.say(); got != "up to 40 s" {
		t.Errorf("say: %q", got)
	}
	if got := (estimate{Seconds: 3}).say(); got != "about 3 s" {
		t.Errorf("say: %q", got)
	}
}

// TestFitStatusSolverAhead: a solver that tells its progress and is ahead
// of the estimate (the last of ten models at 14 s of an estimated 29 s)
// gives the time left from its own pace, not from the estimate.
func TestFitStatusSolverAhead(t *testing.T) {
	frac, text := fitStatus(wire.Progress{Fraction: 0.9, Stage: "model 10 of 10"}, estimate{Seconds: 29}, 14, false)
	if frac != 0.9 || !strings.Contains(text, "about 2 s left") || strings.Contains(text, "15 s") {
		t.Errorf("solver ahead: %v %q, want 0.9 and about 2 s left", frac, text)
	}
	// behind the estimate, the estimate still carries the line
	if frac, text = fitStatus(wire.Progress{Fraction: 0.2, Stage: "model 2 of 10"}, estimate{Seconds: 29}, 14, false); frac != 14.0/29 || !strings.Contains(text, "about 15 s left (estimated)") {
		t.Errorf("solver behind: %v %q", frac, text)
	}
}

// TestLogTick: the trace chart's log axis reads as numbers, not "6e+01".
func TestLogTick(t *testing.T) {
	for v, want := range map[float64]string{60.4: "60", 6: "6", 0.00617: "0.0062", 1234: "1200", 3.1e6: "3.1e+06", 24.7: "25"} {
		if got := logTick(v); got != want {
			t.Errorf("logTick(%v) = %q, want %q", v, got, want)
		}
	}
}
