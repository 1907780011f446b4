package browsertest

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// figFrame reads the window figure A was last drawn over.
func figFrame(t *testing.T, b *browser) []float64 {
	t.Helper()
	var fr []float64
	b.run(t, chromedp.Evaluate(`((window.__lupiFigures||{})["plot-a"]||{}).frame||[]`, &fr))
	if len(fr) != 4 {
		t.Fatalf("figure A has no frame: %v", fr)
	}
	return fr
}

func sameFrame(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(a[i])) {
			return false
		}
	}
	return true
}

// touches dispatches one touch event with fingers at pts (page CSS pixels).
func (b *browser) touches(t *testing.T, typ input.TouchType, pts ...[2]float64) {
	t.Helper()
	tp := make([]*input.TouchPoint, len(pts))
	for i, p := range pts {
		tp[i] = &input.TouchPoint{X: p[0], Y: p[1], ID: float64(i + 1), RadiusX: 4, RadiusY: 4, Force: 1}
	}
	b.run(t, input.DispatchTouchEvent(typ, tp))
}

// swipe moves fingers from their starting points by (dx, dy) in steps,
// lifting them at the end.
func (b *browser) swipe(t *testing.T, dx, dy float64, from ...[2]float64) {
	t.Helper()
	b.touches(t, input.TouchStart, from...)
	const steps = 12
	for k := 1; k <= steps; k++ {
		f := float64(k) / steps
		pts := make([][2]float64, len(from))
		for i, p := range from {
			pts[i] = [2]float64{p[0] + dx*f, p[1] + dy*f}
		}
		b.touches(t, input.TouchMove, pts...)
		time.Sleep(25 * time.Millisecond)
	}
	b.run(t, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	time.Sleep(400 * time.Millisecond) // the page settles: a scroll's inertia, a zoom's redraw
}

func (b *browser) scrollY(t *testing.T) float64 {
	t.Helper()
	var y float64
	b.run(t, chromedp.Evaluate(`window.scrollY`, &y))
	return y
}

// TestTouchScrollsThePage: on a phone the plot fills the width, and a
// one-finger swipe on it used to pan the plot (touch-action: none), so a
// thumb scrolling the page got stuck there. Now, as in map widgets, one
// finger scrolls the page and leaves the plot's window as it was (with a
// hint: use two fingers), two fingers pan and zoom the plot and keep the
// page still, a tap reads a point, and a mouse drag still pans.
func TestTouchScrollsThePage(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 390, 844)
	b.run(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(5))
	b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm")
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)

	// The plot in the upper part of the screen, with page below it to
	// scroll to.
	b.run(t, chromedp.Evaluate(`window.scrollTo(0, document.getElementById("plot-a").getBoundingClientRect().top + window.scrollY - 60)`, nil))
	time.Sleep(300 * time.Millisecond)
	var box struct{ X, Y, W, H, Doc, View float64 }
	b.run(t, chromedp.Evaluate(`(() => { const r = document.getElementById("plot-a").getBoundingClientRect(), f = window.__lupiFigures["plot-a"];
		return {X: r.left + f.plotX, Y: r.top + f.plotY, W: f.plotWidth, H: f.plotHeight,
			Doc: document.documentElement.scrollHeight, View: window.innerHeight}; })()`, &box))
	t.Logf("plot area at (%.0f, %.0f), %.0f×%.0f; page %.0f px high in a %.0f px screen", box.X, box.Y, box.W, box.H, box.Doc, box.View)
	if box.W < 200 {
		t.Fatalf("the plot is %.0f px wide on a 390 px phone", box.W)
	}
	cx, cy := box.X+box.W/2, box.Y+box.H/2
	frame0, y0 := figFrame(t, b), b.scrollY(t)
	// the hint shows for a moment: note it when it does
	b.run(t, chromedp.Evaluate(`window.__hint = ""; setInterval(() => { const h = document.getElementById("touch-hint-a"); if (h && !window.__hint) window.__hint = h.textContent; }, 20); true`, nil))

	// One finger up the plot: the page scrolls, the plot stays.
	b.swipe(t, 0, -180, [2]float64{cx, cy + 60})
	frame1, y1 := figFrame(t, b), b.scrollY(t)
	t.Logf("one finger: page scrolled %.0f → %.0f px; window %v → %v", y0, y1, frame0, frame1)
	if !sameFrame(frame0, frame1) {
		t.Errorf("a one-finger swipe moved the plot's window: %v → %v", frame0, frame1)
	}
	if y1 < y0+60 {
		t.Errorf("a one-finger swipe up the plot scrolled the page by %.0f px; want the page to follow the finger", y1-y0)
	}
	b.waitJS(t, `window.__hint`, 5*time.Second)
	hint := b.jsString(t, `window.__hint`)
	t.Logf("hint: %q", hint)
	if hint == "" {
		t.Error("no hint on how to move the plot after a one-finger swipe on it")
	}
	b.screenshot(t, "touch-one-finger")

	// Bring the plot back into view, then two fingers: the plot pans and
	// zooms, the page does not move.
	b.run(t, chromedp.Evaluate(`window.scrollTo(0, document.getElementById("plot-a").getBoundingClientRect().top + window.scrollY - 60)`, nil))
	time.Sleep(300 * time.Millisecond)
	b.run(t, chromedp.Evaluate(`(() => { const r = document.getElementById("plot-a").getBoundingClientRect(), f = window.__lupiFigures["plot-a"];
		return {X: r.left + f.plotX, Y: r.top + f.plotY, W: f.plotWidth, H: f.plotHeight}; })()`, &box))
	cx, cy = box.X+box.W/2, box.Y+box.H/2
	y2 := b.scrollY(t)
	// fingers 80 px apart, moving 40 px right and 30 px down while
	// spreading to 160 px apart (zoom in by 2)
	b.touches(t, input.TouchStart, [2]float64{cx - 40, cy}, [2]float64{cx + 40, cy})
	for k := 1; k <= 12; k++ {
		f := float64(k) / 12
		half := 40 + 40*f
		b.touches(t, input.TouchMove, [2]float64{cx - half + 40*f, cy + 30*f}, [2]float64{cx + half + 40*f, cy + 30*f})
		time.Sleep(25 * time.Millisecond)
	}
	b.run(t, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	b.waitJS(t, frameDiffers(frame1, true), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	frame2, y3 := figFrame(t, b), b.scrollY(t)
	t.Logf("two fingers: page %.0f → %.0f px; window %v → %v", y2, y3, frame1, frame2)
	if math.Abs(y3-y2) > 2 {
		t.Errorf("a two-finger gesture on the plot scrolled the page by %.0f px", y3-y2)
	}
	w1, w2 := frame1[1]-frame1[0], frame2[1]-frame2[0]
	if r := w2 / w1; r < 0.4 || r > 0.65 {
		t.Errorf("fingers spread from 80 to 160 px scaled the window's width by %.2f; want about 0.5", r)
	}
	// the content followed the fingers right and down: the window's centre
	// moved left and up in data units
	c1x, c1y := (frame1[0]+frame1[1])/2, (frame1[2]+frame1[3])/2
	c2x, c2y := (frame2[0]+frame2[1])/2, (frame2[2]+frame2[3])/2
	if !(c2x < c1x) || !(c2y > c1y) {
		t.Errorf("two fingers moved right and down, the window's centre went from (%.3g, %.3g) to (%.3g, %.3g)", c1x, c1y, c2x, c2y)
	}
	b.screenshot(t, "touch-two-fingers")

	// A tap on a training point reads it.
	b.run(t, chromedp.Evaluate(`document.getElementById("reset-view").click()`, nil))
	b.waitJS(t, frameDiffers(frame0, false), 10*time.Second)
	// the plot back into view (the full-page screenshot above may leave
	// the page scrolled elsewhere)
	b.run(t, chromedp.Evaluate(`window.scrollTo(0, document.getElementById("plot-a").getBoundingClientRect().top + window.scrollY - 60)`, nil))
	time.Sleep(300 * time.Millisecond)
	var xs, ys []float64
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.x`, &xs), chromedp.Evaluate(`window.__lupiResult.train.y`, &ys))
	px, py := pixelOf(t, b, xs[0], ys[0])
	b.touches(t, input.TouchStart, [2]float64{px, py})
	time.Sleep(60 * time.Millisecond)
	b.run(t, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	b.waitJS(t, `document.getElementById("tip-a")`, 10*time.Second)
	if tip := b.text(t, "#tip-a"); !strings.Contains(tip, "Training point 1") || !strings.Contains(tip, "decision f(x)") {
		t.Errorf("the tapped point's tooltip: %q", tip)
	}

	// A mouse still drags the plot.
	b.run(t, emulation.SetTouchEmulationEnabled(false))
	b.run(t, chromedp.Evaluate(`(() => { const r = document.getElementById("plot-a").getBoundingClientRect(), f = window.__lupiFigures["plot-a"];
		return {X: r.left + f.plotX, Y: r.top + f.plotY, W: f.plotWidth, H: f.plotHeight}; })()`, &box))
	cx, cy = box.X+box.W/2, box.Y+box.H/2
	y4 := b.scrollY(t)
	b.run(t, input.DispatchMouseEvent(input.MousePressed, cx, cy).WithButton(input.Left).WithClickCount(1))
	for k := 1; k <= 8; k++ {
		b.run(t, input.DispatchMouseEvent(input.MouseMoved, cx+float64(k)*8, cy-float64(k)*6).WithButton(input.Left).WithButtons(1))
		time.Sleep(25 * time.Millisecond)
	}
	b.run(t, input.DispatchMouseEvent(input.MouseReleased, cx+64, cy-48).WithButton(input.Left).WithClickCount(1))
	b.waitJS(t, frameDiffers(frame0, true), 10*time.Second)
	frame3 := figFrame(t, b)
	t.Logf("mouse drag: window %v → %v", frame0, frame3)
	if !(frame3[0] < frame0[0]) || !(frame3[2] < frame0[2]) || math.Abs(b.scrollY(t)-y4) > 2 {
		t.Errorf("a mouse drag right and up did not pan the window left and down: %v → %v", frame0, frame3)
	}

	// A pen too: hovering over the canvas makes it take the pen's drag
	// (browsers may pan the page with a pen as with a finger).
	b.run(t, chromedp.Evaluate(`document.getElementById("reset-view").click()`, nil))
	b.waitJS(t, frameDiffers(frame0, false), 10*time.Second)
	b.run(t, chromedp.Evaluate(`(() => { const r = document.getElementById("plot-a").getBoundingClientRect(), f = window.__lupiFigures["plot-a"];
		return {X: r.left + f.plotX, Y: r.top + f.plotY, W: f.plotWidth, H: f.plotHeight}; })()`, &box))
	cx, cy = box.X+box.W/2, box.Y+box.H/2
	pen := input.Pen
	b.run(t, input.DispatchMouseEvent(input.MouseMoved, cx-5, cy).WithPointerType(pen), input.DispatchMouseEvent(input.MouseMoved, cx, cy).WithPointerType(pen))
	b.waitJS(t, `document.getElementById("plot-a").style.touchAction === "none"`, 5*time.Second)
	b.run(t, input.DispatchMouseEvent(input.MousePressed, cx, cy).WithButton(input.Left).WithClickCount(1).WithPointerType(pen))
	for k := 1; k <= 8; k++ {
		b.run(t, input.DispatchMouseEvent(input.MouseMoved, cx-float64(k)*8, cy+float64(k)*6).WithButton(input.Left).WithButtons(1).WithPointerType(pen))
		time.Sleep(25 * time.Millisecond)
	}
	b.run(t, input.DispatchMouseEvent(input.MouseReleased, cx-64, cy+48).WithButton(input.Left).WithClickCount(1).WithPointerType(pen))
	b.waitJS(t, frameDiffers(frame0, true), 10*time.Second)
	frame4 := figFrame(t, b)
	t.Logf("pen drag: window %v → %v", frame0, frame4)
	if !(frame4[0] > frame0[0]) || !(frame4[2] > frame0[2]) {
		t.Errorf("a pen drag left and down did not pan the window right and up: %v → %v", frame0, frame4)
	}
	noConsoleErrors(t, b)
}

// frameDiffers is a JS expression: figure A's window differs from fr
// (want true) or equals it (want false).
func frameDiffers(fr []float64, want bool) string {
	parts := make([]string, len(fr))
	for i, v := range fr {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	not := "!"
	if want {
		not = ""
	}
	return `(() => { const f = (window.__lupiFigures||{})["plot-a"]; if (!f || !f.frame) return false; const a = [` + strings.Join(parts, ",") + `];
		return ` + not + `f.frame.some((v, i) => Math.abs(v - a[i]) > 1e-9 * Math.max(1, Math.abs(v))); })()`
}
