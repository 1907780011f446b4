package app

import (
	"net/url"
	"runtime"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/datasets"
)

// Playground is the main view: data and model on the left, the result on
// the right (the decision map, the numbers, exports), with Compare and Tune
// beside the single model. It owns the session; its parts are components
// of their own that read the session (DataPanel, ModelPanel, ResultView,
// ComparePanel, TunePanel).
type Playground struct {
	app.Compo
	s *session
	// newcomer is set on a first visit: one pointer to the tours.
	newcomer bool
	// running is set once mounted: settings from the address are then
	// applied as a change.
	running bool
	// unlisten removes the page's keyboard shortcuts.
	unlisten func()
}

// OnInit creates the session.
func (p *Playground) OnInit() { p.s = newSession() }

// OnNav follows a navigation while the playground is on screen (a link or
// Back/Forward to another playground address): it shows what the address
// says. A playground that a navigation brings on screen (from another tab,
// or Back) gets no OnNav — go-app sends it to the components already there
// — and reads the address in OnMount.
func (p *Playground) OnNav(ctx app.Context) { p.fromAddress(ctx) }

// fromAddress takes the settings from the page's address or, when it has
// none, from the last session in local storage, and then writes them into
// the address. Once the playground runs, new settings are applied as any
// change is (refit, redraw).
func (p *Playground) fromAddress(ctx app.Context) {
	s := p.s
	q, unread := LinkQuery(ctx.Page().URL().RawQuery)
	set, ignored, ok := DecodeSettings(q, DefaultSettings())
	ignored = append(unread, ignored...)
	restored := false
	if !ok {
		var saved string
		ctx.LocalStorage().Get(sessionKey, &saved)
		if q, err := url.ParseQuery(saved); err == nil {
			set, _, ok = DecodeSettings(q, DefaultSettings())
			restored = ok
		}
	}
	if !ok {
		set = s.set
	}
	changed := set.Encode().Encode() != s.set.Encode().Encode()
	// A new link's notice replaces the last one; the page's own address
	// (written back below, and read again by the navigation that follows
	// the first mount) leaves it be.
	if changed || len(ignored) > 0 {
		s.linkNotes = ignored
	}
	if changed {
		s.set = set
		if strings.HasPrefix(s.set.Source, "up:") {
			s.restoreUpload(ctx)
		}
	}
	if restored && !p.running {
		s.message = "Restored your last session."
	}
	if restored || len(ignored) > 0 {
		s.saveState(ctx) // the address says what is on screen
	}
	s.checkDataset(ctx)
	setPlayAddress(s.set.Encode().Encode())
	if changed && p.running {
		s.changed(ctx)
	}
}

// OnMount reads the settings from the address (fromAddress), marks the
// page live (tests and the load-time budget wait for the mark), starts
// the compute engine, loads the dataset list and, once a worker is ready,
// shows the data and trains what the link or the default asks for.
func (p *Playground) OnMount(ctx app.Context) {
	s := p.s
	p.fromAddress(ctx)
	p.running = true
	s.register(p)
	var seen bool
	ctx.LocalStorage().Get(toursSeenKey, &seen)
	p.newcomer = !seen
	markLive()
	p.listenKeys(ctx)
	StartCompute(ctx, poolSizeSetting(ctx))
	ctx.Async(func() {
		b, err := fetch(staticBase(ctx)+"/web/datasets/"+datasets.IndexFile, 1<<20)
		var idx []datasets.IndexEntry
		if err == nil {
			idx, err = datasets.ParseIndex(b)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				s.indexErr = "Could not load the list of datasets: " + err.Error()
			}
			s.index = idx
			setDatasetIndex(idx)
			s.checkDataset(ctx)
			s.refresh()
		})
	})
	ComputeReady(ctx, func(ctx app.Context) {
		s.computeReady = true
		s.requestPreview(ctx)
		calibrate(ctx)
		if s.set.View == "model" && s.autoTrain() {
			s.startFit(ctx)
		}
		s.refresh()
	})
	ctx.After(0, func(ctx app.Context) {
		if why := ComputeFailed(); why != "" {
			s.computeErr = why
			s.refresh()
		}
	})
}

// OnDismount cancels the running jobs.
func (p *Playground) OnDismount() {
	p.s.cancelFit()
	p.s.cmp.stop()
	p.s.tune.stop()
	p.s.unregister(p)
	if p.unlisten != nil {
		p.unlisten()
		p.unlisten = nil
	}
}

