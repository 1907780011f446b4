package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// paintHooks records, before the app starts, every figure paint (the app's
// window.__lupiFigures hook, made a Proxy) and whether it ran in the same
// script run as another figure's paint: a flag set by a paint is cleared
// by a microtask, which runs only once the script run that set it (a task
// of the browser: a worker's message, a timer, a frame) has returned.
const paintHooks = `(() => {
  const P = (window.__paints = { draws: 0, shared: 0, ids: [] });
  let inRun = false;
  window.__lupiFigures = new Proxy({}, { set(t, k, v) {
    t[k] = v;
    P.draws++;
    P.ids.push(String(k));
    if (inRun) P.shared++;
    inRun = true;
    queueMicrotask(() => { inRun = false; });
    return true;
  } });
})()`

// openFitted opens link (a path and query) with hooks run before the app
// starts, and waits for its fit and the first figure's map.
func openFitted(t *testing.T, hooks, link string) *browser {
	t.Helper()
	u := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(hooks).Do(ctx)
		return err
	}))
	b.run(t, chromedp.Navigate(u+link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 3*time.Minute)
	b.waitMap(t, "a", time.Minute)
	return b
}

// TestFiguresPaintInTasksOfTheirOwn checks that the figures are painted each
// in a task of its own, after the task that decoded a fit's message and
// re-rendered the page (app/paint.go paintLater): a two-view model's fit
// redraws both figures on each of its maps, and no two of those paints may
// share a task (before, both ran at the end of the page's update, in one
// long task).
func TestFiguresPaintInTasksOfTheirOwn(t *testing.T) {
	b := openFitted(t, paintHooks, "/?data=gen:twoview2d&n=120&noise=0.2&seed=2&train=70&model=svm2k")
	b.waitMap(t, "b", time.Minute)
	var p struct {
		Draws  int      `json:"draws"`
		Shared int      `json:"shared"`
		IDs    []string `json:"ids"`
	}
	b.run(t, chromedp.Evaluate(`window.__paints`, &p))
	t.Logf("figure paints: %d (%v), sharing a task with another: %d", p.Draws, p.IDs, p.Shared)
	seen := map[string]bool{}
	for _, id := range p.IDs {
		seen[id] = true
	}
	if !seen["plot-a"] || !seen["plot-b"] || p.Draws < 4 {
		t.Fatalf("expected both figures painted with their maps, got %d paints: %v", p.Draws, p.IDs)
	}
	if p.Shared != 0 {
		t.Errorf("%d of %d figure paints ran in the same task as another figure's paint", p.Shared, p.Draws)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// fontHooks records every canvas fillText before the app starts: the task
// it ran in (a counter bumped by the first call of each task, reset by a
// microtask), whether it drew on a figure's canvas, and the font.
const fontHooks = `(() => {
  const F = (window.__fonts = []);
  let task = 0, inTask = false;
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (...a) {
    if (!inTask) { task++; inTask = true; queueMicrotask(() => { inTask = false; }); }
    F.push([task, /^plot-/.test(this.canvas.id || ""), this.font]);
    return fill.apply(this, a);
  };
})()`

// TestFigureFontsResolvedOutsideItsPaints: Chromium resolves a canvas
// font on its first use, which took 17–56 ms of the first fitted model's
// paint on this 2-core machine (its colour bar's two sizes). Every font a
// figure draws in must therefore be used first either in the first
// figure paint (nothing ran before it) or outside any figure paint
// (web/draw.js lupiDraw.warmText, which the app runs after its first paint).
func TestFigureFontsResolvedOutsideItsPaints(t *testing.T) {
	b := openFitted(t, fontHooks, "/?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=svm")
	var calls [][3]any
	b.run(t, chromedp.Evaluate(`window.__fonts`, &calls))
	first := map[string][3]any{}
	firstFigureTask := -1.0
	var order []string
	for _, c := range calls {
		task, figure, font := c[0].(float64), c[1].(bool), c[2].(string)
		if figure && firstFigureTask < 0 {
			firstFigureTask = task
		}
		if _, ok := first[font]; !ok {
			first[font] = c
			order = append(order, font)
		}
	}
	if firstFigureTask < 0 {
		t.Fatal("no figure drew any text")
	}
	colourBar := false
	for _, font := range order {
		c := first[font]
		t.Logf("%-70q first used in task %v (figure canvas: %v)", font, c[0], c[1])
		colourBar = colourBar || strings.HasPrefix(font, "10px")
		if c[1].(bool) && c[0].(float64) != firstFigureTask {
			t.Errorf("font %q was first resolved inside a figure paint (task %v), not in the first paint (task %v) or beforehand", font, c[0], firstFigureTask)
		}
	}
	if !colourBar {
		t.Error("the fitted model's figure drew no colour bar text (10px): the test did not see the paint it is about")
	}
}
