package browsertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"regexp"
	"slices"
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
// (CV)" (CV spelt out in a title), and its accessible name is the text shown.
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
		want := "Tune (cross-validation)"
		if w < 500 {
			want = "Tune (CV)"
		}
		if got := tabs[2].Text; got != want {
			t.Errorf("%d px: Tune's tab reads %q, want %q", w, got, want)
		}
		// label in name (WCAG 2.5.3): a screen reader says what is shown
		if name := b.accessibleName(t, "#view-tune"); name != want {
			t.Errorf("%d px: Tune's tab is named %q for screen readers, want %q", w, name, want)
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

// barLabelGaps measures, in a picture of a figure (scale of its pixels to
// a CSS pixel), the room between the colour bar's name and what lies
// either side of it: the plot's frame on its left and the colour bar on
// its right (CSS pixels of white between them). The plot's right edge is
// the rightmost of the picture's longest vertical grey lines (#5a6470);
// right of it, across the middle rows of the plot, come white, the name's
// ink, white again, and the bar.
func barLabelGaps(t *testing.T, img image.Image, scale float64) (toFrame, toBar float64) {
	t.Helper()
	bd := img.Bounds()
	grey := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		near := func(v uint32, want int) bool { d := int(v>>8) - want; return d > -35 && d < 35 }
		return near(r, 0x5a) && near(g, 0x64) && near(b, 0x70)
	}
	// the plot's right edge: the rightmost column whose vertical run of
	// grey is (nearly) the longest
	edge, from, to, longest := -1, 0, 0, 0
	for x := bd.Min.X; x < bd.Max.X; x++ {
		cur, start := 0, 0
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			if !grey(x, y) {
				cur = 0
				continue
			}
			if cur == 0 {
				start = y
			}
			cur++
			switch {
			case cur > longest+2:
				edge, from, to, longest = x, start, y, cur
			case cur >= longest-2:
				edge, from, to = x, start, y
			}
		}
	}
	if longest < bd.Dy()/4 {
		t.Fatalf("no plot frame found (longest grey line %d px of %d)", longest, bd.Dy())
	}
	// the middle rows of the plot (the bar spans its middle 80 %, the name
	// is centred on it)
	h := to - from
	y0, y1 := from+h/5, to-h/5
	blank := func(x int) bool {
		for y := y0; y <= y1; y++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 225 || g>>8 < 225 || b>>8 < 225 {
				return false
			}
		}
		return true
	}
	// past the frame's stroke (its antialiased columns), then runs of
	// columns: white, the name, white, the bar
	x := edge + 1
	for x < bd.Max.X && !blank(x) {
		x++
	}
	var runs [][2]int // the runs of columns with ink: from, to
	for ; x < bd.Max.X && len(runs) < 2; x++ {
		if blank(x) {
			continue
		}
		r := [2]int{x, x}
		for r[1]+1 < bd.Max.X && !blank(r[1]+1) {
			r[1]++
		}
		runs, x = append(runs, r), r[1]
	}
	if len(runs) < 2 {
		t.Fatalf("right of the plot's frame (x = %d), over rows %d–%d: %d runs of ink, want the colour bar's name and the bar", edge, y0, y1, len(runs))
	}
	name, bar := runs[0], runs[1]
	return float64(name[0]-edge-1) / scale, float64(bar[0]-name[1]-1) / scale
}

