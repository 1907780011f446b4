package browsertest

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const observeLongTasks = `(() => {
  window.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: false });
  return true;
})()`

// TestTrainingNeverFreezes trains for several seconds and records the page's
// long tasks (PerformanceObserver), then starts a long training and clicks
// Cancel: the page must show the cancellation and keep the previous result.
// Long tasks and the time Cancel took are logged, not asserted: they depend
// on the machine's load (make bench-web reports them).
func TestTrainingNeverFreezes(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	// 2500 noisy moons with a large C: several seconds of SMO in wasm.
	link := url + "/?data=gen:moons&n=2500&noise=0.4&seed=2&train=80&model=svm&p.C=1000&p.gamma=3"
	b.run(t, chromedp.Navigate(link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	// The link trains by itself once the page is live: wait for it, then
	// observe a second, identical training started by the button.
	b.waitText(t, "#m-test-acc", 5*time.Minute, func(s string) bool { return s != "" })
	var ok bool
	b.run(t, chromedp.Evaluate(observeLongTasks, &ok))
	start := time.Now()
	b.run(t, chromedp.Click("#train", chromedp.ByID))
	b.run(t, chromedp.WaitVisible("#train-progress", chromedp.ByID))
	b.run(t, chromedp.WaitNotPresent("#train-progress", chromedp.ByID))
	wall := time.Since(start)
	var end float64
	b.run(t, chromedp.Evaluate(`performance.now()`, &end))
	var entries [][2]float64
	b.run(t, chromedp.Evaluate(`window.__longtasks`, &entries))
	// Long tasks are reported separately for the training (the progress
	// bar is up) and for the last second, which holds the final render of
	// the results and the redraw of the plot.
	var tasks, final []float64
	for _, e := range entries {
		if e[0] >= end-1000 {
			final = append(final, e[1])
		} else {
			tasks = append(tasks, e[1])
		}
	}
	sort.Float64s(tasks)
	maxT, p95 := 0.0, 0.0
	if len(tasks) > 0 {
		maxT, p95 = tasks[len(tasks)-1], tasks[int(0.95*float64(len(tasks)-1))]
	}
	maxF := 0.0
	for _, f := range final {
		maxF = max(maxF, f)
	}
	var gap float64
	var gapStage string
	b.run(t, chromedp.Evaluate(`window.__lupiMaxGap || 0`, &gap), chromedp.Evaluate(`window.__lupiMaxGapStage || ""`, &gapStage))
	t.Logf("largest gap between progress calls: %.0f ms (%s)", gap, gapStage)
	t.Logf("training of %.1f s (fit %s, grid %s): %d long tasks while training, largest %.0f ms, 95th percentile %.0f ms; final render and redraw: largest %.0f ms",
		wall.Seconds(), b.text(t, "#m-time"), b.text(t, "#m-grid-time"), len(tasks), maxT, p95, maxF)
	if wall < 2*time.Second {
		t.Logf("warning: training took only %.1f s", wall.Seconds())
	}

	// Cancel: start again and cancel after half a second.
	b.run(t, chromedp.Click("#train", chromedp.ByID), chromedp.WaitVisible("#train-cancel", chromedp.ByID), chromedp.Sleep(500*time.Millisecond))
	var ms float64
	b.run(t, chromedp.Evaluate(`new Promise((resolve) => {
	  const t0 = performance.now();
	  const done = () => (document.getElementById("error") || {}).textContent === "Training cancelled.";
	  const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - t0); } });
	  obs.observe(document.body, { subtree: true, childList: true, characterData: true });
	  document.getElementById("train-cancel").click();
	})`, &ms, awaitPromise))
	t.Logf("Cancel → 'Training cancelled.' shown after %.0f ms", ms)
	if strings.Contains(b.text(t, "#error"), "cancelled") && b.text(t, "#m-test-acc") == "" {
		t.Error("the previous result was lost on cancel")
	}
}
