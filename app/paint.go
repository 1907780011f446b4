package app

import (
	"encoding/binary"
	"fmt"
	"html"
	"math"
	"runtime"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// painter draws a figure in CSS pixels. Two implement it: canvasPainter
// (the screen and the PNG export, at any device-pixel ratio) and
// svgPainter (the SVG export: vector paths, points and text). The figure
// code (figure.go) only lays things out and calls a painter.
type painter interface {
	rect(x, y, w, h float64, fill, stroke string, width float64)
	// path strokes a polyline (x0, y0, x1, y1, …); dash nil for solid.
	path(pts []float64, closed bool, stroke string, width float64, dash []float64)
	// marks draws many marks of one style at once: circles of radius r
	// (or squares of half-side r), filled and/or stroked.
	marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64)
	// crosses draws ✕ marks of half-size r.
	crosses(xs, ys []float64, r float64, stroke string, width float64)
	text(x, y float64, s string, size float64, fill, align, baseline string, bold bool)
	vtext(x, y float64, s string, size float64, fill string)
	// image draws W×H RGBA cells stretched over (x, y, w, h), smoothly
	// interpolated.
	image(rgba []byte, w, h int, x, y, dw, dh float64)
	clip(x, y, w, h float64)
	unclip()
}

const fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"

// canvasPainter draws on a 2-D canvas context scaled to CSS pixels.
type canvasPainter struct {
	c app.Value
	// the text state last set (the canvas parses a font each time it is
	// set); cleared by a restore, which brings back an older state
	font, align, baseline string
}

func newCanvasPainter(canvas app.Value, cssW, cssH, ratio float64) *canvasPainter {
	canvas.Set("width", int(math.Round(cssW*ratio)))
	canvas.Set("height", int(math.Round(cssH*ratio)))
	c := canvas.Call("getContext", "2d")
	c.Call("setTransform", ratio, 0, 0, ratio, 0, 0)
	c.Call("clearRect", 0, 0, cssW, cssH)
	c.Set("lineJoin", "round")
	c.Set("lineCap", "round")
	return &canvasPainter{c: c}
}

func (p *canvasPainter) rect(x, y, w, h float64, fill, stroke string, width float64) {
	if fill != "" {
		p.c.Set("fillStyle", fill)
		p.c.Call("fillRect", x, y, w, h)
	}
	if stroke != "" {
		p.c.Set("strokeStyle", stroke)
		p.c.Set("lineWidth", width)
		p.c.Call("strokeRect", x, y, w, h)
	}
}

func (p *canvasPainter) path(pts []float64, closed bool, stroke string, width float64, dash []float64) {
	if len(pts) < 4 {
		return
	}
	d := app.Window().Get("Array").New()
	for _, x := range dash {
		d.Call("push", x)
	}
	drawJS().Call("path", p.c, f32JS(pts), closed, stroke, width, d)
}

func (p *canvasPainter) marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64) {
	if len(xs) == 0 {
		return
	}
	drawJS().Call("marks", p.c, shape, f32JS(xs), f32JS(ys), f32JS(rs), fill, stroke, width)
}

func (p *canvasPainter) crosses(xs, ys []float64, r float64, stroke string, width float64) {
	if len(xs) == 0 {
		return
	}
	drawJS().Call("crosses", p.c, f32JS(xs), f32JS(ys), r, stroke, width)
}

// drawJS is web/draw.js's helpers.
func drawJS() app.Value { return app.Window().Get("lupiDraw") }

// A paint waiting for its task (paintLater).
type paintJob struct {
	key any
	ctx app.Context
	fn  func(app.Context)
}

var (
	paintQueue []paintJob
	paintTick  app.Func
)

// paintLater runs fn on the UI goroutine in a browser task of its own, after
// the current one (web/draw.js's lupiDraw.later: one paint per task, in
// order). A job's messages are decoded and the page re-rendered in one
// task; the figures are painted each in a task of its own after it, so
// that no single task does all of that work. A paint already waiting under
// the same key is not queued again: it paints what is current when its
// turn comes. fn is skipped if ctx's component is no longer mounted.
func paintLater(ctx app.Context, key any, fn func(app.Context)) {
	if runtime.GOOS != "js" || !drawJS().Truthy() {
		ctx.Defer(fn)
		return
	}
	for _, j := range paintQueue {
		if j.key == key {
			return
		}
	}
	paintQueue = append(paintQueue, paintJob{key: key, ctx: ctx, fn: fn})
	if paintTick == nil {
		paintTick = app.FuncOf(func(this app.Value, args []app.Value) any {
			// on the event goroutine: run the first paint on the UI
			// goroutine, in this task, without re-rendering anything
			src := ctx
			if page != nil && page.Src().Mounted() {
				src = page
			}
			src.Dispatcher().Dispatch(app.Dispatch{Mode: app.Next, Source: src.Src(), Function: runPaint})
			return nil
		})
	}
	drawJS().Call("later", paintTick)
}

