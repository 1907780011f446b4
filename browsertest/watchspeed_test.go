package browsertest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestWatchSpeedAndSkip: "Watch it learn" used to show a fit's iterates at
// one fixed pace (one every 120 ms: the default SVM's 118 iterations took
// 14 s). While a watched fit runs, a labelled radio group sets its speed
// (1×, 2×, 4×; the arrow keys move between them) and the worker applies it
// to the snapshots that follow (the figure says "4× speed"); "Skip to the
// end" (a button, here pressed with the keyboard) stops the snapshots and
// the fit finishes at full speed on the same result as without watching.
// The speed chosen holds for the next watched fit.
func TestWatchSpeedAndSkip(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	// an SVM of several hundred SMO iterations: tens of seconds at 1×
	b.open(t, url+"/?data=gen:moons&n=500&noise=0.3&seed=1&train=70&model=svm&p.C=10")
	b.waitFresh(t, time.Minute)
	plainAcc, plainObj, plainIter := b.text(t, "#m-test-acc"), b.text(t, "#m-obj"), b.text(t, "#m-iter")
	t.Logf("without watching: accuracy %s, objective %s, %s iterations", plainAcc, plainObj, plainIter)

	b.run(t, chromedp.Click("#watch", chromedp.ByID))
	b.waitJS(t, `document.getElementById("watch-controls") && document.getElementById("watch-label")`, 30*time.Second)
	var a11y struct {
		Group, Radios, Checked, Skip string
	}
	b.run(t, chromedp.Evaluate(`(() => { const rg = document.querySelector("#watch-controls [role=radiogroup]");
		return {Group: rg ? rg.getAttribute("aria-label") : "",
			Radios: Array.from(document.querySelectorAll("#watch-controls input[type=radio]")).map(r => r.id + "=" + (r.getAttribute("aria-label") || r.labels[0].textContent.trim())).join(" "),
			Checked: (document.querySelector("#watch-controls input:checked")||{}).id || "",
			Skip: (document.getElementById("watch-skip")||{}).textContent || ""}; })()`, &a11y))
	t.Logf("controls: %+v", a11y)
	if a11y.Group == "" || !strings.Contains(a11y.Radios, "watch-speed-4=4× speed") || a11y.Checked != "watch-speed-1" || a11y.Skip != "Skip to the end" {
		t.Errorf("the watching controls are not a labelled speed group at 1× with a skip button: %+v", a11y)
	}
	b.screenshot(t, "watch-controls")

	// keyboard: 1× → 2× → 4× (at a person's pace: two key presses within
	// a few milliseconds can land while the group redraws)
	b.run(t, chromedp.Focus("#watch-speed-1", chromedp.ByID), chromedp.KeyEvent(kb.ArrowRight), chromedp.Sleep(150*time.Millisecond), chromedp.KeyEvent(kb.ArrowRight))
	b.waitJS(t, `document.getElementById("watch-speed-4").checked`, 5*time.Second)
	label := b.waitText(t, "#watch-label", 20*time.Second, func(s string) bool { return strings.Contains(s, "4× speed") })
	t.Logf("at 4×: %q", label)

	// keyboard: skip to the end
	b.run(t, chromedp.Focus("#watch-skip", chromedp.ByID), chromedp.KeyEvent(kb.Enter))
	b.waitJS(t, `document.getElementById("result").dataset.state == "fresh" && document.getElementById("trace-text")`, time.Minute)
	caption := b.text(t, "#trace-text")
	t.Logf("after the skip: %s; the fit's iterations %s", caption, b.text(t, "#m-iter"))
	b.screenshot(t, "watch-skipped")
	if acc, obj, it := b.text(t, "#m-test-acc"), b.text(t, "#m-obj"), b.text(t, "#m-iter"); acc != plainAcc || obj != plainObj || it != plainIter {
		t.Errorf("the skipped watched fit: accuracy %s, objective %s, %s iterations; without watching %s, %s, %s", acc, obj, it, plainAcc, plainObj, plainIter)
	}
	// the snapshots stopped at the skip: the trace ends before the last
	// iteration
	i := strings.LastIndex(caption, "at iteration ")
	lastSnap, err := strconv.Atoi(strings.TrimSpace(caption[i+len("at iteration "):]))
	total, err2 := strconv.Atoi(plainIter)
	if i < 0 || err != nil || err2 != nil || lastSnap >= total {
		t.Errorf("the trace goes to iteration %q of %s: the snapshots did not stop at the skip", caption, plainIter)
	}
	if !strings.Contains(caption, "until skipped to the end") {
		t.Errorf("the trace's caption %q does not say the fit was skipped to its end", caption)
	}

	// The next watched fit starts at the speed chosen.
	b.run(t, chromedp.Click("#train", chromedp.ByID))
	b.waitJS(t, `document.getElementById("watch-controls")`, 30*time.Second)
	if c := b.jsString(t, `(document.querySelector("#watch-controls input:checked")||{}).id`); c != "watch-speed-4" {
		t.Errorf("the next watched fit's speed control shows %q, want watch-speed-4", c)
	}
	b.waitText(t, "#watch-label", 20*time.Second, func(s string) bool { return strings.Contains(s, "4× speed") })
	b.run(t, chromedp.Click("#watch-skip", chromedp.ByID))
	b.waitFresh(t, time.Minute)
	noConsoleErrors(t, b)
}
