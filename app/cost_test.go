package app

import (
	"math"
	"testing"
)

// TestSpeedLog: the correction is the median ratio of the recent fits
// long enough to measure, bounded, and 1 before any.
func TestSpeedLog(t *testing.T) {
	var l speedLog
	if f := l.factor(); f != 1 {
		t.Fatalf("no fits: %v", f)
	}
	l.add(0.001, 0.08) // too short to tell
	if f := l.factor(); f != 1 {
		t.Errorf("a 1 ms prediction moved the factor to %v", f)
	}
	for _, r := range []float64{2, 3, 100} {
		l.add(1, r)
	}
	if f := l.factor(); f != 3 {
		t.Errorf("median of 2, 3, 100: %v", f)
	}
	l.add(1, 4)
	if f := l.factor(); math.Abs(f-math.Sqrt(12)) > 1e-12 {
		t.Errorf("even count: %v, want √(3·4)", f)
	}
	for i := 0; i < 20; i++ {
		l.add(1, 1000)
	}
	if f := l.factor(); f != 8 || len(l.ratios) != speedWindow {
		t.Errorf("bounded: %v over %d fits", f, len(l.ratios))
	}
}
