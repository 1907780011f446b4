package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// box is an element's box in page coordinates (CSS pixels from the top of
// the document).
type box struct{ Top, Bottom, Left, Right float64 }

// boxes reads the boxes of the elements the selectors name (a missing one
// is all zeros).
func (b *browser) boxes(t *testing.T, sels ...string) map[string]box {
	t.Helper()
	out := map[string]box{}
	for _, sel := range sels {
		var bx box
		b.run(t, chromedp.Evaluate(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return {Top: 0, Bottom: 0, Left: 0, Right: 0};
			const r = e.getBoundingClientRect(); return {Top: r.top + scrollY, Bottom: r.bottom + scrollY, Left: r.left, Right: r.right}; })()`, sel), &bx))
		out[sel] = bx
	}
	return out
}

// TestPhoneControlsUnderTheFigure: on a 390 × 844 phone the model, its
// main parameters and Train come right under the figure, all of them on
// the same screen as the figure, so that a setting can be changed and its
// effect seen without scrolling; the numbers follow, then the data, then
// the advanced settings. (Before, the whole form came after the numbers
// and the exports: Train was some 1 600 px below the figure.) On a desktop
// the form stays in its column left of the figure, Train on the first
// screen.
func TestPhoneControlsUnderTheFigure(t *testing.T) {
	url := startServer(t)
	link := url + "/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm"
	sels := []string{"#fig-a", "#train", "#p-svm-gamma", ".model-main", "#metrics-block", "#dataset", "details.advanced", "#export-model"}

	b := newBrowser(t, 390, 844)
	b.run(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(5))
	b.open(t, link)
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
	bx := b.boxes(t, sels...)
	var screen float64
	b.run(t, chromedp.Evaluate(`window.innerHeight`, &screen))
	t.Logf("phone: %+v", bx)
	fig, train := bx["#fig-a"], bx["#train"]
	if gap := train.Top - fig.Bottom; gap < 0 || gap > 120 {
		t.Errorf("phone: Train's top is %.0f px below the figure's bottom; want it right under the figure (0–120 px)", gap)
	}
	if span := bx[".model-main"].Bottom - fig.Top; span > screen {
		t.Errorf("phone: from the figure's top to the last main parameter is %.0f px, more than the %.0f px screen", span, screen)
	}
	if bx["#p-svm-gamma"].Bottom > bx["#metrics-block"].Top {
		t.Errorf("phone: the kernel width (γ) comes after the numbers")
	}
	order := []string{"#train", "#metrics-block", "#export-model", "#dataset", "details.advanced"}
	for i := 1; i < len(order); i++ {
		if bx[order[i-1]].Top >= bx[order[i]].Top {
			t.Errorf("phone: %s (top %.0f) is not above %s (top %.0f); want the order %v", order[i-1], bx[order[i-1]].Top, order[i], bx[order[i]].Top, order)
		}
	}
	// the whole main panel is as wide as the page's column, none of it clipped
	var overflow bool
	b.run(t, chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`, &overflow))
	if overflow {
		t.Error("phone: the page scrolls sideways")
	}
	// the sections flattened into one column keep the page accessible
	if v := axeViolations(t, b, axeSource(t)); len(v) > 0 {
		t.Errorf("phone: %d axe-core violations:\n%s", len(v), strings.Join(v, "\n"))
	}
	// Train brings the figure into view when the page is scrolled past it
	b.run(t, chromedp.Evaluate(`window.scrollTo(0, document.getElementById("train").getBoundingClientRect().top + scrollY - 20)`, nil))
	b.setInput(t, "p-svm-C", "3")
	b.waitFresh(t, 2*time.Minute)
	b.run(t, chromedp.Click("#train", chromedp.ByID))
	b.waitJS(t, `document.getElementById("fig-a").getBoundingClientRect().top >= -1 && document.getElementById("train").getBoundingClientRect().bottom <= innerHeight`, 10*time.Second)
	b.screenshot(t, "layout-phone-controls")

	d := newBrowser(t, 1280, 900)
	d.open(t, link)
	d.waitFresh(t, 2*time.Minute)
	bx = d.boxes(t, sels...)
	t.Logf("desktop: %+v", bx)
	if bx["#train"].Right > bx["#fig-a"].Left || bx["#dataset"].Top > bx["#train"].Top {
		t.Errorf("desktop: the form (data, then model) is not in its column left of the figure: %+v", bx)
	}
	if bx["#train"].Bottom > 900 || bx["#metrics-block"].Left < bx["#fig-a"].Left {
		t.Errorf("desktop: Train is off the first screen or the numbers left the result's column: %+v", bx)
	}
	d.screenshot(t, "layout-desktop-controls")
}

