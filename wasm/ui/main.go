//go:build js && wasm

// Command wasm is LUPI Lab's browser entry point (GOOS=js GOARCH=wasm): it
// declares the routes and hands control to go-app. The same routes are
// declared by the server for pre-rendering.
package main

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	ui "lupilab/app"
)

func main() {
	ui.Register()
	// Let the browser breathe between the Go runtime's start (with the
	// packages' initialisers) and go-app's first render: two main-thread
	// tasks instead of one long one.
	time.Sleep(time.Millisecond)
	app.RunWhenOnBrowser()
}
