package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCompareAndTune exercises the Compare view (several models on one
// split, table, bars, thumbnails) and the CV grid (run, best cell, apply).
func TestCompareAndTune(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.Navigate(url+"/?data=gen:moons&n=150&noise=0.25&seed=4&train=70&model=svm&view=compare"),
		chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.run(t, chromedp.Click("#cmp-gpc", chromedp.ByID), chromedp.Click("#cmp-twsvm", chromedp.ByID), chromedp.Click("#compare-run", chromedp.ByID))
	b.waitJS(t, `document.querySelectorAll("#compare-table .cmp-score").length === 4 && !document.getElementById("compare-run").disabled`, 3*time.Minute)
	var rows, thumbs int
	b.run(t, chromedp.Evaluate(`document.querySelectorAll("#compare-table tbody tr").length`, &rows),
		chromedp.Evaluate(`document.querySelectorAll(".thumbs canvas").length`, &thumbs))
	if rows != 4 || thumbs != 4 {
		t.Errorf("compare: %d rows, %d thumbnails (want 4 and 4)", rows, thumbs)
	}
	var table string
	b.run(t, chromedp.Evaluate(`document.getElementById("compare-table").innerText`, &table))
	t.Logf("compare table:\n%s", table)
	b.screenshot(t, "compare")

	b.run(t, chromedp.Click("#view-tune", chromedp.ByID), chromedp.WaitVisible("#tune-run", chromedp.ByID),
		chromedp.SetValue("#tune-steps", "3", chromedp.ByID), chromedp.SetValue("#tune-folds", "3", chromedp.ByID))
	// SetValue does not fire change events: dispatch them.
	b.run(t, chromedp.Evaluate(`["tune-steps","tune-folds"].forEach(id => document.getElementById(id).dispatchEvent(new Event("change", {bubbles: true}))); true`, nil))
	b.run(t, chromedp.Click("#tune-run", chromedp.ByID))
	best := b.waitText(t, "#cv-best", 3*time.Minute, func(s string) bool { return strings.HasPrefix(s, "Best:") })
	var cells int
	b.run(t, chromedp.Evaluate(`document.querySelectorAll("#cv-grid td.cv").length`, &cells))
	if cells != 9 { // td.cv (a failed cell would be td.cv-fail)
		t.Errorf("CV grid has %d cells, want 3×3", cells)
	}
	t.Logf("%s", best)
	b.screenshot(t, "tune")
	b.run(t, chromedp.Click("#cv-apply", chromedp.ByID))
	b.waitFresh(t, 2*time.Minute)
	acc := b.text(t, "#m-test-acc")
	// "Best: C = 1, γ = 3.16 (…)." → the form shows those values.
	var c, g string
	b.run(t, chromedp.Evaluate(`document.getElementById("p-svm-C").value`, &c), chromedp.Evaluate(`document.getElementById("p-svm-gamma").value`, &g))
	t.Logf("applied the best cell: form C = %s, gamma = %s; test accuracy %s", c, g, acc)
	if !strings.Contains(best, "C = "+c+",") || !strings.Contains(best, "γ = "+g+" ") { // the form's labels
		t.Errorf("the form shows C = %s, gamma = %s after applying %q", c, g, best)
	}
}

// TestLayouts checks the playground at desktop and phone sizes: no
// horizontal scroll, controls reachable, screenshots for review.
func TestLayouts(t *testing.T) {
	url := startServer(t)
	for _, sz := range []struct {
		name string
		w, h int
	}{{"desktop-1280x800", 1280, 800}, {"phone-390x844", 390, 844}} {
		b := newBrowser(t, sz.w, sz.h)
		if sz.w < 500 {
			b.run(t, chromedp.EmulateViewport(int64(sz.w), int64(sz.h), chromedp.EmulateMobile))
		}
		b.run(t, chromedp.Navigate(url+"/?data=gen:lupi2d&n=150&noise=0.2&seed=1&train=70&model=svm2plus"),
			chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		b.waitFresh(t, 2*time.Minute)
		var scrollW, innerW int
		b.run(t, chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW), chromedp.Evaluate(`window.innerWidth`, &innerW))
		if scrollW > innerW {
			t.Errorf("%s: horizontal scroll (%d > %d)", sz.name, scrollW, innerW)
		}
		// Keyboard: Tab reaches the Train button.
		var reached bool
		b.run(t, chromedp.Evaluate(`(() => { document.getElementById("train").focus(); return document.activeElement.id === "train"; })()`, &reached))
		if !reached {
			t.Errorf("%s: Train cannot take the keyboard focus", sz.name)
		}
		b.screenshot(t, "layout-"+sz.name)
	}
}

// TestPaperPreset runs the joint SVM experiment (paper 003) browser-sized
// from the Papers tab and reads our table and the paper's.
func TestPaperPreset(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.Navigate(url+"/?tab=papers"), chromedp.WaitVisible("#exp-run-jointsvm", chromedp.ByID))
	start := time.Now()
	b.run(t, chromedp.Click("#exp-run-jointsvm", chromedp.ByID))
	ours := b.waitText(t, "#exp-jointsvm-table", 5*time.Minute, func(s string) bool { return s != "" })
	paper := b.text(t, "#exp-jointsvm-paper")
	t.Logf("jointsvm preset in %.1f s\nours: %s\npaper: %s", time.Since(start).Seconds(), ours, paper)
	if !strings.Contains(ours, "Joint") || paper == "" {
		t.Errorf("tables incomplete")
	}
	b.screenshot(t, "papers-jointsvm")
}

