package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// accessibleName is the name the browser's accessibility tree gives the
// element sel selects (what a screen reader says).
func (b *browser) accessibleName(t *testing.T, sel string) string {
	t.Helper()
	var nodes []*cdp.Node
	b.run(t, chromedp.Nodes(sel, &nodes, chromedp.ByQuery))
	var name string
	b.run(t, chromedp.ActionFunc(func(ctx context.Context) error {
		ax, err := accessibility.GetPartialAXTree().WithBackendNodeID(nodes[0].BackendNodeID).WithFetchRelatives(false).Do(ctx)
		if err != nil || len(ax) == 0 || ax[0].Name == nil {
			return fmt.Errorf("no accessibility node for %s (%v)", sel, err)
		}
		return json.Unmarshal(ax[0].Name.Value, &name)
	}))
	return name
}

// TestResultTabsOnOneLine: the result views' tabs (Model, Compare, Tune)
// lie on one line on a 390 px phone and a 320 px one as on a desktop, none
// of them cut or scrolled away; on a narrow screen Tune's tab reads "Tune
// (CV)", and its accessible name still says "Tune (cross-validation)".
// (Before, "Tune (cross-validation)" wrapped onto a second row of tabs at
// 390 px.)
func TestResultTabsOnOneLine(t *testing.T) {
	url := startServer(t)
	for _, w := range []int{1280, 390, 320} {
		b := newBrowser(t, w, 844)
		if w < 500 {
			b.run(t, chromedp.EmulateViewport(int64(w), 844, chromedp.EmulateMobile))
		}
		b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm")
		var tabs []struct {
			Text       string
			Top, Right float64
		}
		var list struct{ Right, ScrollWidth, ClientWidth float64 }
		b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll(".subtabs [role=tab]")).map(e => {
			const r = e.getBoundingClientRect(); return {Text: e.innerText.trim(), Top: r.top, Right: r.right}; })`, &tabs),
			chromedp.Evaluate(`(() => { const l = document.querySelector(".subtabs");
				return {Right: l.getBoundingClientRect().right, ScrollWidth: l.scrollWidth, ClientWidth: l.clientWidth}; })()`, &list))
		t.Logf("%d px: tabs %+v; tab list %+v", w, tabs, list)
		if len(tabs) != 3 {
			t.Fatalf("%d px: %d result tabs, want 3", w, len(tabs))
		}
		for _, tb := range tabs[1:] {
			if tb.Top != tabs[0].Top {
				t.Errorf("%d px: the tab %q (top %.0f) is not on the line of %q (top %.0f)", w, tb.Text, tb.Top, tabs[0].Text, tabs[0].Top)
			}
		}
		if last := tabs[len(tabs)-1]; last.Right > list.Right+0.5 || list.ScrollWidth > list.ClientWidth {
			t.Errorf("%d px: the tabs (last ends at %.0f) overflow their row (%+v)", w, last.Right, list)
		}
		if name := b.accessibleName(t, "#view-tune"); name != "Tune (cross-validation)" {
			t.Errorf("%d px: Tune's tab is named %q for screen readers, want \"Tune (cross-validation)\"", w, name)
		}
		want := "Tune (cross-validation)"
		if w < 500 {
			want = "Tune (CV)"
		}
		if got := tabs[2].Text; got != want {
			t.Errorf("%d px: Tune's tab reads %q, want %q", w, got, want)
		}
		b.screenshot(t, fmt.Sprintf("reviewfix-tabs-%d", w))
	}
}

// TestSVM1PlusLegendNamesItsMargin: SVM1+'s decision map on the LUPI 2-D
// data draws the margin f = −1 as a dashed line, its f = +1 lying outside
// the map's range; the legend names that dashed line, as the one margin it
// is. (Before, only "margins (f = ±1)" was a label, given to the +1 line,
// so the dashed line drawn had no legend entry.)
func TestSVM1PlusLegendNamesItsMargin(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+"/?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=svm1plus")
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
	var dashed []string
	b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll("#fig-a .legend li")).filter(li => li.querySelector(".swatch-dash")).map(li => li.textContent.trim())`, &dashed))
	legend := b.text(t, "#fig-a .legend")
	t.Logf("dashed lines in the legend: %q; the legend: %s", dashed, legend)
	if len(dashed) != 1 || dashed[0] != "margin (f = −1)" {
		t.Errorf("the legend's dashed lines are %q, want one, the margin (f = −1)", dashed)
	}
	if strings.Contains(legend, "±1") {
		t.Errorf("the legend names both margins, and one is drawn: %s", legend)
	}
	b.screenshot(t, "reviewfix-svm1plus-legend")
	noConsoleErrors(t, b)
}
