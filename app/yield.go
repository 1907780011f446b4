package ui

import (
	"runtime"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Yielding to the browser. Go's wasm runtime is single-threaded and hands
// control back to the JavaScript event loop only when no goroutine can run.
// A worker that sleeps a millisecond is not enough: if the UI goroutine's
// render takes longer than that, the worker is runnable again before the
// runtime goes idle and the browser task grows chunk after chunk. Waiting for
// a MessageChannel message instead blocks the worker until the event loop
// has run — the message is only delivered in a later task, after the
// browser had its turn for input and paint.
var yielder struct {
	once sync.Once
	port app.Value
	ch   chan struct{}
	fn   app.Func
}

// yieldToBrowser blocks until the browser's event loop has run a task (in
// the browser), or sleeps a millisecond (elsewhere).
func yieldToBrowser() {
	if runtime.GOOS != "js" {
		time.Sleep(time.Millisecond)
		return
	}
	y := &yielder
	y.once.Do(func() {
		y.ch = make(chan struct{}, 1)
		mc := app.Window().Get("MessageChannel")
		if !mc.Truthy() {
			return
		}
		ch := mc.New()
		y.fn = app.FuncOf(func(this app.Value, args []app.Value) any {
			select {
			case y.ch <- struct{}{}:
			default:
			}
			return nil
		})
		ch.Get("port1").Set("onmessage", y.fn)
		y.port = ch.Get("port2")
	})
	if y.port == nil {
		time.Sleep(time.Millisecond)
		return
	}
	y.port.Call("postMessage", 0)
	<-y.ch
}
