package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// jobBatch is a set of pool jobs one view starts together (Compare's fits,
// Tune's grid cells, the Papers tab's tasks): it knows which still run,
// cancels them all, and times the batch from its start to the end of its
// last job.
//
// A batch hands the pool only a window of its jobs at a time (two per
// worker: one running, one ready to start) and the next as each ends.
// Every job handed over costs the page a message, a callback and its
// request's encoding on the main thread: Tune's 49 cells handed over at
// once made one task of about 30 ms of CPU when Run was clicked. The pool
// still orders what it holds by priority, so a fit the user asks for
// meanwhile overtakes a batch's waiting jobs as before, and a job handed
// over tells the pool how long it has waited, so that the pool still
// starts another worker for a batch that waits on one (it grows for a job
// that has waited 250 ms; held back here, none would wait that long in
// the pool's own queue).
type jobBatch struct {
	jobs    []*Job // handed to the pool, not ended
	waiting []batchJob
	started time.Time
	// send starts a job; nil: Submit (tests give a fake pool).
	send func(ctx app.Context, kind string, req any, bin *wire.Bin, opts JobOptions) *Job
	// window is the most jobs handed to the pool at once; 0: two per
	// worker of the pool (PoolSize).
	window int
}

// batchJob is a job the batch has not handed to the pool yet: hand sends
// it, end ends it without sending it (cancelled).
type batchJob struct {
	ctx  app.Context
	hand func(ctx app.Context)
	end  func(ctx app.Context, m wire.Message)
}

// running reports whether a job of the batch has not ended yet.
func (b *jobBatch) running() bool { return len(b.jobs) > 0 || len(b.waiting) > 0 }

// stop cancels every job: a running one ends through its callback when
// its worker says so, a waiting one at once.
func (b *jobBatch) stop() {
	waiting := b.waiting
	b.waiting = nil
	for _, j := range b.jobs {
		j.Cancel()
	}
	cancelled := wire.Message{V: wire.Version, Kind: wire.KindCancelled}
	for _, w := range waiting {
		w.end(w.ctx, cancelled)
	}
}

// start begins a new batch now (the jobs of an earlier one are forgotten,
// not cancelled: their ends still reach their callbacks; the ones it had
// not handed to the pool never run).
func (b *jobBatch) start() { b.jobs, b.waiting, b.started = nil, nil, time.Now() }

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

// submit adds one job to the batch (opt.OnEnd is replaced), handed to the
// pool at once if the window has room: at its end the final message is
// decoded into out, the job leaves the batch, the next waiting job is
// handed over, and onEnd is called.
func (b *jobBatch) submit(ctx app.Context, kind string, req any, out any, opt JobOptions, onEnd func(ctx app.Context, e jobEnd)) {
	var job *Job
	end := func(ctx app.Context, m wire.Message) {
		_, cancelled, err := decodeEnd(m, out)
		e := jobEnd{msg: m, cancelled: cancelled, err: err}
		for i, j := range b.jobs {
			if j == job {
				b.jobs = append(b.jobs[:i], b.jobs[i+1:]...)
				break
			}
		}
		b.feed()
		if !b.running() {
			e.last, e.seconds = true, time.Since(b.started).Seconds()
		}
		onEnd(ctx, e)
	}
	opt.OnEnd = func(ctx app.Context, m wire.Message, w Affinity) { end(ctx, m) }
	since := time.Now()
	hand := func(ctx app.Context) {
		// the pool grows for a job that has waited for a free worker
		// (web/pool.js): a job held back here has been waiting too
		opt.Waited = time.Since(since)
		send := b.send
		if send == nil {
			send = Submit
		}
		job = send(ctx, kind, req, nil, opt)
		b.jobs = append(b.jobs, job)
	}
	b.waiting = append(b.waiting, batchJob{ctx: ctx, hand: hand, end: end})
	b.feed()
}

// feed hands waiting jobs to the pool while the window has room.
func (b *jobBatch) feed() {
	window := b.window
	if window <= 0 {
		window = 2 * PoolSize()
	}
	for len(b.jobs) < window && len(b.waiting) > 0 {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		w.hand(w.ctx)
	}
}