// TestConfusionCaptionFits: the confusion matrix's caption lies on one
// line above the table, not over the results table beside it, at 1024,
// 1280 and 1440 px and on a phone. (Its caption, which named the rows and
// columns, was squeezed into a column of single words as narrow as the
// table; the axes now have headers of their own.)
func TestConfusionCaptionFits(t *testing.T) {
	url := startServer(t)
	for _, w := range []int{1280, 1024, 1440, 390} {
		b := newBrowser(t, w, 900)
		if w < 500 {
			b.run(t, chromedp.EmulateViewport(int64(w), 844, chromedp.EmulateMobile))
		}
		b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm")
		b.waitFresh(t, 2*time.Minute)
		var m struct {
			Lines                        int
			Caption, Table, Metrics, Row box
			Page                         float64
		}
		b.run(t, chromedp.Evaluate(`(() => {
			const bx = e => { const r = e.getBoundingClientRect(); return {Top: r.top + scrollY, Bottom: r.bottom + scrollY, Left: r.left, Right: r.right}; };
			const cap = document.querySelector("#confusion caption"), rg = document.createRange();
			rg.selectNodeContents(cap);
			return {Lines: rg.getClientRects().length, Caption: bx(cap), Table: bx(document.getElementById("confusion")),
				Metrics: bx(document.getElementById("metrics")), Row: bx(document.querySelector("#confusion tbody tr")),
				Page: document.documentElement.clientWidth};
		})()`, &m))
		t.Logf("%d px: caption on %d line(s) %+v; table %+v; results table %+v", w, m.Lines, m.Caption, m.Table, m.Metrics)
		if m.Lines != 1 {
			t.Errorf("%d px: the confusion matrix's caption wraps onto %d lines", w, m.Lines)
		}
		if m.Caption.Right > m.Table.Right+1 || m.Caption.Right > m.Page {
			t.Errorf("%d px: the caption (right %.0f) sticks out of its table (right %.0f) or the page (%.0f)", w, m.Caption.Right, m.Table.Right, m.Page)
		}
		if m.Caption.Bottom > m.Row.Top {
			t.Errorf("%d px: the caption (bottom %.0f) runs into the matrix (first row at %.0f)", w, m.Caption.Bottom, m.Row.Top)
		}
		overlap := m.Caption.Left < m.Metrics.Right && m.Metrics.Left < m.Caption.Right &&
			m.Caption.Top < m.Metrics.Bottom && m.Metrics.Top < m.Caption.Bottom
		if overlap {
			t.Errorf("%d px: the caption %+v overlaps the results table %+v", w, m.Caption, m.Metrics)
		}
		b.screenshot(t, fmt.Sprintf("confusion-%d", w))
	}
}

// TestCompareThumbnailsKeepTheirOrder: Compare shows one thumbnail per
// model from the start, in the order the models are listed (the table's),
// a placeholder saying "running…" until its model finishes, so a slow
// model (GPC, listed before TWSVM) fills its own place and moves no other
// thumbnail. (Before, thumbnails appeared as their models finished and a
// slow model's pushed the ones after it along.)
func TestCompareThumbnailsKeepTheirOrder(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.open(t, url+"/?data=gen:moons&n=300&noise=0.25&seed=4&train=70&model=svm&view=compare")
	b.waitJS(t, `document.getElementById("compare-run")`, time.Minute)
	// every state the thumbnails go through: their models in order, and
	// which are placeholders
	b.run(t, chromedp.Evaluate(`(() => { window.__thumbStates = []; const seen = new Set();
		new MutationObserver(() => {
			const th = document.querySelector(".compare .thumbs"); if (!th) return;
			const s = Array.from(th.querySelectorAll(".thumb")).map(f => f.querySelector("figcaption").textContent.split(" — ")[0] +
				(f.classList.contains("pending") ? "…" : "")).join("|");
			if (!seen.has(s)) { seen.add(s); window.__thumbStates.push(s); }
		}).observe(document.body, {childList: true, subtree: true, attributes: true, attributeFilter: ["class"]});
		return true; })()`, nil))
	b.run(t, chromedp.Click("#cmp-gpc", chromedp.ByID), chromedp.Click("#cmp-twsvm", chromedp.ByID), chromedp.Click("#compare-run", chromedp.ByID))
	b.waitJS(t, `document.querySelectorAll("#compare-table .cmp-score").length === 4 && !document.getElementById("compare-run").disabled`, 3*time.Minute)
	b.waitJS(t, `document.querySelectorAll("#compare-thumbs .thumb.pending").length === 0`, 10*time.Second)
	// each picture is painted in a task of its own after its model's last
	// part (paintLater): give the last ones time to be drawn
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var drawn bool
		b.tryEval(`Array.from(document.querySelectorAll(".compare .thumbs canvas")).every(c => c.lupiDrawn)`, &drawn)
		if drawn {
			break
		}
	}
	var got struct {
		States          []string
		Table, Captions []string
		Pictures        []string
	}
	b.run(t, chromedp.Evaluate(`({States: window.__thumbStates,
		Table: Array.from(document.querySelectorAll("#compare-table tbody th")).map(e => e.textContent.trim()),
		Captions: Array.from(document.querySelectorAll(".compare .thumbs figcaption")).map(e => e.textContent.trim()),
		Pictures: Array.from(document.querySelectorAll(".compare .thumbs canvas")).map(c => c.lupiDrawn ? "drawn" : "blank")})`, &got))
	t.Logf("the thumbnails' states: %q; table %q; captions %q; pictures %q", got.States, got.Table, got.Captions, got.Pictures)
	final := strings.Join(got.Table, "|")
	if strings.Join(got.Captions, "|") != final {
		t.Errorf("the thumbnails %q are not in the table's order %q", got.Captions, got.Table)
	}
	if len(got.States) == 0 {
		t.Fatal("no thumbnails seen while the comparison ran")
	}
	for _, s := range got.States {
		if strings.ReplaceAll(s, "…", "") != final {
			t.Errorf("while the comparison ran the thumbnails were %q; want always %q (placeholders marked …)", s, final)
		}
	}
	if !strings.Contains(got.States[0], "…") {
		t.Errorf("the first thumbnails seen (%q) had no placeholder for the models still running", got.States[0])
	}
	for i, p := range got.Pictures {
		if p != "drawn" {
			t.Errorf("thumbnail %d (%s) is %s after the comparison", i, got.Captions[i], p)
		}
	}
	b.screenshot(t, "compare-thumbs")
}
