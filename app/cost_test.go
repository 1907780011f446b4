package app

import (
	"math"
	"testing"

	"lupilab/models/spec"
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
