package app

import (
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// A batch decodes each job's end into the job's own value, reports a
// cancellation and an error as such, leaves a job out once it has ended
// (in any order), and marks only the end of its last running job as last,
// with the batch's wall time.
func TestJobBatch(t *testing.T) {
	var ends []func(app.Context, wire.Message, Affinity)
	b := &jobBatch{send: func(ctx app.Context, kind string, req any, bin *wire.Bin, o JobOptions) *Job {
		if kind != wire.KindCV || o.Priority != PriorityBackground {
			t.Errorf("job sent as %q, priority %d", kind, o.Priority)
		}
		ends = append(ends, o.OnEnd)
		return &Job{id: len(ends)}
	}, window: 3}
	b.start()
	if b.running() {
		t.Fatal("an empty batch runs")
	}
	out := make([]wire.CVResult, 3)
	got := make([]jobEnd, 3)
	for i := range out {
		i := i
		b.submit(nil, wire.KindCV, wire.CVRequest{Folds: 3}, &out[i], JobOptions{Priority: PriorityBackground}, func(ctx app.Context, e jobEnd) { got[i] = e })
	}
	if !b.running() || len(b.jobs) != 3 {
		t.Fatalf("%d jobs after three submits", len(b.jobs))
	}
	msg := func(kind string, body any) wire.Message {
		m, err := wire.Encode(1, kind, body, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	time.Sleep(2 * time.Millisecond)
	ends[1](nil, msg(wire.KindResult, wire.CVResult{Mean: 0.75, SD: 0.1, Metric: "accuracy"}), Affinity{})
	ends[0](nil, msg(wire.KindCancelled, struct{}{}), Affinity{})
	if len(b.jobs) != 1 || b.jobs[0].id != 3 {
		t.Fatalf("after two ends the batch holds %d jobs", len(b.jobs))
	}
	ends[2](nil, msg(wire.KindError, wire.Error{Kind: wire.ErrInput, Message: "one class"}), Affinity{})
	if b.running() {
		t.Error("the batch runs after its last job ended")
	}
	if out[1].Mean != 0.75 || out[1].Metric != "accuracy" || got[1].err != nil || got[1].cancelled || got[1].last {
		t.Errorf("result end: %+v, decoded %+v", got[1], out[1])
	}
	if !got[0].cancelled || got[0].last {
		t.Errorf("cancelled end: %+v", got[0])
	}
	if got[2].err == nil || got[2].err.Error() == "" || !got[2].last || !(got[2].seconds >= 0.002) {
		t.Errorf("last end: %+v", got[2])
	}
}

// A batch hands the pool at most its window of jobs, the next as each
// ends, in the order submitted, saying how long each waited; stop ends the waiting ones at once as
// cancelled (the running ones end when their workers say so), and the
// last end is the last running job's.
func TestJobBatchFeedsItsWindow(t *testing.T) {
	var ends []func(app.Context, wire.Message, Affinity)
	var sent []int
	var waited []time.Duration
	b := &jobBatch{send: func(ctx app.Context, kind string, req any, bin *wire.Bin, o JobOptions) *Job {
		sent = append(sent, req.(wire.CVRequest).Folds)
		waited = append(waited, o.Waited)
		ends = append(ends, o.OnEnd)
		return &Job{id: len(ends)}
	}, window: 2}
	b.start()
	got := make([]jobEnd, 6)
	ended := 0
	for i := range got {
		i := i
		b.submit(nil, wire.KindCV, wire.CVRequest{Folds: i}, &wire.CVResult{}, JobOptions{}, func(ctx app.Context, e jobEnd) { got[i] = e; ended++ })
	}
	if len(sent) != 2 || len(b.waiting) != 4 {
		t.Fatalf("window 2: %d jobs handed over, %d waiting", len(sent), len(b.waiting))
	}
	done, err := wire.Encode(1, wire.KindResult, wire.CVResult{Mean: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Millisecond)
	ends[1](nil, done, Affinity{})
	if len(sent) != 3 || sent[2] != 2 || got[1].last {
		t.Fatalf("after an end: handed over %v, end %+v", sent, got[1])
	}
	// the pool hears how long a held-back job waited (it grows for one
	// that waited long for a free worker)
	if waited[2] < 3*time.Millisecond || waited[0] >= waited[2] {
		t.Errorf("jobs handed over after waiting %v", waited)
	}
	ends[0](nil, done, Affinity{})
	if len(sent) != 4 || sent[3] != 3 {
		t.Fatalf("after a second end: handed over %v", sent)
	}
	b.stop()
	if len(sent) != 4 || ended != 4 || !got[4].cancelled || !got[5].cancelled || got[5].last {
		t.Fatalf("stop: handed over %v, %d ended, waiting ends %+v %+v", sent, ended, got[4], got[5])
	}
	if !b.running() {
		t.Fatal("the batch stopped before its running jobs ended")
	}
	cancelled := wire.Message{V: wire.Version, Kind: wire.KindCancelled}
	ends[3](nil, cancelled, Affinity{})
	ends[2](nil, cancelled, Affinity{})
	if b.running() || !got[2].last || got[3].last || len(sent) != 4 {
		t.Errorf("after the running jobs' ends: running %v, ends %+v %+v, handed over %v", b.running(), got[2], got[3], sent)
	}
}
