package app

import (
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// Compute is the page's handle on the pool of compute workers (web/pool.js):
// every fit, map, cross-validation cell, upload parse and experiment step
// runs there, never on the page's main thread. Jobs report back through
// callbacks that run on the UI goroutine.
type Compute struct{}

// Priorities of jobs: the playground's own fit and maps go before Tune's
// cells and the Papers tab's tasks.
const (
	PriorityBackground  = 0
	PriorityInteractive = 10
)

// Affinity names the worker that holds a kept model (its index and its
// generation: a replaced worker no longer holds it).
type Affinity struct {
	Index, Gen int
}

// JobOptions are the callbacks and scheduling of a job. Every callback runs
// on the UI goroutine through ctx.Dispatch; OnEnd runs exactly once.
type JobOptions struct {
	Priority int
	Affinity *Affinity
	// Alone starts the job only when no other job runs or waits, on a
	// worker already started (web/pool.js): for a measurement of the
	// device's speed, which other work would distort.
	Alone bool
	// Waited is how long the job has already waited for the pool (a
	// batch's job held back until the pool had room, jobBatch): the pool
	// grows for a job that has waited long enough for a free worker.
	Waited     time.Duration
	OnProgress func(ctx app.Context, p wire.Progress)
	OnPart     func(ctx app.Context, m wire.Message, worker Affinity)
	// OnEnd receives the final message: KindResult, KindError or
	// KindCancelled.
	OnEnd func(ctx app.Context, m wire.Message, worker Affinity)
}

// Job is a submitted job.
type Job struct {
	id   int
	done bool
}

// Cancel stops the job (see web/pool.js: a worker that has not stopped
// within 100 ms is replaced). OnEnd then receives KindCancelled.
func (j *Job) Cancel() {
	if j == nil || j.done || runtime.GOOS != "js" {
		return
	}
	app.Window().Get("lupiPool").Call("cancel", j.id)
}

// Pace changes the pace of a running (or queued) watched fit: its speed,
// or no more snapshots (wire.Pace).
func (j *Job) Pace(p wire.Pace) {
	if j == nil || j.done || runtime.GOOS != "js" {
		return
	}
	body, err := json.Marshal(p)
	if err != nil {
		return
	}
	app.Window().Get("lupiPool").Call("signal", j.id, wire.KindPace, string(body))
}

// poolStarted is set once the pool has been asked to start.
var poolStarted bool

// StartCompute starts the pool (fetching and compiling compute.wasm off the
// main thread) once the UI is live. size 0 lets the pool choose.
func StartCompute(ctx app.Context, size int) {
	if poolStarted || runtime.GOOS != "js" {
		return
	}
	pool := app.Window().Get("lupiPool")
	if !pool.Truthy() {
		return
	}
	poolStarted = true
	opts := app.Window().Get("Object").New()
	opts.Set("wasm", ctx.ResolveStaticResource("/web/compute.wasm"))
	opts.Set("worker", ctx.ResolveStaticResource("/web/worker.js"))
	opts.Set("version", wire.Version)
	opts.Set("size", size)
	pool.Call("start", opts)
}

// ComputeReady calls fn on the UI goroutine once a worker is ready (at once
// when one is).
func ComputeReady(ctx app.Context, fn func(ctx app.Context)) {
	if runtime.GOOS != "js" {
		return
	}
	pool := app.Window().Get("lupiPool")
	if !pool.Truthy() {
		return
	}
	var cb app.Func
	cb = app.FuncOf(func(this app.Value, args []app.Value) any {
		cb.Release()
		ctx.Dispatch(fn)
		return nil
	})
	pool.Call("onReady", cb)
}

// ComputeLoad is how far the compute engine's loading is (web/pool.js's
// loading()): Phase "waiting" (not started), "fetching" (Loaded of Total
// bytes of compute.wasm; Total 0 when not known), "starting" (compiled; the
// engine starting in its worker), "ready" or "failed".
type ComputeLoad struct {
	Phase         string
	Loaded, Total float64
}

// ComputeLoading returns how far the compute engine's loading is.
func ComputeLoading() ComputeLoad {
	if runtime.GOOS != "js" {
		return ComputeLoad{Phase: "waiting"}
	}
	pool := app.Window().Get("lupiPool")
	if !pool.Truthy() || !pool.Get("loading").Truthy() {
		return ComputeLoad{Phase: "waiting"}
	}
	l := pool.Call("loading")
	return ComputeLoad{Phase: l.Get("phase").String(), Loaded: l.Get("loaded").Float(), Total: l.Get("total").Float()}
}

// OnComputeLoading calls fn on the UI goroutine at each step of the compute
// engine's loading, until it is ready; stop ends the calls.
func OnComputeLoading(ctx app.Context, fn func(ctx app.Context)) (stop func()) {
	stop = func() {}
	if runtime.GOOS != "js" {
		return stop
	}
	pool := app.Window().Get("lupiPool")
	if !pool.Truthy() || !pool.Get("onLoading").Truthy() {
		return stop // (the UI build's warm-up stand-in has none)
	}
	cb := app.FuncOf(func(this app.Value, args []app.Value) any {
		ctx.Dispatch(fn)
		return nil
	})
	off := pool.Call("onLoading", cb)
	stopped := false
	return func() {
		if !stopped {
			stopped = true
			off.Invoke()
			cb.Release()
		}
	}
}

// ComputeFailed returns why the compute engine could not load ("" if it did
// or is loading).
func ComputeFailed() string {
	if runtime.GOOS != "js" {
		return ""
	}
	pool := app.Window().Get("lupiPool")
	if !pool.Truthy() {
		return "its script did not load"
	}
	return pool.Call("failed").String()
}

// SetPoolSize changes the number of workers.
func SetPoolSize(n int) {
	if runtime.GOOS != "js" {
		return
	}
	if pool := app.Window().Get("lupiPool"); pool.Truthy() {
		pool.Call("setSize", n)
	}
}

// PoolSize returns the number of workers the pool may run.
func PoolSize() int {
	if runtime.GOOS != "js" {
		return 1
	}
	if pool := app.Window().Get("lupiPool"); pool.Truthy() {
		return pool.Call("size").Int()
	}
	return 1
}

// page is the mounted Shell's context. Jobs outlive the component that
// started them (applying Tune's best cell leaves the Tune view for the
// model view; a user leaves the Papers tab mid-run), and go-app drops a
// dispatch whose source is no longer mounted: job messages are dispatched
// through the Shell, which is mounted as long as the page shows anything.
var page app.Context

// dispatch runs fn on the UI goroutine through the page's Shell, or
// through ctx before the Shell has mounted. It marks no component for
// update (go-app's Next mode): fn's handlers redraw what they change
// (session.refresh, a panel's Update); Context.Dispatch would also redraw
// the Shell, the whole page's frame, on every job message.
func dispatch(ctx app.Context, fn func(app.Context)) {
	src := ctx
	if page != nil && page.Src().Mounted() {
		src = page
	}
	src.Dispatcher().Dispatch(app.Dispatch{Mode: app.Next, Source: src.Src(), Function: fn})
}

// Submit sends a request to the pool. It never blocks; the job's messages
// arrive through opts' callbacks.
func Submit(ctx app.Context, kind string, req any, bin *wire.Bin, opts JobOptions) *Job {
	j := &Job{}
	end := func(m wire.Message, w Affinity) {
		if j.done {
			return
		}
		j.done = true
		if opts.OnEnd != nil {
			dispatch(ctx, func(ctx app.Context) { opts.OnEnd(ctx, m, w) })
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		m, _ := wire.Encode(0, wire.KindError, wire.Error{Kind: wire.ErrInternal, Message: err.Error()}, nil)
		end(m, Affinity{})
		return j
	}
	pool := app.Window().Get("lupiPool")
	if runtime.GOOS != "js" || !pool.Truthy() {
		m, _ := wire.Encode(0, wire.KindError, wire.Error{Kind: wire.ErrInternal, Message: "the compute engine is not available in this browser"}, nil)
		end(m, Affinity{})
		return j
	}
	bins := app.Window().Get("Array").New()
	if bin != nil {
		u8 := app.Window().Get("Uint8Array")
		for _, b := range bin.Parts() {
			a := u8.New(len(b))
			app.CopyBytesToJS(a, b)
			bins.Call("push", a.Get("buffer"))
		}
	}
	var onMessage app.Func
	onMessage = app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) < 5 {
			return nil
		}
		m := wire.Message{V: wire.Version, ID: int64(j.id), Kind: args[0].String(), Body: []byte(args[1].String())}
		if b := args[2]; b.Truthy() {
			u8 := app.Window().Get("Uint8Array")
			for i := 0; i < b.Length(); i++ {
				a := u8.New(b.Index(i))
				buf := make([]byte, a.Length())
				app.CopyBytesToGo(buf, a)
				m.Bin = append(m.Bin, buf)
			}
		}
		w := Affinity{Index: args[3].Int(), Gen: args[4].Int()}
		collectWhenIdle()
		switch m.Kind {
		case wire.KindProgress:
			if opts.OnProgress != nil {
				var p wire.Progress
				if json.Unmarshal(m.Body, &p) == nil {
					dispatch(ctx, func(ctx app.Context) { opts.OnProgress(ctx, p) })
				}
			}
		case wire.KindPart:
			if opts.OnPart != nil {
				dispatch(ctx, func(ctx app.Context) { opts.OnPart(ctx, m, w) })
			}
		default:
			onMessage.Release()
			if m.Kind != wire.KindResult && m.Kind != wire.KindError && m.Kind != wire.KindCancelled {
				m.Kind = wire.KindError
				m.Body, _ = json.Marshal(wire.Error{Kind: wire.ErrInternal, Message: fmt.Sprintf("unexpected message %q", args[0].String())})
			}
			end(m, w)
		}
		return nil
	})
	o := app.Window().Get("Object").New()
	o.Set("priority", opts.Priority)
	o.Set("alone", opts.Alone)
	o.Set("waited", float64(opts.Waited)/float64(time.Millisecond))
	if opts.Affinity != nil {
		a := app.Window().Get("Object").New()
		a.Set("index", opts.Affinity.Index)
		a.Set("gen", opts.Affinity.Gen)
		o.Set("affinity", a)
	}
	o.Set("onMessage", onMessage)
	j.id = pool.Call("submit", kind, string(body), bins, o).Int()
	return j
}

// decodeEnd reads a job's final message: the result into v, or the error
// (nil and cancelled for a cancelled job).
func decodeEnd(m wire.Message, v any) (bin *wire.Bin, cancelled bool, err error) {
	switch m.Kind {
	case wire.KindCancelled:
		return nil, true, nil
	case wire.KindError:
		var e wire.Error
		if _, derr := m.Decode(&e); derr != nil {
			return nil, false, derr
		}
		return nil, false, &e
	}
	bin, err = m.Decode(v)
	return bin, false, err
}
