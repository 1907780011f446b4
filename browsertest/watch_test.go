package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestWatchItLearn: with "Watch it learn" on, the default SVM fit redraws
// its map at least three times before its result (each an iterate's map,
// coarse, under the data), shows a live plot of the KKT violation against
// iterations, and ends on the same result as without watching.
func TestWatchItLearn(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.Navigate(url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 60*time.Second)
	plain := b.text(t, "#m-test-acc")
	obj := b.jsString(t, `(document.getElementById("m-obj")||{}).textContent`)

	// Record every map the figure draws from now on.
	// (and every stage the status line says while the trace chart shows)
	b.run(t, chromedp.Evaluate(`window.__maps = []; window.__stages = new Set(); setInterval(() => { const f = (window.__lupiFigures||{})["plot-a"]; if (f && (window.__maps.length == 0 || window.__maps[window.__maps.length-1].draws != f.draws)) window.__maps.push({draws: f.draws, side: f.mapSide, hasMap: f.hasMap});
	  const st = document.getElementById("train-stage"); if (st && document.getElementById("trace")) window.__stages.add(st.textContent); }, 5); true`, nil))
	b.run(t, chromedp.Click("#watch", chromedp.ByID))
	b.waitJS(t, `document.getElementById("trace")`, 30*time.Second)
	b.waitJS(t, `document.getElementById("result").dataset.state == "fresh" && document.getElementById("trace-text")`, 60*time.Second)
	var sides []int
	b.run(t, chromedp.Evaluate(`window.__maps.filter(m => m.hasMap && m.side == 64).map(m => m.side)`, &sides))
	t.Logf("maps: %s", b.jsString(t, `JSON.stringify(window.__maps)`))
	caption := b.text(t, "#trace-text")
	t.Logf("%d intermediate maps drawn; %s", len(sides), caption)
	if len(sides) < 3 {
		t.Errorf("%d intermediate maps while the SVM trained, want ≥ 3", len(sides))
	}
	if !strings.Contains(caption, "KKT violation") || !b.exists(t, "#trace svg polyline") {
		t.Errorf("no live plot of the solver's measure: %q", caption)
	}
	// The engine was up: the line never said it was waiting for it while
	// the iterates came (it did for the first seconds of a watched fit).
	if st := b.jsString(t, `JSON.stringify([...window.__stages])`); strings.Contains(st, "waiting for the compute engine") {
		t.Errorf("stages shown during the watched fit: %s", st)
	}
	b.screenshot(t, "watch-after")
	if acc := b.text(t, "#m-test-acc"); acc != plain {
		t.Errorf("watching changed the result: test accuracy %s, %s without", acc, plain)
	}
	if o := b.jsString(t, `(document.getElementById("m-obj")||{}).textContent`); o != obj {
		t.Errorf("watching changed the objective: %s, %s without", o, obj)
	}
}