// TestTuneSaysItsTime: before a long grid runs, Tune says what it will
// cost (cells × folds fits and the estimate, on the Run button too), and
// while it runs the line gives the time left from the cells done (before,
// a 72 s grid started with no word of its length).
func TestTuneSaysItsTime(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.Navigate(url+"/?data=gen:moons&n=3000&noise=0.45&seed=5&train=70&model=svm&view=tune"),
		chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitJS(t, `document.getElementById("tune-estimate")`, time.Minute)
	label, note := b.text(t, "#tune-run"), b.text(t, "#tune-estimate")
	t.Logf("button %q, note %q", label, note)
	if !strings.HasPrefix(label, "Run the grid (") || !strings.Contains(note, "25 cells × 5 folds = 125 fits, estimated at ") {
		t.Errorf("Tune's button %q and note %q should give the grid's estimate", label, note)
	}
	b.screenshot(t, "tune-estimate")
	b.waitJS(t, `lupiPool.ready()`, time.Minute)
	b.run(t, chromedp.Click("#tune-run", chromedp.ByID))
	b.waitJS(t, `/^[1-9]\d* of 25 cells done/.test((document.getElementById("tune-progress")||{}).textContent||"")`, 3*time.Minute)
	t.Logf("running: %q", b.text(t, "#tune-progress"))
	b.run(t, chromedp.Click("#tune-cancel", chromedp.ByID))
	b.waitJS(t, `!document.getElementById("tune-cancel")`, time.Minute)
}

// TestPapersProgressOnAPhone: on a phone-wide page a running experiment's
// progress bar keeps its width beside the long stage line (before, the
// line took the row and the bar shrank to nothing).
func TestPapersProgressOnAPhone(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 390, 844)
	b.run(t, chromedp.Navigate(url+"/?tab=papers"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitJS(t, `document.getElementById("exp-run-jointsvm") && lupiPool.ready()`, 2*time.Minute)
	b.run(t, chromedp.Click("#exp-run-jointsvm", chromedp.ByID))
	b.waitJS(t, `document.getElementById("exp-jointsvm-progress")`, time.Minute)
	var width float64
	b.run(t, chromedp.Evaluate(`document.getElementById("exp-jointsvm-progress").getBoundingClientRect().width`, &width))
	b.run(t, chromedp.ScrollIntoView("#exp-jointsvm-progress", chromedp.ByID))
	b.screenshot(t, "papers-progress-phone")
	t.Logf("progress bar %.0f px wide on a 390 px page", width)
	if width < 100 {
		t.Errorf("the progress bar is %.0f px wide", width)
	}
	b.run(t, chromedp.Click("#exp-cancel", chromedp.ByID))
}