// runPaint runs the first waiting paint.
func runPaint(app.Context) {
	if len(paintQueue) == 0 {
		return
	}
	j := paintQueue[0]
	paintQueue = append(paintQueue[:0], paintQueue[1:]...)
	if j.ctx.Src().Mounted() {
		j.fn(j.ctx)
	}
}

// fontsWarmed is set once warmFonts has asked for the figures' fonts.
var fontsWarmed bool

// warmFonts has the browser resolve every font a figure draws text in
// (drawAxes, drawColourBar) in tasks of their own after the first paint
// (web/draw.js, lupiDraw.warmText), not inside the first fitted model's
// paint: resolving the colour bar's two sizes there made that paint's text
// cost 17–56 ms instead of about 1 ms (canvas calls timed in the page).
func warmFonts() {
	if fontsWarmed || runtime.GOOS != "js" || !drawJS().Truthy() || !drawJS().Get("warmText").Truthy() {
		return
	}
	fontsWarmed = true
	specs := []any{}
	for _, size := range []float64{axisFontSize, axisTitleSize, barFontSize, barTitleSize} {
		specs = append(specs, fontSpec(size, false))
	}
	drawJS().Call("warmText", specs)
}

// f32JS copies v into a JavaScript Float32Array in one call.
func f32JS(v []float64) app.Value {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	u8 := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(u8, b)
	return app.Window().Get("Float32Array").New(u8.Get("buffer"))
}

func fontSpec(size float64, bold bool) string {
	w := ""
	if bold {
		w = "600 "
	}
	return fmt.Sprintf("%s%gpx %s", w, size, fontFamily)
}

func (p *canvasPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	if f := fontSpec(size, bold); f != p.font {
		p.c.Set("font", f)
		p.font = f
	}
	p.c.Set("fillStyle", fill)
	if align != p.align {
		p.c.Set("textAlign", align)
		p.align = align
	}
	if baseline != p.baseline {
		p.c.Set("textBaseline", baseline)
		p.baseline = baseline
	}
	p.c.Call("fillText", s, x, y)
}

func (p *canvasPainter) vtext(x, y float64, s string, size float64, fill string) {
	p.c.Call("save")
	p.c.Call("translate", x, y)
	p.c.Call("rotate", -math.Pi/2)
	p.text(0, 0, s, size, fill, "center", "middle", false)
	p.restore()
}

// restore pops the canvas state; the text state it brings back is unknown.
func (p *canvasPainter) restore() {
	p.c.Call("restore")
	p.font, p.align, p.baseline = "", "", ""
}

// scratchCanvas is an off-screen canvas, with its ImageData, that images
// of one size are put on before being drawn scaled: kept from one image to
// the next (a map and its colour bar have two sizes).
type scratchCanvas struct {
	canvas, ctx, img app.Value
}

var scratch = map[[2]int]*scratchCanvas{}

func (p *canvasPainter) image(rgba []byte, w, h int, x, y, dw, dh float64) {
	sc := scratch[[2]int{w, h}]
	if sc == nil {
		if len(scratch) >= 8 {
			clear(scratch)
		}
		sc = &scratchCanvas{canvas: app.Window().Get("document").Call("createElement", "canvas")}
		sc.canvas.Set("width", w)
		sc.canvas.Set("height", h)
		sc.ctx = sc.canvas.Call("getContext", "2d")
		sc.img = sc.ctx.Call("createImageData", w, h)
		scratch[[2]int{w, h}] = sc
	}
	// putImageData replaces every pixel: nothing of the last image stays
	app.CopyBytesToJS(sc.img.Get("data"), rgba)
	sc.ctx.Call("putImageData", sc.img, 0, 0)
	p.c.Set("imageSmoothingEnabled", true)
	p.c.Set("imageSmoothingQuality", "high")
	p.c.Call("drawImage", sc.canvas, x, y, dw, dh)
}

func (p *canvasPainter) clip(x, y, w, h float64) {
	p.c.Call("save")
	p.c.Call("beginPath")
	p.c.Call("rect", x, y, w, h)
	p.c.Call("clip")
}

func (p *canvasPainter) unclip() { p.restore() }

// svgPainter writes SVG elements.
type svgPainter struct {
	b     strings.Builder
	clips int
	open  int
	// pngOf turns RGBA cells into a PNG data URL (the browser's encoder).
	pngOf func(rgba []byte, w, h int) string
}

func f1(x float64) string { return fmt.Sprintf("%.2f", x) }

func (p *svgPainter) rect(x, y, w, h float64, fill, stroke string, width float64) {
	if fill == "" {
		fill = "none"
	}
	fmt.Fprintf(&p.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, f1(x), f1(y), f1(w), f1(h), fill)
	if stroke != "" {
		fmt.Fprintf(&p.b, ` stroke="%s" stroke-width="%s"`, stroke, f1(width))
	}
	p.b.WriteString("/>\n")
}

