package browsertest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

const observeLongTasks = `(() => {
  window.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: false });
  return true;
})()`

// longTasks returns the durations of the long tasks recorded since
// observeLongTasks, sorted.
func longTasks(t *testing.T, b *browser) []float64 {
	t.Helper()
	var entries [][2]float64
	b.run(t, chromedp.Evaluate(`window.__longtasks`, &entries))
	d := make([]float64, len(entries))
	for i, e := range entries {
		d[i] = e[1]
	}
	sort.Float64s(d)
	return d
}

// poolStats reads the worker pool's counters.
func poolStats(t *testing.T, b *browser) map[string]any {
	t.Helper()
	var st map[string]any
	b.run(t, chromedp.Evaluate(`lupiPool.stats()`, &st))
	return st
}

// framesIn counts the animation frames the page paints in ms milliseconds:
// a main thread busy with numerics paints none.
func framesIn(t *testing.T, b *browser, ms int) int {
	t.Helper()
	var n int
	b.run(t, chromedp.Evaluate(fmt.Sprintf(`new Promise((resolve) => {
	  let n = 0; const t0 = performance.now();
	  const tick = () => { n++; if (performance.now() - t0 < %d) requestAnimationFrame(tick); else resolve(n); };
	  requestAnimationFrame(tick);
	})`, ms), &n, awaitPromise))
	return n
}

