package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// pixelOf returns the page position of a data point of plot-a.
// pixelOf returns the page position of data point (x, y) in figure A, once
// the page's layout holds still (a tool's controls, a notice or a repaint
// can move the canvas just after a click: a click placed before that lands
// elsewhere).
func pixelOf(t *testing.T, b *browser, x, y float64) (float64, float64) {
	t.Helper()
	px, py := pixelNow(t, b, x, y)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		qx, qy := pixelNow(t, b, x, y)
		if qx == px && qy == py {
			break
		}
		px, py = qx, qy
	}
	return px, py
}

func pixelNow(t *testing.T, b *browser, x, y float64) (float64, float64) {
	t.Helper()
	var pos []float64
	b.run(t, chromedp.Evaluate(fmt.Sprintf(`(() => {
		const f = window.__lupiFigures["plot-a"], r = document.getElementById("plot-a").getBoundingClientRect();
		const fr = f.frame;
		return [r.left + f.plotX + (%v - fr[0]) / (fr[1] - fr[0]) * f.plotWidth, r.top + f.plotY + (fr[3] - %v) / (fr[3] - fr[2]) * f.plotHeight];
	})()`, x, y), &pos))
	return pos[0], pos[1]
}

func canvasHash(t *testing.T, b *browser) string {
	t.Helper()
	return b.jsString(t, `(() => { const d = `+figurePixels+`;
		let h = 0; for (let i = 0; i < d.length; i += 97) h = (h * 31 + d[i]) | 0; return h; })()`)
}

func (b *browser) tool(t *testing.T, id string) {
	t.Helper()
	b.run(t, chromedp.Click("#tool-"+id, chromedp.ByID))
}

