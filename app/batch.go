package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// jobBatch is a set of pool jobs one view starts together (Compare's fits,
// Tune's grid cells): it knows which still run, cancels them all, and times
// the batch from its start to the end of its last job.
type jobBatch struct {
	jobs    []*Job
	started time.Time
	// send starts a job; nil: Submit (tests give a fake pool).
	send func(ctx app.Context, kind string, req any, bin *wire.Bin, opts JobOptions) *Job
}

// running reports whether a job of the batch has not ended yet.
func (b *jobBatch) running() bool { return len(b.jobs) > 0 }

// stop cancels every running job; each still ends through its callback.
func (b *jobBatch) stop() {
	for _, j := range b.jobs {
		j.Cancel()
	}
}

// start begins a new batch now (the jobs of an earlier one are forgotten,
// not cancelled: their ends still reach their callbacks).
func (b *jobBatch) start() { b.jobs, b.started = nil, time.Now() }

// jobEnd is what a batch job's end tells its view: cancelled, or the error
// it ended with (nil: its result decoded into the value given to submit);
// last is true for the batch's last running job, and seconds is then the
// batch's wall time.
type jobEnd struct {
	msg       wire.Message
	cancelled bool
	err       error
	last      bool
	seconds   float64
}

// submit starts one job of the batch on the pool (opt.OnEnd is replaced):
// at its end the final message is decoded into out, the job leaves the
// batch, and onEnd is called.
func (b *jobBatch) submit(ctx app.Context, kind string, req any, out any, opt JobOptions, onEnd func(ctx app.Context, e jobEnd)) {
	var job *Job
	opt.OnEnd = func(ctx app.Context, m wire.Message, w Affinity) {
		_, cancelled, err := decodeEnd(m, out)
		e := jobEnd{msg: m, cancelled: cancelled, err: err}
		for i, j := range b.jobs {
			if j == job {
				b.jobs = append(b.jobs[:i], b.jobs[i+1:]...)
				break
			}
		}
		if len(b.jobs) == 0 {
			e.last, e.seconds = true, time.Since(b.started).Seconds()
		}
		onEnd(ctx, e)
	}
	send := b.send
	if send == nil {
		send = Submit
	}
	job = send(ctx, kind, req, nil, opt)
	b.jobs = append(b.jobs, job)
}
