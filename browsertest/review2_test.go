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
	// A refused Tune box holds up the grid only: the model view still
	// trains (Train was disabled by any refused box of the page).
	b.setInput(t, "tune-folds", "1")
	b.waitJS(t, `document.querySelector(".tune .field-error")`, 10*time.Second)
	b.run(t, chromedp.Click("#view-model", chromedp.ByID))
	b.waitJS(t, `document.getElementById("train")`, 10*time.Second)
	deadline := time.Now().Add(time.Minute)
	for b.jsString(t, `String(document.getElementById("train").disabled)`) == "true" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if b.jsString(t, `String(document.getElementById("train").disabled)`) == "true" {
		t.Error("with Tune's folds refused, the model view's Train stays disabled")
	}
	noConsoleErrors(t, b)
}

// newWindow is a browser w × h px wide, a phone (touch, mobile viewport)
// below 500 px.
func newWindow(t *testing.T, w, h int) *browser {
	t.Helper()
	b := newBrowser(t, w, h)
	if w < 500 {
		b.run(t, chromedp.EmulateViewport(int64(w), int64(h), chromedp.EmulateMobile))
	}
	return b
}

// TestModelFormulaWraps: every model's paper and formula line under the
// form wraps inside its box at 1280, 390 and 320 px: nothing of it runs
// past the box or the panel's edge.
func TestModelFormulaWraps(t *testing.T) {
	url := startServer(t)
	for _, w := range []int{1280, 390, 320} {
		b := newWindow(t, w, 900)
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

// TestCompareTableCellsOnOneLine: the Compare table's numbers ("87.1 %",
// "1.10 s") stay on one line, on a desktop and a 390 px phone; on the
// phone, where the table is wider than the screen, its own box scrolls
// sideways and shows a shadow at its right edge while more of it lies to
// the right (none once scrolled to the end). (Before, "87.1 %" wrapped
// onto two lines and the phone's table was cut with no cue.)
func TestCompareTableCellsOnOneLine(t *testing.T) {
	url := startServer(t)
	for _, w := range []int{1280, 390} {
		b := newWindow(t, w, 900)
		b.open(t, url+"/?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=svm&view=compare")
		b.waitJS(t, `document.getElementById("compare-run") && window.lupiPool && lupiPool.ready()`, time.Minute)
		b.run(t, chromedp.Evaluate(`(() => { for (const id of ["cmp-svm1plus", "cmp-svm2plus"]) { const e = document.getElementById(id); if (e && !e.checked) e.click(); }
			return true; })()`, nil))
		time.Sleep(300 * time.Millisecond)
		b.run(t, chromedp.Click("#compare-run", chromedp.ByID))
		b.waitJS(t, `!document.getElementById("compare-cancel") && document.querySelectorAll("#compare-table .cmp-score").length >= 2
			&& !document.querySelector("#compare-table td[colspan]")`, 3*time.Minute)
		var cells []struct {
			Text, WhiteSpace string
			Lines            int
		}
		b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll("#compare-table tbody td:not(.barcell)")).map(td => {
			const r = document.createRange(); r.selectNodeContents(td);
			const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
			return {Text: td.textContent.trim(), WhiteSpace: getComputedStyle(td).whiteSpace, Lines: tops.size}; })`, &cells))
		if len(cells) == 0 {
			t.Fatalf("%d px: no cells in the Compare table", w)
		}
		for _, c := range cells {
			if c.WhiteSpace != "nowrap" || c.Lines > 1 {
				t.Errorf("%d px: the cell %q may wrap (white-space %s, %d lines)", w, c.Text, c.WhiteSpace, c.Lines)
			}
		}
		b.run(t, chromedp.ScrollIntoView("#compare-table", chromedp.ByQuery))
		b.screenshot(t, fmt.Sprintf("review2-compare-%d", w))
		if w < 500 {
			var sc struct {
				ScrollWidth, ClientWidth float64
				Own                      bool
				Background               string
			}
			b.run(t, chromedp.Evaluate(`(() => { const tb = document.getElementById("compare-table"), s = tb.parentElement, cs = getComputedStyle(s);
				return {ScrollWidth: s.scrollWidth, ClientWidth: s.clientWidth, Own: s.classList.contains("table-scroll") && cs.overflowX === "auto",
					Background: cs.backgroundImage + " " + cs.backgroundAttachment}; })()`, &sc))
			t.Logf("%d px: the table's box %+v", w, sc)
			if !sc.Own {
				t.Errorf("%d px: the table has no scroll box of its own (%+v)", w, sc)
			}
			if sc.ScrollWidth > sc.ClientWidth && (!strings.Contains(sc.Background, "gradient") || !strings.Contains(sc.Background, "local")) {
				t.Errorf("%d px: the table scrolls sideways (%+v) with no shadow to show it", w, sc)
			}
		}
		noConsoleErrors(t, b)
	}
}
