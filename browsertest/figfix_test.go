package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestThreeClassMapIsSmooth: a three-class map is painted finer than its
// cells (from the per-class margins the compute build sends) with the
// borders of the class regions drawn as lines, as smooth as a two-class
// map's boundary (before: the cells' colours, in steps of a cell).
func TestThreeClassMapIsSmooth(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.Navigate(url+"/?data=gen:blobs&n=300&noise=0.2&seed=1&train=70&model=svm"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 2*time.Minute)
	info := b.waitMap(t, "a", time.Minute)
	side, _ := info["mapSide"].(float64)
	img, _ := info["mapImageSide"].(float64)
	contours, _ := info["contours"].(float64)
	t.Logf("map of %v cells a side painted at %v pixels, %v contour styles; the figure's paint took %v ms", side, img, contours, info["paintMs"])
	if side < 100 || img < 3*side || contours < 1 {
		t.Errorf("the three-class map (%v cells a side) is painted at %v pixels with %v lines", side, img, contours)
	}
	if legend := b.text(t, "#fig-a .legend"); !strings.Contains(legend, "decision boundary") {
		t.Errorf("the legend does not name the borders: %q", legend)
	}
	b.screenshot(t, "figfix-three-classes")
}

// TestStatusLineHidesNoPoint: while a fit runs, the status line (progress,
// stage, Cancel) and the figure's own labels ("refining the map…") lie
// outside the plot's frame (before: the line lay over the frame's top rows
// and hid the points there); the axes are named for people (x₁, not x_1).
func TestStatusLineHidesNoPoint(t *testing.T) {
	onDesktopAndPhone(t, "/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm", func(size string, b *browser) {
		b.waitFresh(t, 2*time.Minute)
		b.waitMap(t, "a", time.Minute)
		if label := b.jsString(t, `document.getElementById("plot-a").getAttribute("aria-label")`); !strings.Contains(label, "Horizontal axis: x₁; vertical axis: x₂") {
			t.Errorf("%s: the figure's description: %q", size, label)
		}
		b.run(t, chromedp.Evaluate(`(() => { window.__over = []; const st = document.getElementById("status");
			const frame = () => { const c = document.getElementById("plot-a").getBoundingClientRect(), f = window.__lupiFigures["plot-a"];
				return {l: c.left + f.plotX, t: c.top + f.plotY, r: c.left + f.plotX + f.plotWidth, b: c.top + f.plotY + f.plotHeight}; };
			const overlap = (e) => { const r = e.getBoundingClientRect(), f = frame();
				if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility !== "visible") return 0;
				return Math.max(0, Math.min(r.right, f.r) - Math.max(r.left, f.l)) * Math.max(0, Math.min(r.bottom, f.b) - Math.max(r.top, f.t)); };
			const check = () => {
				for (const e of st.children) window.__over.push({What: "status " + e.tagName + "#" + e.id, Px: overlap(e)});
				for (const e of document.querySelectorAll("#fig-a .refining")) window.__over.push({What: "figure label " + e.textContent, Px: overlap(e)});
			};
			new MutationObserver(check).observe(document.getElementById("result"), {childList: true, subtree: true}); return true; })()`, nil))
		b.setInput(t, "p-svm-C", "30")
		b.waitJS(t, `window.__over.some(o => o.What.startsWith("status PROGRESS"))`, time.Minute)
		b.waitFresh(t, 2*time.Minute)
		var seen []struct {
			What string
			Px   float64
		}
		b.run(t, chromedp.Evaluate(`window.__over`, &seen))
		n := 0
		for _, o := range seen {
			if o.Px > 0 {
				t.Errorf("%s: %s covers %.0f px² of the plot's frame", size, o.What, o.Px)
				break
			}
			n++
		}
		t.Logf("%s: %d positions of the status line and figure labels checked", size, n)
	})
}
