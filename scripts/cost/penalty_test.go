package main

import (
	"math"
	"testing"
)

// TestOverlapExponent: B solves 1 + (gSlow − 1)·(eTyp/eSlow)^B = gTyp, is
// clamped, and is 0 (not measured) when the measurements cannot tell it.
func TestOverlapExponent(t *testing.T) {
	gTyp := 1 + 99*math.Pow(0.05/0.2, 1.7)
	if e, b := overlapExponent(0.05, 0.2, gTyp, 100, true); e != 0.2 || math.Abs(b-1.7) > 1e-12 {
		t.Errorf("E, B = %v, %v; want 0.2, 1.7", e, b)
	}
	if _, b := overlapExponent(0.199, 0.2, 1.01, 100, true); b != 4 {
		t.Errorf("a steep fall: B = %v, want the clamp 4", b)
	}
	if _, b := overlapExponent(0, 0.2, 1, 100, true); b != 4 {
		t.Errorf("no overlap and no growth on the typical data: B = %v, want 4", b)
	}
	for _, c := range [][5]float64{{0.05, 0.2, 3, 100, 0}, {0.05, 0, 3, 100, 1}, {0.3, 0.2, 3, 100, 1}, {0.05, 0.2, 100, 100, 1}} {
		if _, b := overlapExponent(c[0], c[1], c[2], c[3], c[4] == 1); b != 0 {
			t.Errorf("%v: B = %v, want 0", c, b)
		}
	}
}
