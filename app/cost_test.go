package app

import (
	"math"
	"strings"
	"testing"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// TestSpeedLog: the correction is the median ratio of the recent fits
// long enough to measure — the model's own when it has run, else all —
// bounded, and 1 before any.
func TestSpeedLog(t *testing.T) {
	var l speedLog
	if f := l.factor("svm"); f != 1 {
		t.Fatalf("no fits: %v", f)
	}
	l.add("svm", 0.001, 0.08) // too short to tell
	if f := l.factor("svm"); f != 1 {
		t.Errorf("a 1 ms prediction moved the factor to %v", f)
	}
	l.add("", 1, 2) // a calibration fit: overall only
	if f := l.factor("gpc"); f != 2 {
		t.Errorf("after the calibration fit: %v, want 2", f)
	}
	for _, r := range []float64{3, 100} {
		l.add("svm", 1, r)
	}
	if f := l.factor("svm"); math.Abs(f-math.Sqrt(300)) > 1e-9 {
		t.Errorf("svm's own fits 3, 100: %v, want √300", f)
	}
	if f := l.factor("gpc"); f != 3 {
		t.Errorf("a model without fits takes the median of all (2, 3, 100): %v", f)
	}
	for i := 0; i < 20; i++ {
		l.add("mcpk", 1, 1000)
	}
	if f := l.factor("mcpk"); f != 32 || len(l.byModel["mcpk"]) != speedWindow || len(l.ratios) != speedWindow {
		t.Errorf("bounded: %v over %d fits (%d overall)", f, len(l.byModel["mcpk"]), len(l.ratios))
	}
}

// TestGridEstimate: Tune's estimate is every cell's folds fits on
// (k−1)/k of the training rows, shared by the workers, and an upper bound
// when a cell's C is far above its default.
func TestGridEstimate(t *testing.T) {
	s := &session{set: Settings{Source: "gen:moons", N: 3000, Noise: 0.45, Seed: 1, TrainPct: 70, Model: "svm"}}
	m, err := spec.Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	small := gridCells(s.set.Values(), "C", "gamma", []string{"0.1", "1"}, []string{"1"}, false)
	one, ok := s.gridEstimate(m, small, 5, 1)
	if !ok {
		t.Fatal("no estimate")
	}
	var want float64
	for _, v := range small {
		want += 5 * m.Estimate(spec.Shape{Rows: 2100 * 4 / 5, Dim: 2, Classes: 2}, v).BrowserSeconds()
	}
	if math.Abs(one.Native-want) > 1e-12*want || one.UpTo {
		t.Errorf("two cells at C ≤ 1: %+v, want %v s and no upper bound", one, want)
	}
	two, _ := s.gridEstimate(m, small, 5, 2)
	if math.Abs(two.Native-want/2) > 1e-12*want {
		t.Errorf("on two workers: %v s, want %v", two.Native, want/2)
	}
	big := gridCells(s.set.Values(), "C", "gamma", []string{"1", "1000"}, []string{"1"}, false)
	if e, _ := s.gridEstimate(m, big, 5, 1); !e.UpTo || e.Native < 10*one.Native {
		t.Errorf("a cell at C = 1000: %+v, want an upper bound far above %v s", e, one.Native)
	}
}

// TestEstimateFollowsTheLastFit: after a fit of the model on the same data,
// a large C's estimate is scaled by that fit's training error (and said so)
// instead of the slow case's upper bound; another model's fit, other data
// or an imported model leave the bound.
func TestEstimateFollowsTheLastFit(t *testing.T) {
	set := Settings{Source: "gen:moons", N: 3000, Noise: 0.1, Seed: 1, TrainPct: 70, Model: "svm"}
	s := &session{set: set}
	s.set.Params = map[string]map[string]string{"svm": {"C": "1000"}}
	bound, ok := s.estimate()
	if !ok || !bound.UpTo || bound.Overlap >= 0 || !strings.HasPrefix(bound.say(), "up to") || !strings.Contains(bound.why(), "train once") {
		t.Fatalf("no earlier fit: %+v (%s; %s), want an upper bound", bound, bound.say(), bound.why())
	}
	res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{NTrain: 2100}, Scores: wire.Scores{TrainAcc: 0.99}}
	s.shown = &shown{set: set, res: res}
	got, _ := s.estimate()
	if got.UpTo || math.Abs(got.Overlap-0.01) > 1e-12 || got.Seconds >= bound.Seconds/5 || !strings.HasPrefix(got.say(), "about") ||
		!strings.Contains(got.why(), "1.0 %") {
		t.Errorf("after a fit with 1 %% training error: %+v (%s; %s), want an estimate well below the bound %v s", got, got.say(), got.why(), bound.Seconds)
	}
	for name, sh := range map[string]*shown{
		"another model": {set: Settings{Source: set.Source, N: set.N, Noise: set.Noise, Seed: 1, TrainPct: 70, Model: "l2svm"}, res: res},
		"other data":    {set: Settings{Source: set.Source, N: set.N, Noise: 0.3, Seed: 1, TrainPct: 70, Model: "svm"}, res: res},
		"an import":     {set: set, res: &wire.FitResult{Model: "svm", Imported: true, Data: res.Data, Scores: res.Scores}},
	} {
		s.shown = sh
		if e, _ := s.estimate(); !e.UpTo || e.Seconds != bound.Seconds {
			t.Errorf("after %s: %+v, want the upper bound", name, e)
		}
	}
	// Tune's grid follows the same fit
	s.shown = &shown{set: set, res: res}
	m, _ := spec.Lookup("svm")
	cells := gridCells(s.set.Values(), "C", "gamma", []string{"1", "1000"}, []string{"1"}, false)
	if e, _ := s.gridEstimate(m, cells, 5, 1); e.UpTo || e.Overlap != got.Overlap {
		t.Errorf("grid after the fit: %+v, want an estimate from its training error", e)
	}
}

