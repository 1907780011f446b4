//go:build js && wasm

// Command wasm is LUPI Lab's browser entry point (GOOS=js GOARCH=wasm): it
// declares the routes and hands control to go-app. The same routes are
// declared by the server for pre-rendering.
package main

import (
	"runtime"
	"syscall/js"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	ui "lupilab/app"
)

func main() {
	ui.SetupGC()
	ui.Register()
	// In the loader worker's warm-up (web/warm.js), which runs this build
	// once so that V8 compiles its functions there rather than on the
	// page's main thread: a way to run the garbage collector, whose code a
	// short run would otherwise never reach.
	if js.Global().Get("lupiStandIn").Truthy() {
		js.Global().Set("lupiCollect", js.FuncOf(func(js.Value, []js.Value) any {
			runtime.GC()
			return nil
		}))
	}
	// Let the browser breathe between the Go runtime's start (with the
	// packages' initialisers) and go-app's first render: two main-thread
	// tasks instead of one long one.
	time.Sleep(time.Millisecond)
	app.RunWhenOnBrowser()
}
