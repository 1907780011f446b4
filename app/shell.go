package app

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Shell is the page frame: header, tabs and the active view.
type Shell struct {
	app.Compo
	tab    string
	update bool // a new version was deployed and is ready
}

// OnAppUpdate is called by go-app when the service worker has installed a
// newer version of the app: offer to reload into it.
func (s *Shell) OnAppUpdate(ctx app.Context) {
	s.update = ctx.AppUpdateAvailable()
}

var tabs = []struct{ id, label string }{
	{"play", "Playground"},
	{"papers", "Papers"},
	{"about", "About"},
}

// OnNav reads the tab from the URL.
func (s *Shell) OnNav(ctx app.Context) {
	s.tab = ctx.Page().URL().Query().Get("tab")
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
					return app.Button().
						Class("tab").
						Aria("current", boolAttr(s.tab == t.id)).
						ID("tab-" + t.id).
						Text(t.label).
						OnClick(func(ctx app.Context, e app.Event) {
							s.tab = t.id
							u := *ctx.Page().URL()
							q := u.Query()
							q.Set("tab", t.id)
							u.RawQuery = q.Encode()
							ctx.Page().ReplaceURL(&u)
						})
				}),
			),
		),
		app.If(s.update, app.Div().ID("update").Class("notice update").Aria("live", "polite").Body(
			app.Text("A new version of LUPI Lab is ready. "),
			app.Button().ID("update-reload").Text("Reload to update").OnClick(func(ctx app.Context, e app.Event) { ctx.Reload() }),
		)),
		app.Main().Body(view),
	)
}

func boolAttr(b bool) string {
	if b {
		return "page"
	}
	return "false"
}
