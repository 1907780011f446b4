package app

import (
	"fmt"
	"lupilab/models/wire"
	"math"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Figure shows one view ("A": the main plane, "B": view B's) of the result
// on screen: two canvases sized in device pixels (redrawn on resize and
// zoom), an HTML legend, and a description for screen readers. Element ids:
// fig-<view> (the figure), plot-<view> (the canvas: the map and its
// contours, and the description) and plot-<view>-top (the layer over it:
// the points, axes and colour bar).
type Figure struct {
	app.Compo
	S    *session
	View string
	// Key changes whenever what the figure draws changes (figureKey): the
	// parent's re-render then updates the figure, which redraws.
	Key string
	// Stale is whether the settings changed since the result: only the
	// page's styles and a label show it, so a change of it re-renders
	// the figure's HTML without drawing the canvas again.
	Stale bool

	drawn   string
	fmKey   string
	lastW   float64
	ratio   float64
	release []func()
	fm      *figModel
	layout  figLayout
	ptr     *pointerState
	draws   int
	// fmEdits are the point edits of the result fm was built from (the
	// test hook says them, so tests can wait for their edit's picture).
	fmEdits string
	fmSeq   uint64 // numbers fm (the paint's key)
	front   *frontPaint
}

func (f *Figure) id() string { return "plot-" + lowerView(f.View) }

func lowerView(v string) string {
	if v == "B" {
		return "b"
	}
	return "a"
}

// OnMount watches the figure's size and the device-pixel ratio.
func (f *Figure) OnMount(ctx app.Context) {
	wrap := app.Window().GetElementByID("wrap-" + lowerView(f.View))
	// A resize redraws in a task of its own (paintLater), not in the
	// callback: ResizeObserver runs in the browser's rendering step, whose
	// layout and commit would make one long task with the paint.
	redraw := func() {
		ctx.Dispatcher().Dispatch(app.Dispatch{Mode: app.Next, Source: ctx.Src(), Function: func(ctx app.Context) {
			paintLater(ctx, f, func(ctx app.Context) { f.draw(ctx, false) })
		}})
	}
	if ro := app.Window().Get("ResizeObserver"); ro.Truthy() && wrap.Truthy() {
		cb := app.FuncOf(func(this app.Value, args []app.Value) any { redraw(); return nil })
		obs := ro.New(cb)
		obs.Call("observe", wrap)
		f.release = append(f.release, func() { obs.Call("disconnect"); cb.Release() })
	}
	// Zooming changes devicePixelRatio and fires a resize.
	onResize := app.FuncOf(func(this app.Value, args []app.Value) any { redraw(); return nil })
	app.Window().Call("addEventListener", "resize", onResize)
	f.release = append(f.release, func() { app.Window().Call("removeEventListener", "resize", onResize); onResize.Release() })
	ctx.Defer(f.attachPointer)
	paintLater(ctx, f, func(ctx app.Context) { f.draw(ctx, true) })
}

// OnDismount stops watching.
func (f *Figure) OnDismount() {
	for _, r := range f.release {
		r()
	}
	f.release = nil
}

// OnUpdate redraws after the page re-rendered, in a task of its own.
func (f *Figure) OnUpdate(ctx app.Context) {
	paintLater(ctx, f, func(ctx app.Context) { f.draw(ctx, false) })
}

// figureKey identifies what a figure of the session shows.
func figureKey(s *session, view string) string {
	sh, maps, fitted := s.figureSources()
	if sh == nil {
		return ""
	}
	s.in.init()
	var ma, mb *mapView
	if maps != nil {
		ma, mb = maps.maps["A"], maps.maps["B"]
	}
	return fmt.Sprintf("%s|%d|%d|%v|%d|%s|%d|%d|%v|%d|%v", view, sh.seq, seqOf(maps), fitted, s.tagShown, s.layerPick, ma.id(), mb.id(),
		s.in.zoom[view], s.zoomMapFor(view).id(), s.in.tool == toolHard)
}

// Render implements app.Composer.
func (f *Figure) Render() app.UI {
	s := f.S
	sh, maps, fitted := s.figureSources()
	if sh == nil {
		return app.Figure().ID("fig-"+lowerView(f.View)).Class("plot empty").Body(
			app.Div().ID("wrap-"+lowerView(f.View)).Class("canvas-wrap").Body(
				app.Canvas().ID(f.id()).Role("img").Aria("label", "The data will appear here"),
				app.Canvas().ID(f.id()+"-top").Class("layer").Aria("hidden", "true"),
			),
			app.FigCaption().Text(emptyCaption(s)),
		)
	}
	// Rebuild the figure only when what it shows changed (a re-render for
	// another reason draws nothing anew).
	if f.Key != f.fmKey || f.fm == nil {
		s.in.init()
		f.fmSeq = nextSeq()
		f.fm, f.fmKey = buildFigure(sh, maps, fitted, f.View, s.tagShown, s.layerPick, s.in.zoom[f.View], s.zoomMapFor(f.View), s.in.tool == toolHard), f.Key
		f.fmEdits = EncodeEdits(sh.set.Edits)
	}
	fm := f.fm
	if fm == nil {
		return app.Div()
	}
	// The map (and with it the figure) is out of date when it was
	// computed with other settings than the current ones.
	watching := maps != nil && maps.res == nil // a watched fit's iterate
	stale := maps != nil && !watching && f.Stale
	staleText := ""
	if stale {
		staleText = "Out of date: computed on " + maps.set.Describe()
		if !fitted {
			staleText = "The points are the current data; the map under them was computed on " + maps.set.Describe()
		}
	}
	desc := fmt.Sprintf("%s. Horizontal axis: %s; vertical axis: %s.", fm.title, fm.axes[0], fm.axes[1])
	if fm.hasMap {
		desc += " Background: " + fm.scale.label + "."
	} else if fitted && len(sh.res.Plot.Maps) == 0 && sh.res.Plot.Projected {
		desc += " No decision map: the model works in more than two dimensions."
	}
	cls := "plot"
	if stale {
		cls += " stale"
	}
	return app.Figure().ID("fig-"+lowerView(f.View)).Class(cls).Body(
		app.Div().ID("wrap-"+lowerView(f.View)).Class("canvas-wrap").Body(
			app.Canvas().ID(f.id()).Role("img").Aria("label", desc),
			app.Canvas().ID(f.id()+"-top").Class("layer").Aria("hidden", "true"),
			app.If(stale, app.P().Class("stale-label").Text(staleText)),
			app.If(fitted && fm.preview && !stale, app.Span().Class("refining").Text("refining the map…")),
			app.If(watching, app.Span().ID("watch-label").Class("refining").Text(watchLabel(s.fit.trace))),
			f.tipUI(),
			app.If(s.in.hint == f.View, app.P().ID("touch-hint-"+lowerView(f.View)).Class("touch-hint").Role("status").
				Text("Use two fingers to move or zoom the plot")),
		),
		app.FigCaption().Body(
			app.Strong().Class("fig-title").Text(fm.title),
			app.If(sh.res.Plot.Projected, app.Span().Class("help").Text(fmt.Sprintf(
				" — the data has %d features: the points are shown on the training data's first two principal components; the model decides in all %d, so no decision map is drawn.",
				sh.res.Data.Dim, sh.res.Data.Dim))),
			legendHTML(fm.legend),
		),
	)
}

// tipUI renders the tooltip of a hovered or tapped point.
func (f *Figure) tipUI() app.UI {
	t := f.S.in.tip
	if t == nil || t.view != f.View {
		return app.Div().Class("tip hidden").Aria("hidden", "true")
	}
	left := t.x + 14
	if left > f.layout.w-200 {
		left = t.x - 214
	}
	return app.Div().ID("tip-"+lowerView(f.View)).Class("tip").Role("tooltip").
		Style("left", fmt.Sprintf("%.0fpx", math.Max(0, left))).Style("top", fmt.Sprintf("%.0fpx", math.Max(0, t.y-10))).
		Body(app.Range(t.lines).Slice(func(i int) app.UI { return app.Div().Text(t.lines[i]) }))
}

func emptyCaption(s *session) string {
	switch {
	case s.computeErr != "":
		return "The compute engine could not start."
	case !s.computeReady:
		return "Loading the compute engine…"
	}
	return "Loading the data…"
}

// draw paints the canvas when what it shows or its size changed.
func (f *Figure) draw(ctx app.Context, force bool) {
	canvas := app.Window().GetElementByID(f.id())
	wrap := app.Window().GetElementByID("wrap-" + lowerView(f.View))
	if !canvas.Truthy() || !wrap.Truthy() || f.fm == nil {
		return
	}
	width := math.Min(620, math.Max(220, wrap.Get("clientWidth").Float()))
	ratio := app.Window().Get("devicePixelRatio").Float()
	if ratio <= 0 || math.IsNaN(ratio) {
		ratio = 1
	}
	key := fmt.Sprintf("%d|%g|%g", f.fmSeq, width, ratio)
	if key == f.drawn && !force {
		// the picture stands; the test hook follows the figure's state
		if info := app.Window().Get("__lupiFigures"); info.Truthy() && info.Get(f.id()).Truthy() {
			info.Get(f.id()).Set("stale", f.Stale)
		}
		return
	}
	start := app.Window().Get("performance").Call("now").Float()
	l := layoutFor(width, false)
	sizeCanvas(canvas, l)
	drawFigureBack(newCanvasPainter(canvas, l.w, l.h, ratio), f.fm, l)
	f.drawn, f.lastW, f.ratio, f.layout = key, width, ratio, l
	// The points, axes and colour bar go on the layer above, in a task of
	// their own: a software-rendered canvas rasterises what was drawn on
	// it when the task ends, and the map's and the points' together made
	// one long task (40–60 ms for 2 000 points and their support vectors).
	// The queued paint draws the latest lower layer's picture (a paint
	// already queued is not queued again).
	f.front = &frontPaint{fm: f.fm, l: l, ratio: ratio, edits: f.fmEdits, ms: app.Window().Get("performance").Call("now").Float() - start}
	paintLater(ctx, figureFront{f}, func(ctx app.Context) {
		fp := f.front
		top := app.Window().GetElementByID(f.id() + "-top")
		if fp == nil || !top.Truthy() {
			return
		}
		f.front = nil
		start := app.Window().Get("performance").Call("now").Float()
		sizeCanvas(top, fp.l)
		drawFigureFront(newCanvasPainter(top, fp.l.w, fp.l.h, fp.ratio), fp.fm, fp.l)
		warmFonts()
		fp.ms += app.Window().Get("performance").Call("now").Float() - start
		f.hook(app.Window().GetElementByID(f.id()), fp)
	})
}

// figureFront keys the paint of a figure's upper layer (paintLater).
type figureFront struct{ f *Figure }

// frontPaint is what a figure's upper layer is to show: the picture of the
// lower layer last drawn, and how long that took.
type frontPaint struct {
	fm        *figModel
	l         figLayout
	ratio, ms float64
	edits     string
}

// sizeCanvas sets a canvas's size in CSS pixels.
func sizeCanvas(c app.Value, l figLayout) {
	c.Get("style").Set("width", fmt.Sprintf("%gpx", l.w))
	c.Get("style").Set("height", fmt.Sprintf("%gpx", l.h))
}

// hook is the test hook window.__lupiFigures[id]: what the figure drew
// (both layers), and at what resolution.
func (f *Figure) hook(canvas app.Value, fp *frontPaint) {
	fm, l, ratio, ms, edits := fp.fm, fp.l, fp.ratio, fp.ms, fp.edits
	hook := app.Window().Get("__lupiFigures")
	if !hook.Truthy() {
		hook = app.Window().Get("Object").New()
		app.Window().Set("__lupiFigures", hook)
	}
	info := app.Window().Get("Object").New()
	info.Set("cssWidth", l.w)
	info.Set("cssHeight", l.h)
	info.Set("ratio", ratio)
	info.Set("backingWidth", canvas.Get("width"))
	info.Set("backingHeight", canvas.Get("height"))
	info.Set("hasMap", fm.hasMap)
	info.Set("mapSide", fm.w)
	info.Set("mapImageSide", fm.iw) // the map's picture (finer than its cells: a multi-class map)
	info.Set("preview", fm.preview)
	info.Set("contours", len(fm.contours))
	info.Set("plotWidth", l.pw)
	info.Set("stale", f.Stale)
	info.Set("paintMs", ms)
	info.Set("title", fm.title)
	info.Set("edits", edits)
	fr := app.Window().Get("Array").New()
	for _, v := range fm.frame {
		fr.Call("push", v)
	}
	info.Set("frame", fr)
	info.Set("plotX", l.px)
	info.Set("plotY", l.py)
	info.Set("plotHeight", l.ph)
	f.draws++
	info.Set("draws", f.draws)
	hook.Set(f.id(), info)
}

// watchLabel says which iterate a watched fit's map shows.
func watchLabel(trace []wire.Snapshot) string {
	if len(trace) == 0 {
		return "training…"
	}
	last := trace[len(trace)-1]
	if last.Speed > 1 {
		return fmt.Sprintf("training: iteration %d · %g× speed", last.Iter, last.Speed)
	}
	return fmt.Sprintf("training: iteration %d", last.Iter)
}