// TestJobsRunInWorkers starts each kind of long job — a fit, a
// cross-validated grid (Tune), a comparison and a paper's experiment —
// and checks what does not depend on the machine's load: the job runs in
// the compute workers (the pool reports it busy with that kind of job),
// the page keeps painting and scrolling meanwhile, and Cancel ends the job
// with its message. The long tasks of the main thread and the time Cancel
// took are logged (make bench-web reports them), not asserted.
func TestJobsRunInWorkers(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	jobs := []struct {
		name, link, prepare, run, cancel, msgSel, want, kind string
	}{
		// (estimated at seconds, it waits for a click on Train)
		{"train", "/?data=gen:moons&n=3000&noise=0.45&seed=2&train=80&model=svm&p.C=1000&p.gamma=3", "true", "#train", "#train-cancel", "#error", "Training cancelled.", "fit"},
		{"tune", "/?data=gen:moons&n=3000&noise=0.45&seed=5&train=70&model=svm&view=tune",
			`(() => { for (const [id, v] of [["tune-steps", "7"], ["tune-folds", "5"]]) { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event("change", {bubbles: true})); } return true; })()`,
			"#tune-run", "#tune-cancel", "#tune-error", "Grid search cancelled.", "cv"},
		{"compare", "/?data=gen:moons&n=1500&noise=0.45&seed=5&train=70&model=svm&view=compare",
			`(() => { for (const id of ["cmp-gpc", "cmp-twsvm"]) document.getElementById(id).click(); return true; })()`,
			"#compare-run", "#compare-cancel", "#compare-error", "Comparison cancelled.", "fit"},
		{"papers gpcplus", "/?tab=papers", "true", "#exp-run-gpcplus", "#exp-cancel", "#exp-gpcplus-error", "Cancelled.", "exptask"},
	}
	for _, j := range jobs {
		b.run(t, chromedp.Navigate(url+j.link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		if j.run != "" {
			b.waitJS(t, fmt.Sprintf(`document.querySelector(%q) && lupiPool.ready()`, j.run), time.Minute)
		}
		var ok bool
		b.run(t, chromedp.Evaluate(j.prepare, &ok), chromedp.Evaluate(observeLongTasks, &ok))
		if j.run != "" {
			b.run(t, chromedp.Click(j.run, chromedp.ByQuery))
		}
		b.waitJS(t, fmt.Sprintf(`document.querySelector(%q)`, j.cancel), time.Minute)
		// The job runs in the pool (a quick job, such as the data's points,
		// may go first).
		b.waitJS(t, fmt.Sprintf(`lupiPool.stats().running.includes(%q)`, j.kind), time.Minute)
		st := poolStats(t, b)
		running := fmt.Sprint(st["running"])
		frames := framesIn(t, b, 1000)
		var scrolled float64
		b.run(t, chromedp.Evaluate(`(() => { window.scrollTo(0, 200); return window.scrollY; })()`, &scrolled))
		if frames < 3 || scrolled == 0 {
			t.Errorf("%s: while the job runs the page painted %d frames in 1 s and scrolled to %v", j.name, frames, scrolled)
		}
		b.run(t, chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
		if !b.exists(t, j.cancel) {
			t.Fatalf("%s: the job ended by itself within a second; it should run for longer", j.name)
		}
		var ms float64
		b.run(t, chromedp.Evaluate(fmt.Sprintf(`new Promise((resolve) => {
		  const t0 = performance.now();
		  const done = () => ((document.querySelector(%q) || {}).textContent || "").includes(%q);
		  const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - t0); } });
		  obs.observe(document.body, { subtree: true, childList: true, characterData: true });
		  document.querySelector(%q).click();
		  setTimeout(() => { obs.disconnect(); resolve(-1); }, 30000);
		})`, j.msgSel, j.want, j.cancel), &ms, awaitPromise))
		if ms < 0 {
			b.screenshot(t, "jobs-"+strings.ReplaceAll(j.name, " ", "-"))
			t.Fatalf("%s: Cancel did not show %q within 30 s", j.name, j.want)
		}
		after := poolStats(t, b)
		tasks := longTasks(t, b)
		maxT := 0.0
		if len(tasks) > 0 {
			maxT = tasks[len(tasks)-1]
		}
		t.Logf("%s: ran in the pool (%s on %v workers), %d frames/s meanwhile; Cancel → %q after %.0f ms; main-thread long tasks: %d, largest %.0f ms; workers terminated so far: %v",
			j.name, running, st["workers"], frames, j.want, ms, len(tasks), maxT, after["terminated"])
	}
}

// exists reports whether an element matches sel.
func (b *browser) exists(t *testing.T, sel string) bool {
	t.Helper()
	var ok bool
	b.run(t, chromedp.Evaluate(fmt.Sprintf(`!!document.querySelector(%q)`, sel), &ok))
	return ok
}

// TestSameResultsWithOneOrTwoWorkers runs the same cross-validated grid
// and the same comparison with a pool of one worker and of two: the
// numbers must be identical (each task draws its folds and seeds from the
// settings, not from the worker that runs it).
func TestSameResultsWithOneOrTwoWorkers(t *testing.T) {
	url := startServer(t)
	var grids, compares, papers []string
	for _, workers := range []int{1, 2} {
		b := newBrowser(t, 1280, 1000)
		b.run(t, chromedp.Navigate(url+"/?tab=about"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery),
			chromedp.Evaluate(fmt.Sprintf(`localStorage.setItem("lupilab.workers", "%d"); true`, workers), nil))
		b.run(t, chromedp.Navigate(url+"/?data=gen:circles&n=160&noise=0.2&seed=3&train=70&model=svm&view=tune"),
			chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		b.waitJS(t, `document.getElementById("tune-run") && lupiPool.ready()`, time.Minute)
		if got := poolStats(t, b)["size"]; fmt.Sprint(got) != fmt.Sprint(workers) {
			t.Fatalf("pool size %v, want %d", got, workers)
		}
		b.run(t, chromedp.Evaluate(`(() => { for (const [id, v] of [["tune-steps", "3"], ["tune-folds", "3"]]) { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event("change", {bubbles: true})); } return true; })()`, nil),
			chromedp.Click("#tune-run", chromedp.ByID))
		b.waitText(t, "#cv-best", 3*time.Minute, func(s string) bool { return strings.HasPrefix(s, "Best:") })
		grids = append(grids, b.jsString(t, `Array.from(document.querySelectorAll("#cv-grid td")).map(td => td.textContent).join("|")`)+" "+b.text(t, "#cv-best"))
		b.run(t, chromedp.Click("#view-compare", chromedp.ByID), chromedp.WaitVisible("#compare-run", chromedp.ByID),
			chromedp.Evaluate(`(() => { for (const id of ["cmp-gpc", "cmp-twsvm", "cmp-wltsvm"]) document.getElementById(id).click(); return true; })()`, nil),
			chromedp.Click("#compare-run", chromedp.ByID))
		b.waitJS(t, `document.getElementById("compare-run") && !document.getElementById("compare-run").disabled && document.querySelectorAll("#compare-table .cmp-score").length === 5`, 3*time.Minute)
		compares = append(compares, b.jsString(t, `Array.from(document.querySelectorAll("#compare-table tbody tr")).map(tr => tr.cells[0].textContent + "=" + tr.cells[1].textContent + "/" + tr.cells[3].textContent + "/" + tr.cells[5].textContent).join(" ")`))
		// A paper's experiment fans its fits out over the pool; its table
		// (times aside) must not depend on the number of workers.
		b.run(t, chromedp.Navigate(url+"/?tab=papers"), chromedp.WaitVisible("#exp-run-jointsvm", chromedp.ByID))
		b.waitJS(t, `lupiPool.ready()`, time.Minute)
		b.run(t, chromedp.Click("#exp-run-jointsvm", chromedp.ByID))
		b.waitText(t, "#exp-jointsvm-table", 5*time.Minute, func(s string) bool { return s != "" })
		papers = append(papers, b.jsString(t, `(() => {
		  const tb = document.getElementById("exp-jointsvm-table");
		  const keep = Array.from(tb.tHead.rows[0].cells).map(th => !/time/i.test(th.textContent));
		  return Array.from(tb.tBodies[0].rows).map(tr => Array.from(tr.cells).filter((c, i) => keep[i]).map(c => c.textContent).join("/")).join(" ");
		})()`))
		t.Logf("%d worker(s): grid %s\ncompare %s\npapers %s", workers, grids[len(grids)-1], compares[len(compares)-1], papers[len(papers)-1])
	}
	if papers[0] != papers[1] {
		t.Errorf("the Joint SVM experiment differs between 1 and 2 workers:\n%s\n%s", papers[0], papers[1])
	}
	if grids[0] != grids[1] {
		t.Errorf("the CV grid differs between 1 and 2 workers:\n%s\n%s", grids[0], grids[1])
	}
	if compares[0] != compares[1] {
		t.Errorf("the comparison differs between 1 and 2 workers:\n%s\n%s", compares[0], compares[1])
	}
}

// TestCalibrationRunsAlone: the device calibration (a fit that measures
// this browser's speed for the estimates) waits until no other job runs or
// waits, and then runs on a worker already started: on a first visit it
// comes after the default fit, which neither waits for it nor shares a core
// with it.
func TestCalibrationRunsAlone(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.open(t, url+"/")
	b.waitJS(t, `(window.__lupiPoolLog || []).some((e) => / calibrate on /.test(e[1])) && lupiPool.stats().busy === 0 && lupiPool.stats().queued === 0`, time.Minute)
	var log [][]any
	b.run(t, chromedp.Evaluate(`window.__lupiPoolLog`, &log))
	running := map[string]string{} // job id → kind
	var fitEnded, calibrated bool
	for _, e := range log {
		ev := fmt.Sprint(e[1])
		f := strings.Fields(ev)
		switch {
		case len(f) == 5 && f[0] == "run" && f[3] == "on":
			if f[2] == "calibrate" {
				calibrated = true
				if len(running) > 0 || !fitEnded {
					t.Errorf("the calibration started while %v ran (the default fit had ended: %v); log: %v", running, fitEnded, log)
				}
			}
			running[f[1]] = f[2]
		case len(f) >= 2 && f[0] == "end":
			if running[f[1]] == "fit" {
				fitEnded = true
			}
			delete(running, f[1])
		}
	}
	if !calibrated {
		t.Fatalf("no calibration in the pool's log: %v", log)
	}
}

// TestPoolGrowsForWorkThatWaits: the pool starts another worker only for
// a job that has waited 250 ms for a free one (web/pool.js, GROW_AFTER_MS):
// two fits submitted together run on two workers, the second of which was
// started at least that long after the job was queued. The check reads
// the pool's log, so a loaded machine only makes the waits longer.
func TestPoolGrowsForWorkThatWaits(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.open(t, url+"/")
	// after the page's own jobs (the data's points, the default fit, the calibration)
	b.waitJS(t, `(window.__lupiPoolLog || []).some((e) => / calibrate on /.test(e[1])) && lupiPool.stats().busy === 0 && lupiPool.stats().queued === 0`, time.Minute)
	var before []float64 // one worker, in a pool of two; and when
	b.run(t, chromedp.Evaluate(`(() => { lupiPool.setSize(1); lupiPool.setSize(2); return [lupiPool.stats().workers, Math.floor(performance.now())]; })()`, &before))
	if len(before) != 2 || before[0] != 1 {
		t.Fatalf("a pool resized to 1 and then 2 has %v workers, want 1", before)
	}
	b.run(t, chromedp.Evaluate(`(() => {
		const body = JSON.stringify({data: {source: "gen:moons", n: 1500, noise: 0.45, seed: 2}, split: {train_frac: 0.8, seed: 1, scale: "standard"}, model: "svm", params: {C: "1000", gamma: "3"}});
		window.__growEnded = 0;
		window.__growIDs = [];
		for (let i = 0; i < 2; i++) window.__growIDs[i] = lupiPool.submit("fit", body, [], {priority: 10, onMessage: (kind) => { if (kind === "result" || kind === "error") window.__growEnded++; }});
		return true;
	})()`, nil))
	b.waitJS(t, `window.__growEnded === 2`, 2*time.Minute)
	var log [][]any
	var ids []int
	b.run(t, chromedp.Evaluate(`window.__lupiPoolLog`, &log), chromedp.Evaluate(`window.__growIDs`, &ids))
	queued := map[string]float64{} // waiting job id → when it was queued
	ran := map[string]string{}     // job id → worker
	spawns := 0
	for _, e := range log {
		at, _ := e[0].(float64)
		f := strings.Fields(fmt.Sprint(e[1]))
		switch {
		case len(f) == 3 && f[0] == "queue":
			queued[f[1]] = at
		case len(f) == 5 && f[0] == "run":
			delete(queued, f[1])
			ran[f[1]] = f[4]
		case len(f) == 2 && f[0] == "spawn" && at >= before[1]:
			spawns++
			oldest := math.Inf(1)
			for _, q := range queued {
				oldest = math.Min(oldest, q)
			}
			if at-oldest < 249 { // the log's times are rounded to the millisecond
				t.Errorf("a worker was started %.0f ms after the oldest waiting job was queued (want ≥ 250); log: %v", at-oldest, log)
			}
		}
	}
	if len(ids) != 2 || spawns != 1 || ran[fmt.Sprint(ids[0])] == "" || ran[fmt.Sprint(ids[0])] == ran[fmt.Sprint(ids[1])] {
		t.Errorf("two fits at once on a pool of size 2 with one worker: %d workers started, the fits ran on %v; want one more worker and a fit on each; log: %v", spawns, ran, log)
	}
}

// TestComputeWorkerReportsLoadFailures: the first worker fetches and
// compiles compute.wasm itself (the main thread never decodes it) and sends
// the module back, after {kind: "loading"} messages that count its bytes
// (up to compute.wasm's raw size); when the address is missing or is not
// WebAssembly it sends the reason instead, which the pool shows as "could
// not load the compute engine".
func TestComputeWorkerReportsLoadFailures(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.open(t, url+"/")
	init := func(file string) map[string]any {
		var got map[string]any
		b.run(t, chromedp.Evaluate(fmt.Sprintf(`new Promise((resolve) => {
			const w = new Worker("/web/worker.js");
			const loading = [];
			w.onmessage = (e) => {
				if (e.data.kind === "loading") { loading.push(JSON.parse(e.data.body)); return; }
				w.terminate();
				resolve({kind: e.data.kind, body: e.data.body || "", module: e.data.module instanceof WebAssembly.Module, loading: loading});
			};
			w.postMessage({v: 1, id: 0, kind: "init", url: location.origin + %q});
		})`, file), &got, awaitPromise))
		return got
	}
	got := init("/web/compute.wasm")
	if got["kind"] != "module" || got["module"] != true {
		t.Errorf("compute.wasm: the worker answered %v, want the compiled module", got)
	}
	raw, err := os.Stat(filepath.Join(repoRoot, "web", "compute.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := got["loading"].([]any)
	var lastLoaded, lastTotal float64
	if len(counts) > 0 {
		c, _ := counts[len(counts)-1].(map[string]any)
		lastLoaded, _ = c["loaded"].(float64)
		lastTotal, _ = c["total"].(float64)
	}
	t.Logf("compute.wasm: %d loading messages before the module, the last %v of %v bytes (raw size %d)", len(counts), lastLoaded, lastTotal, raw.Size())
	if len(counts) < 2 || lastTotal != float64(raw.Size()) {
		t.Errorf("compute.wasm: loading messages %v; want its bytes counted up to its raw size %d", counts, raw.Size())
	}
	for file, want := range map[string]string{"/web/no-such.wasm": "404", "/web/style.css": "CompileError"} {
		got := init(file)
		if got["kind"] != "module" || got["module"] == true || !strings.Contains(fmt.Sprint(got["body"]), want) {
			t.Errorf("%s: the worker answered %v, want a module message whose reason says %s", file, got, want)
		}
	}
}

// TestUIBuildIsWarmedUpInTheLoaderWorker: before the loader worker hands
// app.wasm to the page, it runs the UI build once in a stand-in document at
// the page's address (web/warm.js), so that V8 compiles the functions of
// the page's start there rather than on the main thread; its stand-in pool
// replays a recorded first fit (web/warm-fit.json, scripts/warmfit), so that
// the code showing a fit's result is compiled there too. That run must
// render the whole page and draw the replayed fit without stopping — a UI
// change that calls what the stand-in lacks makes it stop, and this test
// then shows where — and the page must start as usual after it, with
// nothing in its console.
func TestUIBuildIsWarmedUpInTheLoaderWorker(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	for _, c := range []struct {
		path     string
		replayed int // jobs the stand-in pool answered: the points, the calibration, the fit
	}{{"/", 3}, {"/learn", 0}, {"/?view=tune", 3}} {
		path := c.path
		b.open(t, url+path)
		// the report of the whole warm-up, the replay included
		b.waitJS(t, `window.__lupiWarm !== undefined && window.__lupiWarm.final === true`, time.Minute)
		var w struct {
			Ms        float64
			Elements  int
			Stopped   string
			Out       string
			Replayed  int
			Figures   []string
			Collected bool
		}
		b.run(t, chromedp.Evaluate(`window.__lupiWarm || {stopped: "no warm-up report"}`, &w))
		if c.replayed > 0 {
			b.waitJS(t, `window.__lupiResult !== undefined`, 3*time.Minute) // the live page's own first fit
		}
		var live int
		b.run(t, chromedp.Evaluate(`document.body.firstElementChild.querySelectorAll("*").length`, &live))
		if w.Stopped != "" || !(w.Ms > 0) {
			t.Errorf("%s: the warm-up stopped (%q) after %.0f ms:\n%s", path, w.Stopped, w.Ms, w.Out)
		}
		// The stand-in page has the live page's elements, give or take a
		// few (the live page's may still be loading).
		if w.Elements < live/2 || w.Elements > 2*live {
			t.Errorf("%s: the warm-up rendered %d elements, the page has %d", path, w.Elements, live)
		}
		if !w.Collected {
			t.Errorf("%s: the warm-up did not run the UI build's garbage collector (wasm/ui's lupiCollect)", path)
		}
		if w.Replayed != c.replayed {
			t.Errorf("%s: the warm-up replayed %d jobs, want %d", path, w.Replayed, c.replayed)
		}
		if c.replayed > 0 && !slices.Contains(w.Figures, "plot-a") {
			t.Errorf("%s: the warm-up drew the figures %v, want plot-a (the replayed fit)", path, w.Figures)
		}
		t.Logf("%s: warm-up %.0f ms, %d elements (the page: %d), %d jobs replayed, figures %v", path, w.Ms, w.Elements, live, w.Replayed, w.Figures)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}

	// A warm-up that takes longer than the page waits (here 1 ms) is cut
	// short: the page starts without it, and says why.
	b2 := newBrowser(t, 1280, 900)
	b2.run(t, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(`window.__lupiWarmLimitMs = 1;`).Do(ctx)
		return err
	}))
	b2.open(t, url+"/")
	b2.waitFresh(t, 3*time.Minute)
	var stopped string
	b2.run(t, chromedp.Evaluate(`(window.__lupiWarm || {}).stopped || ""`, &stopped))
	if !strings.Contains(stopped, "took more than 1 ms") {
		t.Errorf("with a 1 ms limit, the warm-up report says %q, want that it took more than 1 ms", stopped)
	}
	if errs := b2.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors without the warm-up: %v", errs)
	}
}