// TestColourBarNameHasRoom: the colour bar's name, written upright left of
// the bar, keeps clear of the bar and of the plot's frame, in the exported
// PNG (drawn at twice the resolution) as on a screen of the same
// resolution, with the same room in both. (Before, its letters touched the bar in the PNG: 0.5 px
// between them.)
func TestColourBarNameHasRoom(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.EmulateViewport(1280, 1000, chromedp.EmulateScale(2)))
	b.open(t, url+"/?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=svm1plus")
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
	// the figure on the screen
	var shot []byte
	b.run(t, chromedp.Screenshot("#wrap-a", &shot, chromedp.ByID))
	savePNG(t, "reviewfix-colourbar-screen", shot)
	screen, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	// the exported PNG: the Blob the download link is given
	b.run(t, chromedp.Evaluate(`(() => { const made = URL.createObjectURL; URL.createObjectURL = blob => { window.__blob = blob; return made(blob); }; return true; })()`, nil),
		chromedp.Click("#export-png", chromedp.ByID))
	b.waitJS(t, `window.__lupiLastDownload && window.__lupiLastDownload.name.endsWith(".png") && window.__blob`, 10*time.Second)
	var data string
	b.run(t, chromedp.Evaluate(`new Promise(done => { const r = new FileReader(); r.onload = () => done(r.result.split(",")[1]); r.readAsDataURL(window.__blob); })`, &data, awaitPromise))
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "reviewfix-colourbar-export", raw)
	export, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	const room = 3.0 // CSS px
	sf, sb := barLabelGaps(t, screen, 2)
	ef, eb := barLabelGaps(t, export, 2)
	t.Logf("room left and right of the colour bar's name: screen %.1f and %.1f px, export %.1f and %.1f px", sf, sb, ef, eb)
	for _, g := range []struct {
		where string
		px    float64
	}{{"screen: to the plot's frame", sf}, {"screen: to the bar", sb}, {"export: to the plot's frame", ef}, {"export: to the bar", eb}} {
		if g.px < room {
			t.Errorf("%s, the colour bar's name has %.1f px of room; want at least %.0f", g.where, g.px, room)
		}
	}
	if d := eb - sb; d < -1 || d > 1 {
		t.Errorf("the room between the colour bar and its name differs: %.1f px on the screen, %.1f px in the export", sb, eb)
	}
	noConsoleErrors(t, b)
}

// TestTuneAxesReadAlike: Tune's grid writes the values of its rows and
// columns in one plain format ("0.001 … 31.6, 1000", not "… 31.6, 1e+03"),
// and every cell's tooltip and the best cell's line name the values as the
// headers write them.
func TestTuneAxesReadAlike(t *testing.T) {
	b := runTune(t, "/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm&view=tune", 5, 3)
	best := b.waitText(t, "#cv-best", 3*time.Minute, func(s string) bool { return strings.HasPrefix(s, "Best:") })
	var g struct {
		Cols, Rows, Titles []string
	}
	b.run(t, chromedp.Evaluate(`({Cols: Array.from(document.querySelectorAll("#cv-grid thead th")).slice(1).map(e => e.textContent.trim()),
		Rows: Array.from(document.querySelectorAll("#cv-grid tbody th")).map(e => e.textContent.trim()),
		Titles: Array.from(document.querySelectorAll("#cv-grid tbody td")).map(e => e.title)})`, &g))
	t.Logf("rows %q, columns %q; %s", g.Rows, g.Cols, best)
	want := []string{"0.001", "0.0316", "1", "31.6", "1000"}
	if strings.Join(g.Rows, " ") != strings.Join(want, " ") || strings.Join(g.Cols, " ") != strings.Join(want, " ") {
		t.Errorf("the grid's rows %q and columns %q, want both %q", g.Rows, g.Cols, want)
	}
	if len(g.Titles) != len(g.Rows)*len(g.Cols) {
		t.Fatalf("%d cells for %d rows and %d columns", len(g.Titles), len(g.Rows), len(g.Cols))
	}
	for k, title := range g.Titles {
		if prefix := "C = " + g.Rows[k/len(g.Cols)] + ", γ = " + g.Cols[k%len(g.Cols)] + ":"; !strings.HasPrefix(title, prefix) {
			t.Errorf("cell %d's tooltip %q does not start %q", k, title, prefix)
		}
	}
	m := regexp.MustCompile(`^Best: C = (\S+), γ = (\S+) \(`).FindStringSubmatch(best)
	if m == nil || !slices.Contains(g.Rows, m[1]) || !slices.Contains(g.Cols, m[2]) {
		t.Errorf("the best cell's line %q does not name a row and a column as the headers write them", best)
	}
	b.screenshot(t, "reviewfix-tune-axes")
	noConsoleErrors(t, b)
}
