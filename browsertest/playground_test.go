package browsertest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// figurePixels is a JS expression: the RGBA pixels of figure A as shown,
// its two layers (plot-a, plot-a-top) composed; null without the figure.
const figurePixels = `(() => {
  const c = document.getElementById("plot-a"), top = document.getElementById("plot-a-top");
  if (!c) return null;
  const m = document.createElement("canvas");
  m.width = c.width; m.height = c.height;
  const x = m.getContext("2d");
  x.drawImage(c, 0, 0);
  if (top && top.width === c.width && top.height === c.height) x.drawImage(top, 0, 0);
  return x.getImageData(0, 0, m.width, m.height).data;
})()`

// canvasColours counts distinct colours in figure A (a blank one has 1).
const canvasColours = `(() => {
  const d = ` + figurePixels + `;
  if (!d) return 0;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i+1] << 8) | d[i+2]);
  return seen.size;
})()`

func parsePct(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	return f / 100
}

func TestPlaygroundTrainsSVM(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 800)
	start := time.Now()
	b.run(t, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#train", chromedp.ByID))
	var firstPaint, live float64
	b.run(t, chromedp.Evaluate(`performance.now()`, &firstPaint))
	b.run(t, chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery), chromedp.Evaluate(`performance.now()`, &live))
	t.Logf("navigation to pre-rendered page: %.0f ms; to live app (wasm started, handlers attached): %.0f ms (wall %.0f ms)",
		firstPaint, live, float64(time.Since(start).Milliseconds()))

	// The default dataset is two moons (n = 200) and the model the RBF
	// C-SVM: it trains by itself once the compute engine is up.
	b.waitFresh(t, 2*time.Minute)
	t.Logf("live to first result: %.0f ms", float64(time.Since(start).Milliseconds())-live)
	acc := b.text(t, "#m-test-acc")
	t.Logf("fit %s, scoring %s", b.text(t, "#m-time"), b.text(t, "#m-predict-time"))
	if st := b.text(t, "#m-predict-time"); !strings.HasSuffix(st, " ms") && !strings.HasSuffix(st, " s") {
		t.Errorf("scoring time %q, want a duration", st)
	}
	if a := parsePct(acc); a < 0.9 {
		t.Errorf("test accuracy %v < 0.9 on two moons", acc)
	}
	if !strings.Contains(b.text(t, "#metrics caption"), "SVM") || strings.HasPrefix(b.text(t, "#m-nsv"), "0 ") {
		t.Errorf("metrics incomplete: caption %q, support %q", b.text(t, "#metrics caption"), b.text(t, "#m-nsv"))
	}
	b.waitMap(t, "a", time.Minute)
	var colours int
	b.run(t, chromedp.Evaluate(canvasColours, &colours))
	if colours < 20 {
		t.Errorf("canvas looks blank: %d distinct colours", colours)
	}
	b.screenshot(t, "playground-svm-moons")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
