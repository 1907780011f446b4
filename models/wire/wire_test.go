package wire

import (
	"strings"
	"testing"
)

// TestOtherVersionIsRefused: a message of another version (a page and a
// worker from different builds) is an error that says what to do, not a
// misread body.
func TestOtherVersionIsRefused(t *testing.T) {
	m, err := Encode(3, KindPace, Pace{Speed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p Pace
	if _, err := m.Decode(&p); err != nil || p.Speed != 2 {
		t.Fatalf("this version: %v, %+v", err, p)
	}
	m.V = Version - 1
	if _, err := m.Decode(&p); err == nil || !strings.Contains(err.Error(), "reload the page") {
		t.Errorf("version %d: %v, want an error that says to reload", m.V, err)
	}
}
