package app

import (
	"runtime"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// installDebugHooks exposes window.__lupiGoroutines(), which returns a dump
// of every goroutine's stack: the browser tests print it when the page
// stops making progress, to show where.
func installDebugHooks() {
	app.Window().Set("__lupiGoroutines", app.FuncOf(func(this app.Value, args []app.Value) any {
		buf := make([]byte, 1<<20)
		return string(buf[:runtime.Stack(buf, true)])
	}))
}