func (p *svgPainter) path(pts []float64, closed bool, stroke string, width float64, dash []float64) {
	if len(pts) < 4 {
		return
	}
	p.b.WriteString(`<path d="M`)
	for i := 0; i+1 < len(pts); i += 2 {
		if i > 0 {
			p.b.WriteString(" L")
		}
		p.b.WriteString(f1(pts[i]) + " " + f1(pts[i+1]))
	}
	if closed {
		p.b.WriteString(" Z")
	}
	fmt.Fprintf(&p.b, `" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round" stroke-linecap="round"`, stroke, f1(width))
	if len(dash) > 0 {
		ds := make([]string, len(dash))
		for i, d := range dash {
			ds[i] = f1(d)
		}
		fmt.Fprintf(&p.b, ` stroke-dasharray="%s"`, strings.Join(ds, " "))
	}
	p.b.WriteString("/>\n")
}

func (p *svgPainter) marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64) {
	if len(xs) == 0 {
		return
	}
	if fill == "" {
		fill = "none"
	}
	fmt.Fprintf(&p.b, `<g fill="%s"`, fill)
	if stroke != "" {
		fmt.Fprintf(&p.b, ` stroke="%s" stroke-width="%s"`, stroke, f1(width))
	}
	p.b.WriteString(">\n")
	for i := range xs {
		if shape == "square" {
			fmt.Fprintf(&p.b, `<rect x="%s" y="%s" width="%s" height="%s"/>`+"\n", f1(xs[i]-rs[i]), f1(ys[i]-rs[i]), f1(2*rs[i]), f1(2*rs[i]))
		} else {
			fmt.Fprintf(&p.b, `<circle cx="%s" cy="%s" r="%s"/>`+"\n", f1(xs[i]), f1(ys[i]), f1(rs[i]))
		}
	}
	p.b.WriteString("</g>\n")
}

func (p *svgPainter) crosses(xs, ys []float64, r float64, stroke string, width float64) {
	if len(xs) == 0 {
		return
	}
	p.b.WriteString(`<path d="`)
	for i := range xs {
		fmt.Fprintf(&p.b, "M%s %s L%s %s M%s %s L%s %s ", f1(xs[i]-r), f1(ys[i]-r), f1(xs[i]+r), f1(ys[i]+r), f1(xs[i]+r), f1(ys[i]-r), f1(xs[i]-r), f1(ys[i]+r))
	}
	fmt.Fprintf(&p.b, `" fill="none" stroke="%s" stroke-width="%s"/>`+"\n", stroke, f1(width))
}

func svgAnchor(align string) string {
	switch align {
	case "center":
		return "middle"
	case "right", "end":
		return "end"
	}
	return "start"
}

func svgBaseline(b string) string {
	switch b {
	case "middle":
		return "central"
	case "top":
		return "hanging"
	case "bottom":
		return "text-after-edge"
	}
	return "alphabetic"
}

func (p *svgPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	w := "400"
	if bold {
		w = "600"
	}
	fmt.Fprintf(&p.b, `<text x="%s" y="%s" font-family="%s" font-size="%g" font-weight="%s" fill="%s" text-anchor="%s" dominant-baseline="%s">%s</text>`+"\n",
		f1(x), f1(y), html.EscapeString(fontFamily), size, w, fill, svgAnchor(align), svgBaseline(baseline), html.EscapeString(s))
}

func (p *svgPainter) vtext(x, y float64, s string, size float64, fill string) {
	fmt.Fprintf(&p.b, `<text transform="translate(%s %s) rotate(-90)" font-family="%s" font-size="%g" fill="%s" text-anchor="middle" dominant-baseline="central">%s</text>`+"\n",
		f1(x), f1(y), html.EscapeString(fontFamily), size, fill, html.EscapeString(s))
}

func (p *svgPainter) image(rgba []byte, w, h int, x, y, dw, dh float64) {
	if p.pngOf == nil {
		return
	}
	fmt.Fprintf(&p.b, `<image x="%s" y="%s" width="%s" height="%s" preserveAspectRatio="none" href="%s"/>`+"\n", f1(x), f1(y), f1(dw), f1(dh), p.pngOf(rgba, w, h))
}

func (p *svgPainter) clip(x, y, w, h float64) {
	p.clips++
	fmt.Fprintf(&p.b, `<clipPath id="clip%d"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath><g clip-path="url(#clip%d)">`+"\n", p.clips, f1(x), f1(y), f1(w), f1(h), p.clips)
	p.open++
}

func (p *svgPainter) unclip() {
	if p.open > 0 {
		p.b.WriteString("</g>\n")
		p.open--
	}
}

// svgDocument wraps the painted elements in an SVG document.
func (p *svgPainter) svgDocument(w, h float64, title string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">
<title>%s</title>
%s</svg>
`, f1(w), f1(h), f1(w), f1(h), html.EscapeString(title), p.b.String())
}