// listenKeys makes Ctrl+Z (⌘Z) undo the last edit of the points and
// Ctrl+Shift+Z or Ctrl+Y (⇧⌘Z) redo it, as the Undo and Redo buttons do —
// except in a text field, where the browser undoes the typing. A key that
// has nothing to undo or redo is left to the browser.
func (p *Playground) listenKeys(ctx app.Context) {
	if runtime.GOOS != "js" || p.unlisten != nil {
		return
	}
	s := p.s
	cb := app.FuncOf(func(this app.Value, args []app.Value) any {
		e := args[0]
		act := shortcut(e.Get("key").String(), e.Get("ctrlKey").Bool(), e.Get("metaKey").Bool(), e.Get("shiftKey").Bool(), e.Get("altKey").Bool())
		if act == "" || !s.editable() {
			return nil
		}
		if t := e.Get("target"); t.Truthy() && t.Get("tagName").Truthy() &&
			typesText(t.Get("tagName").String(), t.Get("type").String(), t.Get("isContentEditable").Bool()) {
			return nil
		}
		if (act == "undo" && len(s.set.Edits) == 0) || (act == "redo" && !s.canRedo()) {
			return nil
		}
		e.Call("preventDefault")
		ctx.Dispatch(func(ctx app.Context) {
			if act == "undo" {
				s.undo(ctx)
			} else {
				s.redoEdit(ctx)
			}
		})
		return nil
	})
	doc := app.Window().Get("document")
	doc.Call("addEventListener", "keydown", cb)
	p.unlisten = func() { doc.Call("removeEventListener", "keydown", cb); cb.Release() }
}

// shortcut says what a key press asks of the playground: "undo" for Ctrl+Z
// or ⌘Z, "redo" for Ctrl+Shift+Z, ⇧⌘Z or Ctrl+Y, "" otherwise (with Alt,
// or without Ctrl and ⌘).
func shortcut(key string, ctrl, meta, shift, alt bool) string {
	if alt || !(ctrl || meta) {
		return ""
	}
	switch strings.ToLower(key) {
	case "z":
		if shift {
			return "redo"
		}
		return "undo"
	case "y":
		if !shift && ctrl && !meta {
			return "redo"
		}
	}
	return ""
}

// typesText says whether an element (its tag name, type and
// contentEditable) takes typed text, whose typing the browser's own undo
// takes back: text areas, editable elements and inputs other than buttons,
// checkboxes, radio buttons, sliders, colour and file pickers.
func typesText(tag, typ string, editable bool) bool {
	switch strings.ToUpper(tag) {
	case "TEXTAREA":
		return true
	case "INPUT":
		switch strings.ToLower(typ) {
		case "button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image":
			return false
		}
		return true
	}
	return editable
}

// markLive sets data-lupi-ready on the body: the pre-rendered page looks the
// same as the live one but has no handlers until go-app has mounted.
func markLive() {
	app.Window().Get("document").Get("body").Call("setAttribute", "data-lupi-ready", "1")
}

// staticBase returns the site's base path ("" at the root, "/sub" under a
// sub-path export).
func staticBase(ctx app.Context) string {
	r := ctx.ResolveStaticResource("/web/datasets/index.json")
	return strings.TrimSuffix(r, "/web/datasets/index.json")
}

// playgroundTabs are the result views' tabs. A tab with a short label shows
// it on a narrow screen (web/style.css), where the three tabs would not fit
// on one line; its abbreviation is spelt out in a title (one text: the pre-rendered
// page would space the parts of "Tune (<abbr>CV</abbr>)" apart).
var playgroundTabs = []struct{ id, label, short, expansion string }{
	{"model", "Model", "", ""},
	{"compare", "Compare", "", ""},
	{"tune", "Tune (cross-validation)", "Tune (CV)", "cross-validation"},
}

// tabLabel is a result view tab's text: its label, or with a short label
// both, the style sheet showing one of them. The accessible name is the
// text shown (WCAG 2.5.3, label in name: an aria-label with the long form
// would not contain "Tune (CV)" where that is what a user sees).
func tabLabel(b app.HTMLButton, label, short, expansion string) app.HTMLButton {
	if short == "" {
		return b.Text(label)
	}
	return b.Body(
		app.Span().Class("tab-long").Text(label),
		app.Abbr().Class("tab-short").Title(expansion).Text(short),
	)
}

