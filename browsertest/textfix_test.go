package browsertest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestBadLinkIsReported: a link with an unknown dataset, an unknown model
// and a parameter that is not a number used to show the defaults without a
// word. The playground now keeps what the link got right (the seed and the
// training share), uses data and a model it has instead of the rest, and
// says so in one notice that lists each part left out with what is used
// instead; the address then says what is on screen, and Dismiss removes the
// notice. The unknown dataset is only known to be unknown once the list of
// datasets has loaded: the notice must still name it.
func TestBadLinkIsReported(t *testing.T) {
	onDesktopAndPhone(t, "/?data=ds:nope&model=zzz&C=abc&seed=7&train=60", func(size string, b *browser) {
		b.waitJS(t, `document.querySelectorAll("#link-notice li").length === 3`, time.Minute)
		var items []string
		b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll("#link-notice li")).map(li => li.textContent)`, &items))
		t.Logf("%s: %q", size, items)
		want := [][]string{{`data = "ds:nope"`, "no such dataset", "Two moons is used"},
			{`model = "zzz"`, "no such model", "SVM is used"}, {`C = "abc"`, "not a number", "default 1"}}
		for i, w := range want {
			for _, part := range w {
				if i >= len(items) || !strings.Contains(items[i], part) {
					t.Errorf("%s: notice item %d lacks %q: %q", size, i, part, items)
				}
			}
		}
		b.waitFresh(t, 2*time.Minute)
		b.waitMap(t, "a", time.Minute)
		st := b.playState(t)
		q, _ := url.ParseQuery(strings.TrimPrefix(st.Search, "?"))
		if q.Get("data") != "gen:moons" || q.Get("model") != "svm" || q.Get("seed") != "7" || q.Get("train") != "60" || q.Has("C") || q.Has("p.C") ||
			st.Data != "gen:moons" || st.Model != "svm" || st.ResultModel != "svm" {
			t.Errorf("%s: the page shows %+v; want two moons and SVM with the link's seed 7 and 60 %% training, and the address saying so", size, st)
		}
		b.screenshot(t, "textfix-bad-link-"+size)
		b.run(t, chromedp.Click("#link-notice-dismiss", chromedp.ByID))
		b.waitJS(t, `!document.getElementById("link-notice")`, 10*time.Second)
		noConsoleErrors(t, b)
	})
}

// TestResultsNameTheDataset: the result's title says "Breast cancer
// (WDBC)…", the name the data picker shows, not the name "wdbc" that links
// carry.
func TestResultsNameTheDataset(t *testing.T) {
	b := newBrowser(t, 1280, 900)
	b.open(t, startServer(t)+"/?data=ds:wdbc&model=svm&seed=1&train=70")
	b.waitFresh(t, 2*time.Minute)
	title := b.jsString(t, `(document.querySelector("#dataset option:checked")||{}).textContent`)
	caption := b.jsString(t, `(document.querySelector("#metrics caption")||{}).textContent`)
	if !strings.HasPrefix(title, "Breast cancer") || caption != "Result of "+title+", SVM" {
		t.Errorf("the result's title is %q; want \"Result of %s, SVM\"", caption, title)
	}
}

// TestUndoRedoKeys: Ctrl+Z and ⌘Z undo the last edit of the points, as the
// Undo button does, Ctrl+Shift+Z, ⇧⌘Z and Ctrl+Y redo it; in a text field
// they are left to the browser (the page does not take the key, and the
// edits stay).
func TestUndoRedoKeys(t *testing.T) {
	b := newBrowser(t, 1280, 1000)
	b.open(t, startServer(t)+"/?data=gen:moons&n=60&noise=0.2&seed=1&train=70&model=svm&edits=a0.5%2C0.5%2C1%3Bx3%3Bx5")
	b.waitEditsFitted(t, 2*time.Minute)
	// a listener after the page's: whether the page took the last key
	b.run(t, chromedp.Evaluate(`document.addEventListener("keydown", e => { window.__keyTaken = e.defaultPrevented; }); true`, nil))
	const edits = `(new URLSearchParams(location.search).get("edits")||"")`
	key := func(k string, mods ...input.Modifier) {
		t.Helper()
		var m input.Modifier
		for _, x := range mods {
			m |= x
		}
		b.run(t, chromedp.KeyEvent(k, chromedp.KeyModifiers(m)))
	}
	waitEdits := func(step, want string) {
		t.Helper()
		b.waitJS(t, edits+` === "`+want+`"`, 10*time.Second)
		if b.jsString(t, `window.__keyTaken`) != "true" {
			t.Errorf("%s: the page did not take the key", step)
		}
	}
	b.run(t, chromedp.Evaluate(`document.activeElement && document.activeElement.blur(); true`, nil))
	key("z", input.ModifierCtrl)
	waitEdits("Ctrl+Z", "a0.5,0.5,1;x3")
	key("z", input.ModifierMeta)
	waitEdits("⌘Z", "a0.5,0.5,1")
	key("z", input.ModifierCtrl, input.ModifierShift)
	waitEdits("Ctrl+Shift+Z", "a0.5,0.5,1;x3")
	key("z", input.ModifierMeta, input.ModifierShift)
	waitEdits("⇧⌘Z", "a0.5,0.5,1;x3;x5")
	key("z", input.ModifierCtrl)
	waitEdits("Ctrl+Z", "a0.5,0.5,1;x3")
	key("y", input.ModifierCtrl)
	waitEdits("Ctrl+Y", "a0.5,0.5,1;x3;x5")
	b.waitEditsFitted(t, 2*time.Minute)
	if b.jsString(t, `document.getElementById("undo").disabled`) != "false" || b.jsString(t, `document.getElementById("redo").disabled`) != "true" {
		t.Error("after the keys, the Undo and Redo buttons disagree with the edits")
	}

	// in the number of samples, Ctrl+Z is the field's
	b.run(t, chromedp.Focus("#n", chromedp.ByID))
	key("z", input.ModifierCtrl)
	if b.jsString(t, `window.__keyTaken`) != "false" {
		t.Error("Ctrl+Z in a text field was taken by the page")
	}
	b.run(t, chromedp.Sleep(500*time.Millisecond))
	if got := b.jsString(t, edits); got != "a0.5,0.5,1;x3;x5" {
		t.Errorf("Ctrl+Z in a text field changed the edits to %q", got)
	}
	noConsoleErrors(t, b)
}

// TestNoEmptyStripAboveTheToolbar: on a fresh result, nothing but the
// result views' tabs' own margin lies between the tabs and the canvas
// toolbar — desktop and a 390 px phone. (The status line above the tools
// kept 2.4rem for a fit's progress even when it had nothing to say.) The
// progress line of the next fit shows over the top of the plots, which do
// not move.
func TestNoEmptyStripAboveTheToolbar(t *testing.T) {
	onDesktopAndPhone(t, "/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm", func(size string, b *browser) {
		b.waitFresh(t, 2*time.Minute)
		b.waitMap(t, "a", time.Minute)
		if b.jsString(t, `!!document.getElementById("tour-dismiss")`) == "true" {
			b.run(t, chromedp.Click("#tour-dismiss", chromedp.ByID))
			b.waitJS(t, `!document.getElementById("tour-pointer")`, 10*time.Second)
		}
		var m struct {
			Tabs, Toolbar, Plots float64
			Between              []string
		}
		b.run(t, chromedp.Evaluate(`(() => {
			const tabs = document.querySelector(".subtabs").getBoundingClientRect().bottom;
			const tb = document.querySelector(".toolbar").getBoundingClientRect().top;
			const between = Array.from(document.querySelectorAll(".results *")).filter(e => {
				const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= tabs && r.bottom <= tb; })
				.map(e => e.tagName + "#" + e.id + "." + e.className + " " + Math.round(e.getBoundingClientRect().height) + "px");
			return {Tabs: tabs, Toolbar: tb, Plots: document.querySelector(".plots").getBoundingClientRect().top, Between: between};
		})()`, &m))
		t.Logf("%s: tabs end at %.1f, toolbar starts at %.1f, plots at %.1f; between: %v", size, m.Tabs, m.Toolbar, m.Plots, m.Between)
		b.screenshot(t, "textfix-toolbar-"+size)
		// the tabs' margin (.75rem) and the toolbar's (.2rem) at 15 px
		if gap := m.Toolbar - m.Tabs; gap > 15 {
			t.Errorf("%s: %.1f px between the tabs and the toolbar; elements there: %v", size, gap, m.Between)
		}

		// the next fit: where the plots are whenever the status line changes
		b.run(t, chromedp.Evaluate(`(() => { window.__status = []; const plots = () => document.querySelector(".plots").getBoundingClientRect().top;
			const p0 = plots(), st = document.getElementById("status");
			new MutationObserver(() => { const r = st.getBoundingClientRect();
				window.__status.push({Filled: st.childElementCount > 0, Visible: getComputedStyle(st).visibility === "visible" && r.height > 0, Shift: plots() - p0}); })
				.observe(st, {childList: true, subtree: true}); return true; })()`, nil))
		b.setInput(t, "p-svm-C", "30")
		b.waitJS(t, `window.__status.some(s => s.Filled)`, time.Minute)
		b.waitFresh(t, 2*time.Minute)
		var seen []struct {
			Filled, Visible bool
			Shift           float64
		}
		b.run(t, chromedp.Evaluate(`window.__status`, &seen))
		t.Logf("%s: the status line while the next fit ran: %+v", size, seen)
		for _, s := range seen {
			if s.Shift != 0 || s.Filled != s.Visible {
				t.Errorf("%s: as the status line changed, the plots moved or the line was not seen: %+v", size, seen)
				break
			}
		}
	})
}

// onDesktopAndPhone opens link in a 1280 × 900 window, then in a 390 px
// wide phone's, and checks each with check.
func onDesktopAndPhone(t *testing.T, link string, check func(size string, b *browser)) {
	t.Helper()
	url := startServer(t)
	for _, sz := range []struct {
		name string
		w, h int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		b := newBrowser(t, sz.w, sz.h)
		b.open(t, url+link)
		check(sz.name, b)
	}
}
