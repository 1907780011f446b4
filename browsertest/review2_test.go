package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestTuneRunWaitsForValidForm: a Tune box holding a value it refuses
// ("Folds" = 1, "Values each" = 1) disables "Run the grid" and shows no
// estimate, so a click cannot run a grid with the last valid value while
// the box shows another; a valid value enables it again. (Before, the
// button stayed enabled and ran the grid with the previous values.)
func TestTuneRunWaitsForValidForm(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm&view=tune")
	b.waitJS(t, `document.getElementById("tune-run") && window.lupiPool && lupiPool.ready()`, time.Minute)
	for _, id := range []string{"tune-folds", "tune-steps"} {
		b.setInput(t, id, "1")
		b.waitJS(t, `document.querySelector(".tune .field-error")`, 10*time.Second)
		var st struct {
			Disabled, Estimate, Grid bool
			Error, Label             string
		}
		read := func() {
			b.run(t, chromedp.Evaluate(`(() => { const r = document.getElementById("tune-run");
				return {Disabled: r.disabled, Label: r.textContent, Estimate: !!document.getElementById("tune-estimate"),
					Grid: !!document.getElementById("cv-grid") || !!document.getElementById("tune-progress"),
					Error: (document.querySelector(".tune .field-error")||{}).textContent || ""}; })()`, &st))
		}
		read()
		t.Logf("%s = 1: %+v", id, st)
		b.screenshot(t, "review2-tune-"+id+"-1")
		if !st.Disabled {
			t.Errorf("%s = 1 (%q): “Run the grid” is enabled", id, st.Error)
		}
		if st.Estimate || strings.Contains(st.Label, "(") {
			t.Errorf("%s = 1: an estimate is shown as for a valid form (button %q)", id, st.Label)
		}
		// a click on the button (as a script could) starts nothing
		b.run(t, chromedp.Evaluate(`document.getElementById("tune-run").click()`, nil))
		time.Sleep(500 * time.Millisecond)
		read()
		if st.Grid {
			t.Errorf("%s = 1: a click started a grid", id)
		}
		b.setInput(t, id, "3")
		b.waitJS(t, `!document.querySelector(".tune .field-error")`, 10*time.Second)
		read()
		if st.Disabled {
			t.Errorf("%s = 3: “Run the grid” stays disabled (%+v)", id, st)
		}
	}
	noConsoleErrors(t, b)
}

// TestModelFormulaWraps: every model's paper and formula line under the
// form wraps inside its box at 1280, 390 and 320 px: nothing of it runs
// past the box or the panel's edge.
func TestModelFormulaWraps(t *testing.T) {
	url := startServer(t)
	for _, w := range []int{1280, 390, 320} {
		b := newBrowser(t, w, 900)
		if w < 500 {
			b.run(t, chromedp.EmulateViewport(int64(w), 900, chromedp.EmulateMobile))
		}
		b.open(t, url+"/?data=gen:lupi2d&n=100&noise=0.2&seed=1&train=70&model=svm")
		var models []string
		b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll("#model option")).map(o => o.value)`, &models))
		if len(models) < 5 {
			t.Fatalf("%d px: %d models listed", w, len(models))
		}
		for _, model := range models {
			b.choose(t, "model", model)
			b.waitJS(t, fmt.Sprintf(`document.getElementById("model").value === %q && document.querySelector(".modelpanel .paper")`, model), 30*time.Second)
			var p struct {
				ScrollWidth, ClientWidth, Right, PanelRight float64
				Text                                        string
			}
			b.run(t, chromedp.Evaluate(`(() => { const e = document.querySelector(".modelpanel .paper"), r = e.getBoundingClientRect();
				return {ScrollWidth: e.scrollWidth, ClientWidth: e.clientWidth, Right: r.right,
					PanelRight: (() => { let a = e.parentElement; while (a.getBoundingClientRect().width === 0) a = a.parentElement;
					return a.getBoundingClientRect().right; })(), Text: e.textContent}; })()`, &p))
			if p.ScrollWidth > p.ClientWidth || p.Right > p.PanelRight || p.Right > float64(w) {
				t.Errorf("%d px, %s: the formula line overflows (scrollWidth %.0f > clientWidth %.0f, or right %.0f > its box's %.0f or the window's): %q",
					w, model, p.ScrollWidth, p.ClientWidth, p.Right, p.PanelRight, p.Text)
			}
		}
		b.choose(t, "model", "svm")
		b.run(t, chromedp.ScrollIntoView(".modelpanel .paper", chromedp.ByQuery))
		b.screenshot(t, fmt.Sprintf("review2-formula-%d", w))
		noConsoleErrors(t, b)
	}
}
