package model

import (
	"testing"
	"time"
)

// TestFrames: snapshots at steps 1, 2, 4, 8, … and, with an interval, also
// when that much time has passed since the last one.
func TestFrames(t *testing.T) {
	var f Frames
	var got []int
	for it := 1; it <= 100; it++ {
		if f.Due(it) {
			got = append(got, it)
		}
	}
	if want := []int{1, 2, 4, 8, 16, 32, 64}; len(got) != len(want) {
		t.Fatalf("due at %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("due at %v, want %v", got, want)
			}
		}
	}
	g := Frames{Interval: time.Millisecond}
	g.Due(1)
	time.Sleep(3 * time.Millisecond)
	if !g.Due(3) {
		t.Error("not due after its interval")
	}
	if g.Due(3) {
		t.Error("due twice at once")
	}
}
