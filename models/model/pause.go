package model

import "time"

// PauseClock measures the time spent inside progress callbacks. In the
// browser a progress callback is where the page gets its turn, so that time
// is not training time: callers subtract Paused from the wall clock.
type PauseClock struct {
	Paused time.Duration
}

// Wrap returns fn timed into c (nil when fn is nil, so a fit without a
// progress callback stays without one).
func (c *PauseClock) Wrap(fn func(Progress)) func(Progress) {
	if fn == nil {
		return nil
	}
	return func(p Progress) {
		t := time.Now()
		fn(p)
		c.Paused += time.Since(t)
	}
}
