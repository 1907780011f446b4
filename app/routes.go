// Package ui (directory app/) is LUPI Lab's user interface: go-app components
// for the playground, the comparison and model-selection views and the About
// page. It builds for the server (pre-rendering) and for wasm. It does no
// numerics: it calls lupilab/models/run, viz and friends and draws what they
// return.
package ui

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	_ "lupilab/models/all" // registers every model
)

// Register declares the app's routes. The server and the wasm main both call
// it, so pre-rendered pages and the client agree.
func Register() {
	app.Route("/", &Shell{})
}

// Pages lists the URL paths of the app's pages (for the static export and
// the server's allow-list). The app is one page; its views are tabs whose
// state lives in the URL query, which works on any static host.
func Pages() []string { return []string{"/"} }
