// Package app (directory app/) is LUPI Lab's user interface: go-app
// components for the playground, the comparison and model-selection views,
// the papers' experiments and the About page. It builds for the server
// (pre-rendering) and for wasm, and it does no numerics: every fit, map and
// parse runs in the compute workers (see pool.go and models/compute); the
// UI knows the models only through their catalogue (models/spec).
package app

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Register declares the app's routes, one exact path per page (the UI build
// has no regular-expression routes: scripts/uimod). The server and the wasm
// main both call it, so pre-rendered pages and the client agree.
func Register() {
	for _, p := range Pages() {
		app.Route(p, &Shell{})
	}
}

// Pages lists the URL paths of the app's pages (for the static export and
// the server's allow-list): the app (its views are tabs whose state lives
// in the URL query, which works on any static host) and the tours.
func Pages() []string {
	p := []string{"/", "/learn"}
	for _, t := range tours {
		p = append(p, "/learn/"+t.id)
	}
	return p
}

// when renders f() only when cond holds. Unlike app.If, whose element is
// built before the condition is looked at, f is not called otherwise.
func when(cond bool, f func() app.UI) app.UI {
	if !cond {
		return nil
	}
	return f()
}
