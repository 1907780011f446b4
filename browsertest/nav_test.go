package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Navigation inside the app (go-app moves between pages without reloading
// them): what a page shows after a click or Back must be what a fresh load
// of the same address shows.

// TestToursOpenFromTheLearnList: fresh profile, /learn, click a tour: the
// tour's first step trains and draws as it does when /learn/<tour> is
// loaded directly (it used to stay on "Loading the data…": the in-app
// navigation did not start the tour's data and fit).
func TestToursOpenFromTheLearnList(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+"/learn")
	// the first step's model of each tour (app/learn.go)
	for _, c := range []struct{ tour, model string }{{"svm2plus", "svm"}, {"gpcplus", "gpc"}, {"jointsvm", "indepsvm"}} {
		b.run(t, chromedp.WaitVisible("#tour-"+c.tour, chromedp.ByID), chromedp.Click("#tour-"+c.tour, chromedp.ByID))
		b.waitJS(t, fmt.Sprintf(`location.pathname === "/learn/%s" && document.getElementById("step-1")`, c.tour), 30*time.Second)
		b.waitFresh(t, 2*time.Minute)
		b.waitMap(t, "a", time.Minute)
		var model string
		b.run(t, chromedp.Evaluate(`(window.__lupiResult||{}).model||""`, &model))
		if model != c.model {
			t.Errorf("%s opened from the list shows a %q result, want its first step's %q", c.tour, model, c.model)
		}
		var caption string
		b.run(t, chromedp.Evaluate(`(document.querySelector(".tour-canvas figcaption")||{}).textContent||""`, &caption))
		if strings.Contains(caption, "Loading") {
			t.Errorf("%s: the plot still says %q", c.tour, caption)
		}
		// back to the list through the header (another in-app navigation)
		b.run(t, chromedp.Click("#tab-learn", chromedp.ByID))
		b.waitJS(t, `location.pathname === "/learn" && document.querySelector(".learn-index")`, 30*time.Second)
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// playState is what the playground shows: the address's query, the form's
// data and model, and the result's model and training points.
type playState struct {
	Search, Data, Model, ResultModel, Train string
}

func (b *browser) playState(t *testing.T) playState {
	t.Helper()
	var st playState
	b.run(t, chromedp.Evaluate(`(() => { const r = (window.__lupiResult||{});
		return {Search: location.search, Data: document.getElementById("dataset").value, Model: document.getElementById("model").value,
			ResultModel: r.model||"", Train: JSON.stringify(r.train||null)}; })()`, &st))
	return st
}

// waitPlayground waits until the playground is on screen with a fresh
// result drawn.
func (b *browser) waitPlayground(t *testing.T) {
	t.Helper()
	b.waitJS(t, `document.getElementById("dataset") && document.getElementById("model") && document.getElementById("result")`, 30*time.Second)
	b.waitFresh(t, 2*time.Minute)
	b.waitMap(t, "a", time.Minute)
}

// change chooses value in the select id and waits until the result on
// screen is the new settings' (a fit of model, on other training points
// when newData): the address and the form change at once, the result a
// fit later.
func (b *browser) change(t *testing.T, id, value, model string, newData bool) {
	t.Helper()
	b.run(t, chromedp.Evaluate(`window.__navPrev = JSON.stringify((window.__lupiResult||{}).train||null); true`, nil))
	b.choose(t, id, value)
	key := map[string]string{"dataset": "data", "model": "model"}[id]
	b.waitJS(t, fmt.Sprintf(`new URLSearchParams(location.search).get(%q) === %q`, key, value), 30*time.Second)
	b.waitJS(t, fmt.Sprintf(`(() => { const r = (window.__lupiResult||{});
		return r.model === %q && (!%v || JSON.stringify(r.train||null) !== window.__navPrev); })()`, model, newData), 2*time.Minute)
	b.waitPlayground(t)
}

// matchesReload reloads the page and checks that it shows what it showed
// before: a fresh load of an address is the reference for what the app
// must show at that address.
func (b *browser) matchesReload(t *testing.T, step string, before playState) {
	t.Helper()
	b.run(t, chromedp.Reload(), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitPlayground(t)
	after := b.playState(t)
	if after.Search != before.Search || after.Data != before.Data || after.Model != before.Model ||
		after.ResultModel != before.ResultModel || after.Train != before.Train {
		t.Errorf("%s: the page showed data %q, model %q (result %q, %d bytes of points) at %q; a reload of that address shows data %q, model %q (result %q, %d bytes) at %q",
			step, before.Data, before.Model, before.ResultModel, len(before.Train), before.Search,
			after.Data, after.Model, after.ResultModel, len(after.Train), after.Search)
	}
}

// headerLinkIsHere: on the playground, the header's Playground link is the
// address (a stale one would take the playground back to older settings).
const headerLinkIsHere = `document.getElementById("tab-play").getAttribute("href") === "/" + location.search`

// TestPlaygroundKeepsItsStateAcrossTabs: fresh profile, choose data and
// model, About, Playground: the settings are still there (address, form
// and result); choose other data, Papers, Back: the address, the form and
// the result agree, and match a reload of the address. Then a new visit
// to / restores the last settings and the address says them.
func TestPlaygroundKeepsItsStateAcrossTabs(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+"/")
	b.waitPlayground(t)

	b.change(t, "dataset", "gen:circles", "svm", true)
	b.change(t, "model", "l2svm", "l2svm", false)
	chosen := b.playState(t)

	b.waitJS(t, headerLinkIsHere, 30*time.Second)
	b.run(t, chromedp.Click("#tab-about", chromedp.ByID))
	b.waitJS(t, `document.querySelector("article.about") && !document.getElementById("dataset")`, 30*time.Second)
	var link string
	b.run(t, chromedp.Evaluate(`document.getElementById("tab-play").getAttribute("href")`, &link))
	if link != "/"+chosen.Search {
		t.Errorf("on About, the header's Playground link is %q, want the playground's address %q", link, "/"+chosen.Search)
	}
	b.run(t, chromedp.Click("#tab-play", chromedp.ByID))
	b.waitPlayground(t)
	back := b.playState(t)
	q := func(s, key string) string {
		for _, kv := range strings.Split(strings.TrimPrefix(s, "?"), "&") {
			if k, v, _ := strings.Cut(kv, "="); k == key {
				return strings.ReplaceAll(v, "%3A", ":")
			}
		}
		return ""
	}
	if q(back.Search, "data") != "gen:circles" || q(back.Search, "model") != "l2svm" || back.Data != "gen:circles" || back.Model != "l2svm" || back.ResultModel != "l2svm" {
		t.Errorf("About then Playground: address %q, form data %q model %q, result %q; want Concentric circles / L2-SVM as chosen (%q)",
			back.Search, back.Data, back.Model, back.ResultModel, chosen.Search)
	}
	if back.Train != chosen.Train {
		t.Errorf("About then Playground: the result's training points differ from those before leaving")
	}
	if b.exists(t, "#notice") {
		t.Errorf("About then Playground: the notice %q shows (the link should carry the settings)", b.text(t, "#notice"))
	}
	b.matchesReload(t, "About then Playground", back)

	b.change(t, "dataset", "gen:spirals", "l2svm", true)
	spirals := b.playState(t)
	b.waitJS(t, headerLinkIsHere, 30*time.Second)
	b.run(t, chromedp.Click("#tab-papers", chromedp.ByID))
	b.waitJS(t, `document.getElementById("exp-run-jointsvm") && !document.getElementById("dataset")`, 30*time.Second)
	b.run(t, chromedp.Evaluate(`history.back(); true`, nil))
	b.waitJS(t, `new URLSearchParams(location.search).get("data") === "gen:spirals"`, 30*time.Second)
	b.waitPlayground(t)
	popped := b.playState(t)
	if popped.Data != "gen:spirals" || popped.Train != spirals.Train || popped.Search != spirals.Search {
		t.Errorf("Papers then Back: address %q, form data %q (result with the same points as before leaving: %v); want Two spirals as the address says",
			popped.Search, popped.Data, popped.Train == spirals.Train)
	}
	b.matchesReload(t, "Papers then Back", popped)

	// A new visit to / restores the last session: the notice says so and
	// the address says the restored settings.
	b.open(t, url+"/")
	b.waitJS(t, `(document.getElementById("notice")||{}).textContent === "Restored your last session."`, 30*time.Second)
	b.waitPlayground(t)
	restored := b.playState(t)
	if restored.Search != spirals.Search || restored.Data != "gen:spirals" {
		t.Errorf("restored session: address %q, form data %q; want the last settings %q", restored.Search, restored.Data, spirals.Search)
	}
	// A link to another playground address while the playground is on
	// screen, then Back and Forward: each time the form and the result
	// follow the address (go-app keeps the playground and sends it OnNav).
	b.run(t, chromedp.Evaluate(fmt.Sprintf(`window.__navPrev = JSON.stringify((window.__lupiResult||{}).train||null);
		(() => { const a = document.createElement("a"); a.href = %q; document.body.appendChild(a); a.click(); a.remove(); return true; })()`, "/"+chosen.Search), nil))
	b.waitJS(t, `new URLSearchParams(location.search).get("data") === "gen:circles"`, 30*time.Second)
	b.waitJS(t, `(() => { const r = (window.__lupiResult||{}); return r.model === "l2svm" && JSON.stringify(r.train||null) !== window.__navPrev; })()`, 2*time.Minute)
	b.waitPlayground(t)
	linked := b.playState(t)
	if linked.Search != chosen.Search || linked.Data != "gen:circles" || linked.Model != "l2svm" || linked.Train != chosen.Train {
		t.Errorf("a link to %q: address %q, form data %q, model %q (the result has that address's points: %v)", chosen.Search, linked.Search, linked.Data, linked.Model, linked.Train == chosen.Train)
	}
	for _, step := range []struct {
		js   string
		want playState
	}{{"history.back()", restored}, {"history.forward()", linked}} {
		b.run(t, chromedp.Evaluate(`window.__navPrev = JSON.stringify((window.__lupiResult||{}).train||null); `+step.js+`; true`, nil))
		b.waitJS(t, fmt.Sprintf(`location.search === %q`, step.want.Search), 30*time.Second)
		b.waitJS(t, `JSON.stringify((window.__lupiResult||{}).train||null) !== window.__navPrev`, 2*time.Minute)
		b.waitPlayground(t)
		if got := b.playState(t); got.Data != step.want.Data || got.Model != step.want.Model || got.Train != step.want.Train {
			t.Errorf("%s to %q: form data %q, model %q (the result has that address's points: %v)", step.js, step.want.Search, got.Data, got.Model, got.Train == step.want.Train)
		}
	}
	b.matchesReload(t, "a link, Back and Forward", linked)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
