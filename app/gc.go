package app

import (
	"runtime"
	"runtime/debug"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// The UI build's garbage collection. Its Go heap is small — about 2 MB live
// with a fit on 2 000 points on screen — but handling a fit's result (the
// message, the re-render, the figure) allocates about 4 MB, and with Go's
// default (GOGC = 100, a 4 MB minimum heap) that started two or three
// collections per fit. Go's collector runs on the page's main thread in
// WebAssembly, 5–20 ms each, inside whatever task allocated at that moment:
// often the one that shows the result, which it made a long task. So the
// UI build lets its heap grow to five times the live heap (16 MB at least)
// before collecting by itself, and collects when the main thread is idle
// once a job has allocated a few megabytes (collectWhenIdle): collections
// then fall between a job's messages, not inside them.

const (
	// gcPercent is the UI build's GOGC.
	gcPercent = 400
	// idleCollectAfter is how many bytes allocated since the last idle
	// collection make the next idle period collect.
	idleCollectAfter = 4 << 20
)

var (
	gcPending bool   // an idle callback is waiting
	gcLive    uint64 // the heap after the last idle collection
)

// SetupGC sets the UI build's collector (wasm/ui calls it first) and the
// test hook window.__lupiMem() (the Go heap's size and collections).
func SetupGC() {
	debug.SetGCPercent(gcPercent)
	if runtime.GOOS != "js" {
		return
	}
	app.Window().Set("__lupiMem", app.FuncOf(func(app.Value, []app.Value) any {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return map[string]any{"heapAlloc": float64(m.HeapAlloc), "nextGC": float64(m.NextGC), "numGC": int(m.NumGC), "totalAlloc": float64(m.TotalAlloc)}
	}))
}

// collectWhenIdle asks the browser for the main thread's next idle period
// (requestIdleCallback, within 2 s) and collects then if the heap grew by
// idleCollectAfter since the last idle collection.
func collectWhenIdle() {
	if runtime.GOOS != "js" || gcPending {
		return
	}
	ric := app.Window().Get("requestIdleCallback")
	if !ric.Truthy() {
		return // the warm-up's stand-in page, or an old browser
	}
	gcPending = true
	var cb app.Func
	cb = app.FuncOf(func(app.Value, []app.Value) any {
		cb.Release()
		gcPending = false
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapAlloc < gcLive+idleCollectAfter {
			return nil
		}
		runtime.GC()
		runtime.ReadMemStats(&m)
		gcLive = m.HeapAlloc
		return nil
	})
	opts := app.Window().Get("Object").New()
	opts.Set("timeout", 2000)
	app.Window().Call("requestIdleCallback", cb, opts)
}