// Render implements app.Composer.
func (p *Playground) Render() app.UI {
	s := p.s
	return app.Div().Class("playground").Body(
		app.H1().Class("sr-only").Text("Playground: train a model in your browser and see what it learnt"),
		app.Section().Class("controls").Aria("label", "Data and model").Body(
			&DataPanel{S: s},
			&ModelPanel{S: s},
		),
		app.Section().Class("results").Aria("label", "Results").Body(
			app.Div().Class("subtabs").Role("tablist").Aria("label", "Result views").Body(
				app.Range(playgroundTabs).Slice(func(i int) app.UI {
					t := playgroundTabs[i]
					sel := s.set.View == t.id
					tabIndex := -1
					if sel {
						tabIndex = 0
					}
					return tabLabel(app.Button().ID("view-"+t.id).Class("subtab").Role("tab").
						Aria("selected", boolText(sel)).Aria("controls", "panel-"+t.id).TabIndex(tabIndex), t.label, t.short, t.expansion).
						OnClick(func(ctx app.Context, e app.Event) { p.selectView(ctx, t.id) }).
						OnKeyDown(func(ctx app.Context, e app.Event) { p.tabKey(ctx, e, i) })
				}),
			),
			app.Div().Class("notices").Body(
				app.If(p.newcomer, app.P().ID("tour-pointer").Class("notice tour-pointer").Body(
					app.Text("New to learning with privileged information? "),
					app.A().Href("/learn").Text("Take a five-minute tour"),
					app.Text(" — or just play: drag the sliders, or click the canvas to add points. "),
					app.Button().Class("link").ID("tour-dismiss").Text("Dismiss").OnClick(func(ctx app.Context, e app.Event) {
						ctx.LocalStorage().Set(toursSeenKey, true)
						p.newcomer = false
					}),
				)),
				when(len(s.linkNotes) > 0, p.linkNotice),
				app.If(s.message != "", app.P().ID("notice").Class("notice").Aria("live", "polite").Text(s.message)),
				app.If(s.computeErr != "", app.P().Class("error").Text("The compute engine could not start: "+s.computeErr+
					". LUPI Lab needs WebAssembly and Web Workers.")),
			),
			app.Div().ID("panel-"+s.set.View).Role("tabpanel").Aria("labelledby", "view-"+s.set.View).Body(p.panel()),
		),
	)
}

// linkNotice lists what the page's address asked for and did not get, and
// what is used instead; the rest of the link is applied.
func (p *Playground) linkNotice() app.UI {
	s := p.s
	return app.Div().ID("link-notice").Class("notice").Role("status").Body(
		app.P().Text("Parts of this link were not understood and were left out; the rest of it is applied."),
		app.Ul().Body(app.Range(s.linkNotes).Slice(func(i int) app.UI {
			return app.Li().Text(s.linkNotes[i].String())
		})),
		app.Button().Class("link").ID("link-notice-dismiss").Text("Dismiss").OnClick(func(ctx app.Context, e app.Event) {
			s.linkNotes = nil
			s.refresh()
		}),
	)
}

func (p *Playground) panel() app.UI {
	switch p.s.set.View {
	case "compare":
		return &ComparePanel{S: p.s}
	case "tune":
		return &TunePanel{S: p.s}
	}
	return &ResultView{S: p.s}
}

func (p *Playground) selectView(ctx app.Context, id string) {
	s := p.s
	if s.set.View == id {
		return
	}
	s.set.View = id
	s.saveState(ctx)
	if id == "model" {
		s.changed(ctx)
	}
	p.Update()
}

// tabKey moves between the result views with the arrow keys (WAI-ARIA tabs).
func (p *Playground) tabKey(ctx app.Context, e app.Event, i int) {
	n := len(playgroundTabs)
	switch e.Get("key").String() {
	case "ArrowRight":
		i = (i + 1) % n
	case "ArrowLeft":
		i = (i + n - 1) % n
	case "Home":
		i = 0
	case "End":
		i = n - 1
	default:
		return
	}
	e.PreventDefault()
	p.selectView(ctx, playgroundTabs[i].id)
	ctx.Defer(func(app.Context) {
		if b := app.Window().GetElementByID("view-" + playgroundTabs[i].id); b.Truthy() {
			b.Call("focus")
		}
	})
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// poolSizeSetting reads the worker count the user chose (Advanced), 0 for
// the pool's own choice.
func poolSizeSetting(ctx app.Context) int {
	var n int
	ctx.LocalStorage().Get(poolSizeKey, &n)
	if n < 0 || n > 16 {
		return 0
	}
	return n
}

const poolSizeKey = "lupilab.workers"
