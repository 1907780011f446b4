package model

import (
	"testing"
	"time"
)

func TestPauseClock(t *testing.T) {
	var c PauseClock
	if c.Wrap(nil) != nil {
		t.Error("a nil callback was wrapped into a non-nil one")
	}
	calls := 0
	f := c.Wrap(func(Progress) { calls++; time.Sleep(3 * time.Millisecond) })
	f(Progress{})
	f(Progress{})
	if calls != 2 || c.Paused < 6*time.Millisecond {
		t.Errorf("calls %d, paused %v (want 2 calls, ≥ 6 ms)", calls, c.Paused)
	}
}
