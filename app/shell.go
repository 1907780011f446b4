package app

import (
	"net/url"
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
// web/boot.js), which go-app's own notice misses, and points the
// Playground link at the last session's settings.
func (s *Shell) OnMount(ctx app.Context) {
	page = ctx
	play.shell = s
	if play.query == "" {
		ctx.LocalStorage().Get(sessionKey, &play.query)
	}
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

// play holds the playground's settings as a query string, for the header's
// Playground link: leaving the playground for another tab unmounts it,
// and the link brings its settings back (a bare "/" showed the defaults).
// The playground sets it whenever its settings change (setPlayAddress).
var play struct {
	query string
	shell *Shell
}

// setPlayAddress records the playground's settings and redraws the header
// when its link changes (the playground's own link too: clicking a stale
// one would navigate back to older settings).
func setPlayAddress(query string) {
	if play.query == query {
		return
	}
	play.query = query
	if sh := play.shell; sh != nil && sh.Mounted() {
		sh.Update()
	}
}

// tabHref is a tab's link: the playground's carries its settings.
func tabHref(id, href string) string {
	if id == "play" && play.query != "" {
		return "/?" + play.query
	}
	return href
}

var tabs = []struct{ id, label, href string }{
	{"play", "Playground", "/"},
	{"learn", "Learn", "/learn"},
	{"papers", "Papers", "/?tab=papers"},
	{"about", "About", "/?tab=about"},
}

// OnInit reads the view from the page's address before the first render
// in the browser: go-app mounts the page first and navigates after, so
// without it every page's first render was the playground's (with its
// start-up work), replaced a moment later by the page asked for.
func (s *Shell) OnInit() {
	if app.IsClient {
		// the client's static resource URL is what staticBase resolves
		s.fromURL(app.Window().URL(), app.Getenv("GOAPP_STATIC_RESOURCES_URL"))
	}
}

// OnPreRender reads the view from the request's address for the server's
// pre-rendered page (go-app does not navigate there: without it, every
// page was pre-rendered as the playground).
func (s *Shell) OnPreRender(ctx app.Context) {
	s.fromURL(ctx.Page().URL(), staticBase(ctx))
}

// OnNav reads the view from the URL.
func (s *Shell) OnNav(ctx app.Context) {
	s.fromURL(ctx.Page().URL(), staticBase(ctx))
}

// fromURL sets the view from a page address under the site's base path:
// /learn… are the tours, otherwise the tab query value.
func (s *Shell) fromURL(u *url.URL, base string) {
	path := strings.TrimPrefix(u.Path, base)
	s.tour = ""
	switch {
	case strings.HasPrefix(path, "/learn"):
		s.tab, s.tour = "learn", strings.Trim(strings.TrimPrefix(path, "/learn"), "/")
	default:
		s.tab = u.Query().Get("tab")
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
					a := app.A().Class("tab").ID("tab-" + t.id).Href(tabHref(t.id, t.href)).Text(t.label)
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
