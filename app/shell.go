package app

import (
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Shell is the page frame: header, tabs and the active view.
type Shell struct {
	app.Compo
	tab    string
	tour   string // /learn/<tour>
	update bool   // a new version was deployed and is ready
}

// OnAppUpdate is called by go-app when the service worker has installed a
// newer version of the app: offer to reload into it.
func (s *Shell) OnAppUpdate(ctx app.Context) {
	s.update = ctx.AppUpdateAvailable()
}

// OnMount picks up a new version installed before app.wasm started (see
// web/boot.js), which go-app's own notice misses.
func (s *Shell) OnMount(ctx app.Context) {
	page = ctx
	if v := app.Window().Get("lupiUpdatePending"); v.Truthy() {
		s.update = true
	}
}

// reloadIntoNewVersion reloads once the new version's service worker has
// taken over (web/boot.js), so that the reloaded page is the new version
// and not the old one served a last time.
func reloadIntoNewVersion(ctx app.Context) {
	if f := app.Window().Get("lupiReloadIntoNewVersion"); f.Truthy() {
		f.Invoke()
		return
	}
	ctx.Reload()
}

var tabs = []struct{ id, label, href string }{
	{"play", "Playground", "/"},
	{"learn", "Learn", "/learn"},
	{"papers", "Papers", "/?tab=papers"},
	{"about", "About", "/?tab=about"},
}

// OnNav reads the view from the URL: /learn… are the tours, otherwise the
// tab query value.
func (s *Shell) OnNav(ctx app.Context) {
	path := strings.TrimPrefix(ctx.Page().URL().Path, staticBase(ctx))
	switch {
	case strings.HasPrefix(path, "/learn"):
		s.tab, s.tour = "learn", strings.Trim(strings.TrimPrefix(path, "/learn"), "/")
	default:
		s.tab = ctx.Page().URL().Query().Get("tab")
	}
	if s.tab == "" {
		s.tab = "play"
	}
}

// Render implements app.Composer.
func (s *Shell) Render() app.UI {
	if s.tab == "" {
		s.tab = "play"
	}
	var view app.UI
	switch s.tab {
	case "about":
		view = &About{}
	case "papers":
		view = &Papers{}
	case "learn":
		view = &Learn{Tour: s.tour}
	default:
		view = &Playground{}
	}
	return app.Div().Class("shell").Body(
		app.Header().Class("top").Body(
			app.Div().Class("brand").Body(
				app.Img().Src("/web/icon.svg").Alt("").Class("logo"),
				app.Span().Text("LUPI Lab"),
				app.Span().Class("tagline").Text("learning using privileged information — in your browser"),
			),
			app.Nav().Aria("label", "Views").Body(
				app.Range(tabs).Slice(func(i int) app.UI {
					t := tabs[i]
					a := app.A().Class("tab").ID("tab-" + t.id).Href(t.href).Text(t.label)
					if s.tab == t.id {
						a = a.Aria("current", "page")
					}
					return a
				}),
			),
		),
		app.If(s.update, app.Div().ID("update").Class("notice update").Aria("live", "polite").Body(
			app.Text("A new version of LUPI Lab is ready. "),
			app.Button().ID("update-reload").Text("Reload to update").OnClick(func(ctx app.Context, e app.Event) { reloadIntoNewVersion(ctx) }),
		)),
		app.Main().Body(view),
	)
}
