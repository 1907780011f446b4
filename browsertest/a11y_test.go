package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, installed by `make deps` (npm) into .deps.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, ".deps", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is missing (make deps installs it): %v", err)
	}
	return string(b)
}

// axeViolations runs axe-core on the page and returns its violations.
func axeViolations(t *testing.T, b *browser, src string) []string {
	t.Helper()
	var out []string
	b.run(t, chromedp.Evaluate(src+";true", nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v =>
			v.id + " (" + v.impact + "): " + v.help + " — " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")))`, &out, awaitPromise))
	return out
}

// TestAccessibility runs axe-core on every page — the playground with a
// result, Compare, Tune, Papers, About and the tours — and requires zero
// violations.
func TestAccessibility(t *testing.T) {
	src := axeSource(t)
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	pages := []struct{ name, path, wait string }{
		{"playground", "/?data=gen:lupi2d&n=120&noise=0.2&seed=1&train=70&model=svm2plus", "fresh"},
		{"compare", "/?data=gen:moons&n=120&noise=0.2&seed=1&train=70&model=svm&view=compare", "#compare-run"},
		{"tune", "/?data=gen:moons&n=120&noise=0.2&seed=1&train=70&model=svm&view=tune", "#tune-run"},
		{"papers", "/?tab=papers", "#exp-run-jointsvm"},
		{"about", "/?tab=about", "h1"},
		{"learn", "/learn", "#tour-svm2plus"},
		{"tour", "/learn/svm2plus", "fresh"},
	}
	for _, p := range pages {
		b.run(t, chromedp.Navigate(url+p.path), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		if p.wait == "fresh" {
			b.waitFresh(t, 3*time.Minute)
		} else {
			b.waitJS(t, fmt.Sprintf(`document.querySelector(%q)`, p.wait), time.Minute)
		}
		v := axeViolations(t, b, src)
		if len(v) > 0 {
			t.Errorf("%s: %d axe-core violations:\n%s", p.name, len(v), strings.Join(v, "\n"))
		} else {
			t.Logf("%s: no axe-core violations", p.name)
		}
	}
}

// TestPhoneLayout opens the playground at 390×844: the plot comes before
// the form, nothing sticks out of the screen (the export bar, the import
// control, the tools, the CV grid, the column-role editor scroll inside
// their own boxes), and Train brings the result into view.
func TestPhoneLayout(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 390, 844)
	b.run(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.run(t, chromedp.Navigate(url+"/?data=gen:lupi2d&n=150&noise=0.2&seed=1&train=70&model=svm2plus"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 3*time.Minute)
	overflow := func(where string) {
		var out []string
		b.run(t, chromedp.Evaluate(`(() => {
			const w = document.documentElement.clientWidth, bad = [];
			for (const e of document.querySelectorAll("button, input, select, label, table, canvas, .toolbar, .exportbar")) {
				const r = e.getBoundingClientRect();
				if (r.width === 0 || r.height === 0) continue;
				let scroller = e.closest(".scroll");
				if (r.right > w + 1 && !scroller) bad.push((e.id || e.tagName) + " right=" + Math.round(r.right));
			}
			if (document.documentElement.scrollWidth > w + 1) bad.push("page scrolls sideways: " + document.documentElement.scrollWidth);
			return bad;
		})()`, &out))
		if len(out) > 0 {
			t.Errorf("%s at 390 px: clipped %v", where, out)
		}
	}
	overflow("playground")
	var figTop, formTop float64
	b.run(t, chromedp.Evaluate(`document.getElementById("fig-a").getBoundingClientRect().top`, &figTop),
		chromedp.Evaluate(`document.getElementById("dataset").getBoundingClientRect().top`, &formTop))
	if figTop > formTop {
		t.Errorf("on a phone the plot (top %v) comes after the form (top %v)", figTop, formTop)
	}
	b.screenshot(t, "phone-playground")
	b.run(t, chromedp.Click("#view-tune", chromedp.ByID), chromedp.WaitVisible("#tune-run", chromedp.ByID))
	b.setInput(t, "tune-steps", "3")
	b.setInput(t, "tune-folds", "3")
	b.run(t, chromedp.Click("#tune-run", chromedp.ByID))
	b.waitText(t, "#cv-best", 3*time.Minute, func(s string) bool { return strings.HasPrefix(s, "Best:") })
	overflow("tune")
	b.screenshot(t, "phone-tune")
	// the column-role editor
	b.run(t, chromedp.Click("#view-model", chromedp.ByID), chromedp.Evaluate(`document.querySelectorAll("details").forEach(d => d.open = true)`, nil))
	path := filepath.Join(t.TempDir(), "wide.csv")
	var sb strings.Builder
	sb.WriteString("a_long_column_name,another_long_column_name,third_feature_name,fourth_feature_name,label\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&sb, "%d,%d,%d,%d,%s\n", i, i*2, i%3, i%5, []string{"p", "q"}[i%2])
	}
	os.WriteFile(path, []byte(sb.String()), 0o644)
	b.upload(t, "#upload-input", path)
	b.waitJS(t, `document.getElementById("role-4")`, 30*time.Second)
	overflow("upload")
	b.screenshot(t, "phone-upload")
}