// TestEstimateScalesTheLastFitsTime: after a fit of the model on the same
// data, the estimate is that fit's measured time scaled by the cost model's
// ratio between the settings (the same settings: the time itself), not the
// cost model times this device's speed — a fit at C = 1000 that took 10 s
// was still estimated at 7 min afterwards. A watched fit (slowed down to be
// seen) does not anchor.
func TestEstimateScalesTheLastFitsTime(t *testing.T) {
	set := Settings{Source: "gen:moons", N: 3000, Noise: 0.45, Seed: 1, TrainPct: 70, Model: "svm"}
	set.Params = map[string]map[string]string{"svm": {"C": "1000"}}
	s := &session{set: set}
	res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{NTrain: 2100}, Scores: wire.Scores{TrainAcc: 0.83}, Timing: wire.Timing{Fit: 10.27}}
	s.shown = &shown{set: set, res: res}
	same, ok := s.estimate()
	if !ok || math.Abs(same.Seconds-10.27) > 1e-9 || same.Anchor != 10.27 || same.UpTo || !strings.Contains(same.why(), "10 s") {
		t.Errorf("the same settings again: %+v (%s), want the 10.27 s measured", same, same.why())
	}
	m, _ := spec.Lookup("svm")
	sh, _ := s.shape(m)
	s.set.Params = map[string]map[string]string{"svm": {"C": "1"}}
	low, _ := s.estimate()
	want := 10.27 * m.EstimateAfter(sh, spec.Values{"C": "1"}, 0.17).BrowserSeconds() / m.EstimateAfter(sh, spec.Values{"C": "1000"}, 0.17).BrowserSeconds()
	if math.Abs(low.Seconds-want) > 1e-9*want || low.Seconds >= same.Seconds {
		t.Errorf("C = 1 after the C = 1000 fit: %v s, want %v s", low.Seconds, want)
	}
	cells := gridCells(s.set.Values(), "C", "gamma", []string{"1000"}, []string{"1"}, false)
	if g, _ := s.gridEstimate(m, cells, 5, 1); g.Anchor != 10.27 || g.Seconds <= same.Seconds || g.Seconds > 5*same.Seconds {
		t.Errorf("a one-cell grid at the fit's settings, 5 folds of 4/5 of the rows: %+v, want about 5 × 4/5 of 10.27 s", g)
	}
	s.shown.trace = []wire.Snapshot{{}}
	if w, _ := s.estimate(); w.Anchor != 0 {
		t.Errorf("a watched fit anchored the estimate: %+v", w)
	}
}