// TestCanvasEditing: clicking the canvas adds a point and the result
// follows; dragging a point moves it; the difficulty brush changes an SVM2+
// fit; a slider dragged on small data refits several times during the drag.
func TestCanvasEditing(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.Navigate(url+"/?data=gen:lupi2d&n=120&noise=0.2&seed=1&train=70&model=svm2plus"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
	obj0 := b.jsString(t, `window.__lupiResult.objective`)

	// Add a point of class 1 deep in class 0's side.
	b.tool(t, "add-1")
	px, py := pixelOf(t, b, -1.5, -1.5)
	b.run(t, chromedp.MouseClickXY(px, py))
	b.waitJS(t, `location.search.includes("edits=a")`, 20*time.Second)
	b.waitEditsFitted(t, 2*time.Minute)
	var rows []int
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.row`, &rows))
	added := false
	for _, r := range rows {
		added = added || r == 120
	}
	if !added {
		t.Errorf("the added point (row 120) is not among the training rows %v", rows)
	}
	obj1 := b.jsString(t, `window.__lupiResult.objective`)
	if obj1 == obj0 {
		t.Error("adding a point did not change the fit")
	}

	// Drag a training point elsewhere.
	var xs, ys []float64
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.x`, &xs), chromedp.Evaluate(`window.__lupiResult.train.y`, &ys))
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.row`, &rows))
	b.tool(t, "move")
	sx, sy := pixelOf(t, b, xs[0], ys[0])
	tx, ty := pixelOf(t, b, 1.2, 1.7)
	b.run(t, input.DispatchMouseEvent(input.MousePressed, sx, sy).WithButton(input.Left).WithClickCount(1))
	for k := 1; k <= 8; k++ {
		f := float64(k) / 8
		b.run(t, input.DispatchMouseEvent(input.MouseMoved, sx+(tx-sx)*f, sy+(ty-sy)*f).WithButton(input.Left), chromedp.Sleep(40*time.Millisecond))
	}
	b.run(t, input.DispatchMouseEvent(input.MouseReleased, tx, ty).WithButton(input.Left).WithClickCount(1))
	b.waitJS(t, fmt.Sprintf(`location.search.includes("m%d%%2C")`, rows[0]), 20*time.Second)
	b.waitEditsFitted(t, 2*time.Minute)
	var nx, ny []float64
	var nrows []int
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.x`, &nx), chromedp.Evaluate(`window.__lupiResult.train.y`, &ny), chromedp.Evaluate(`window.__lupiResult.train.row`, &nrows))
	for i, r := range nrows {
		if r == rows[0] && (abs(nx[i]-1.2) > 0.05 || abs(ny[i]-1.7) > 0.05) {
			t.Errorf("the dragged point is at (%v, %v), not (1.2, 1.7)", nx[i], ny[i])
		}
	}

	// The difficulty brush: paint a point hard.
	objBefore := b.jsString(t, `window.__lupiResult.objective`)
	b.tool(t, "hard")
	b.waitJS(t, `document.getElementById("hard-value")`, 20*time.Second) // the brush's own control, in the toolbar above the canvas
	var diff []float64
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.difficulty`, &diff))
	easy := -1
	for i, d := range diff {
		if d == 0 && nrows[i] != rows[0] && nrows[i] < 120 {
			easy = i
			break
		}
	}
	if easy < 0 {
		t.Fatal("no easy training point to paint")
	}
	hx, hy := pixelOf(t, b, nx[easy], ny[easy])
	b.run(t, chromedp.MouseClickXY(hx, hy))
	b.waitJS(t, `location.search.includes("edits=") && decodeURIComponent(location.search).includes(";h")`, 20*time.Second)
	b.waitEditsFitted(t, 2*time.Minute)
	after := b.jsString(t, `window.__lupiResult.objective`)
	edits := b.jsString(t, `window.__lupiResult.edits`)
	t.Logf("painted row %d hard: objective %s → %s (edits %s)", nrows[easy], objBefore, after, edits)
	if !strings.HasSuffix(edits, fmt.Sprintf(";h%d,1", nrows[easy])) {
		t.Fatalf("the click on row %d painted another point: edits %s", nrows[easy], edits)
	}
	var diffAfter []float64
	var rowsAfter []int
	b.run(t, chromedp.Evaluate(`window.__lupiResult.train.difficulty`, &diffAfter), chromedp.Evaluate(`window.__lupiResult.train.row`, &rowsAfter))
	for i, r := range rowsAfter {
		if r == nrows[easy] && diffAfter[i] != 1 {
			t.Errorf("row %d was painted hard but the result says its difficulty is %v", r, diffAfter[i])
		}
	}
	if after == objBefore {
		t.Errorf("the difficulty brush did not change the SVM2+ fit (objective %s)", after)
	}
	b.screenshot(t, "canvas-edited")

	// Undo takes the last edit back.
	search := b.jsString(t, `decodeURIComponent(location.search)`)
	b.run(t, chromedp.Click("#undo", chromedp.ByID))
	b.waitJS(t, `!decodeURIComponent(location.search).includes(";h")`, 10*time.Second)
	t.Logf("edits before undo: %s", search)

	// A slider dragged on small data: several fits land during the drag.
	b.run(t, chromedp.Navigate(url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
	var draws0 float64
	b.run(t, chromedp.Evaluate(`window.__lupiFigures["plot-a"].draws`, &draws0))
	// The slider moves in eight steps of input events only (the drag's
	// release, a change event, comes last), C from 1 to 6 (a C whose
	// estimate waits for a click on a busy machine would end the drag's
	// refits); after each step the test waits for a redraw, up to 5 s, so
	// that a loaded machine makes it slower, not different.
	b.run(t, chromedp.Evaluate(`new Promise((resolve) => {
		const s = document.getElementById("p-svm-C-slider"); let v = 0; let n = 0;
		const draws = () => window.__lupiFigures["plot-a"].draws;
		const step = () => {
			v += 0.1; s.value = String(v); s.dispatchEvent(new Event("input", {bubbles: true}));
			const before = draws(), t0 = performance.now();
			const wait = () => {
				if (draws() === before && performance.now() - t0 < 5000) { setTimeout(wait, 20); return; }
				if (++n < 8) step(); else resolve(true);
			};
			setTimeout(wait, 20);
		};
		step();
	})`, nil, awaitPromise))
	var draws1 float64
	b.run(t, chromedp.Evaluate(`window.__lupiFigures["plot-a"].draws`, &draws1))
	b.run(t, chromedp.Evaluate(`document.getElementById("p-svm-C-slider").dispatchEvent(new Event("change", {bubbles: true}))`, nil))
	t.Logf("slider moved in 8 steps: %v redraws before its release", draws1-draws0)
	if draws1-draws0 < 3 {
		t.Errorf("the figure was redrawn %v times while the slider moved; want several", draws1-draws0)
	}
	b.waitFresh(t, time.Minute)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestTours opens every tour: each renders its steps (a section with a
// heading each), and each step's "try this" changes the picture.
func TestTours(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	for _, tour := range []string{"svm2plus", "mpwtsvm", "gpcplus", "jointsvm"} {
		b.run(t, chromedp.Navigate(url+"/learn/"+tour), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		b.waitFresh(t, 3*time.Minute)
		var steps int
		b.run(t, chromedp.Evaluate(`document.querySelectorAll("section.step > h2").length`, &steps))
		if steps < 3 || steps > 6 {
			t.Errorf("%s: %d steps", tour, steps)
		}
		for i := 1; i <= steps; i++ {
			if b.exists(t, fmt.Sprintf("#step-%d-show", i)) {
				b.run(t, chromedp.Click(fmt.Sprintf("#step-%d-show", i), chromedp.ByID))
				time.Sleep(300 * time.Millisecond)
				b.waitFresh(t, 3*time.Minute)
				b.waitMap(t, "a", 2*time.Minute)
			}
			before := canvasHash(t, b)
			b.run(t, chromedp.Click(fmt.Sprintf("#step-%d-try", i), chromedp.ByID))
			b.waitJS(t, fmt.Sprintf(`document.getElementById("step-%d-notice")`, i), 30*time.Second)
			time.Sleep(300 * time.Millisecond)
			b.waitFresh(t, 3*time.Minute)
			b.waitMap(t, "a", 2*time.Minute)
			if after := canvasHash(t, b); after == before {
				t.Errorf("%s step %d: \"try this\" did not change the picture", tour, i)
			}
			b.screenshot(t, fmt.Sprintf("tour-%s-%d", tour, i))
		}
		t.Logf("%s: %d steps, each action changed the picture", tour, steps)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
