package ui

import (
	"context"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/model"
)

// job runs long work off the event handler: the work runs in a goroutine and
// reports progress through a callback that, every ~15 ms, updates the
// progress bar and yields to the browser (yieldToBrowser). Go's wasm is
// single-threaded, so that yield is what hands the event loop back to the
// browser: the page repaints and the Cancel button's click is delivered,
// which cancels the context the work checks.
type job struct {
	busy     bool
	progress float64
	stage    string
	cancel   context.CancelFunc
	serial   int
	done     chan struct{} // closed when the latest job's goroutine has returned
}

// start cancels any running job and runs work; done is called on the UI
// goroutine unless a newer job has started since. owner is the component that
// shows the job: it is re-rendered after every change, whichever component's
// context started the job (a child's event handler may start it).
func (j *job) start(ctx app.Context, owner app.Composer, stage string, work func(jobCtx context.Context, progress func(model.Progress)) (any, error), done func(ctx app.Context, res any, err error)) {
	if j.cancel != nil {
		j.cancel()
	}
	jobCtx, cancel := context.WithCancel(context.Background())
	j.serial++
	mine := j.serial
	j.cancel, j.busy, j.progress, j.stage = cancel, true, 0, stage
	// One job's work at a time: a new job waits until the one it cancelled
	// has returned, so two fits never interleave their yields.
	// Updates go through the owner, not the element whose handler started
	// the job: go-app silently drops a dispatch whose source is no longer
	// mounted, and a re-render may replace that element (a paper's Run
	// button did) — the job then never showed progress nor finished.
	dispatch := func(fn func(app.Context)) {
		ctx.Dispatcher().Dispatch(app.Dispatch{Mode: app.Update, Source: owner, Function: fn})
	}
	prev, finished := j.done, make(chan struct{})
	j.done = finished
	ctx.Async(func() {
		defer close(finished)
		if prev != nil {
			<-prev
		}
		last := time.Now()
		var maxGap time.Duration
		var maxStage string
		progress := func(p model.Progress) {
			gap := time.Since(last)
			if gap < 15*time.Millisecond {
				return
			}
			if gap > maxGap {
				maxGap, maxStage = gap, p.Stage+" "+p.Message
				app.Window().Set("__lupiMaxGap", maxGap.Seconds()*1000)
				app.Window().Set("__lupiMaxGapStage", maxStage)
			}
			last = time.Now()
			dispatch(func(ctx app.Context) {
				if mine == j.serial {
					if p.Fraction >= 0 {
						j.progress = p.Fraction
					}
					if p.Stage != "" {
						j.stage = p.Stage
					}
					owner.Update()
				}
			})
			yieldToBrowser()
		}
		// Let the "busy" state paint before the work starts.
		yieldToBrowser()
		res, err := work(jobCtx, progress)
		dispatch(func(ctx app.Context) {
			if mine != j.serial {
				return // superseded by a newer job
			}
			j.busy = false
			cancel()
			done(ctx, res, err)
			owner.Update()
		})
	})
}

func (j *job) stop() {
	if j.cancel != nil {
		j.cancel()
	}
}

// view renders the progress bar and the Cancel button.
func (j *job) view(id string) app.UI {
	if !j.busy {
		return nil
	}
	return app.Div().Class("progress").Aria("live", "polite").Body(
		app.Progress().ID(id+"-progress").Max(1).Value(j.progress).Aria("label", "Progress"),
		app.Button().ID(id+"-cancel").Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { j.stop() }),
		app.Span().Class("stage").Text(j.stage),
	)
}
