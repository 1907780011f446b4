package app

import (
	"math"
	"testing"
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
