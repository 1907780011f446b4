package model

import "time"

// Watch lets a caller see a fit's intermediate models while it trains (the
// app's "watch it learn"). A fit that supports it asks Due at each step of
// its solver (an SMO iteration, an EP sweep, a type-II ML step) and, when it
// says yes, builds the model its current iterate defines and hands it to
// Take. With Options.Watch nil nothing is asked or built: the fit is the
// same, bit for bit, and as fast.
type Watch struct {
	// Due reports whether a snapshot is wanted at this step (iter counts
	// the solver's steps from 1). It must be cheap.
	Due func(iter int) bool
	// Take receives the snapshot.
	Take func(Snapshot)
}

// Snapshot is a fit in progress.
type Snapshot struct {
	Iter  int    `json:"iter"`            // solver steps so far
	Stage string `json:"stage,omitempty"` // "SMO", "EP sweep", "type-II ML step", "model 2 of 3"
	// Quantity names what Value measures ("max KKT violation", "log
	// evidence"), and Log says it is best plotted on a log scale.
	Quantity string  `json:"quantity"`
	Value    float64 `json:"value"`
	Log      bool    `json:"log,omitempty"`
	// Model predicts as the fit would if it stopped here; nil when the
	// iterate does not define one (e.g. one-vs-rest families between
	// their sub-models). Binary is a binary fitter's model, which
	// WrapBinary turns into Model.
	Model  Fitted      `json:"-"`
	Binary BinaryModel `json:"-"`
}

// Snapshot hands s to the watch when the fit is watched.
func (o Options) Snapshot(s Snapshot) {
	if o.Watch != nil && o.Watch.Take != nil {
		o.Watch.Take(s)
	}
}

// Watching reports whether a snapshot is due at step iter.
func (o Options) Watching(iter int) bool {
	return o.Watch != nil && o.Watch.Due != nil && o.Watch.Due(iter)
}

// Frames is a snapshot schedule for people watching: steps 1, 2, 4, 8, …
// (so that a fit of a few hundred iterations still shows several stages)
// and, in between, one snapshot every Interval of wall time.
type Frames struct {
	Interval time.Duration
	next     int
	last     time.Time
}

// Due implements Watch.Due. (It reads the clock at every step: only a
// watched fit pays for that.)
func (f *Frames) Due(iter int) bool {
	if f.next == 0 {
		f.next = 1
	}
	due := iter >= f.next || (f.Interval > 0 && time.Since(f.last) >= f.Interval)
	if due {
		for f.next <= iter {
			f.next *= 2
		}
		f.last = time.Now()
	}
	return due
}
