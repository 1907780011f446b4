package browsertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// slowBody hands a response body on in small pieces, pausing between
// them: a slow network, for the bytes of one file.
type slowBody struct {
	io.ReadCloser
	chunk int
	pause time.Duration
}

func (s *slowBody) Read(b []byte) (int, error) {
	if len(b) > s.chunk {
		b = b[:s.chunk]
	}
	time.Sleep(s.pause)
	return s.ReadCloser.Read(b)
}

// startSlowProxy runs a reverse proxy in front of upstream that sends the
// bodies of the paths for which slow says yes in 16 kB pieces, one every
// pause.
func startSlowProxy(t *testing.T, upstream string, slow func(path string) bool, pause time.Duration) string {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // every piece goes out as it comes
	rp.ModifyResponse = func(r *http.Response) error {
		if slow(r.Request.URL.Path) {
			r.Body = &slowBody{ReadCloser: r.Body, chunk: 16 << 10, pause: pause}
		}
		return nil
	}
	srv := &http.Server{Handler: rp}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// loadLog records, from the document's start, every distinct state of the
// loading indicators: go-app's loader label (the interface, app.wasm), the
// page's compute-engine line and bar, and whether a worker is ready.
const loadLog = `(() => {
	window.__loadLog = [];
	let last = "";
	const look = () => {
		const label = document.getElementById("app-wasm-loader-label");
		const stage = document.getElementById("compute-stage");
		const bar = document.getElementById("compute-progress");
		const e = {
			loader: label && label.isConnected && document.getElementById("app-wasm-loader") ? label.innerText : "",
			live: !!(document.body && document.body.dataset.lupiReady),
			stage: stage ? stage.textContent : "",
			bar: bar ? (bar.hasAttribute("value") ? bar.value : -1) : null,
			ready: !!(window.lupiPool && lupiPool.ready()),
		};
		const icon = document.getElementById("app-wasm-loader-icon");
		if (icon && icon.isConnected) e.spin = getComputedStyle(icon).animationName;
		const k = JSON.stringify(e);
		if (k !== last) { last = k; e.t = Math.round(performance.now()); window.__loadLog.push(e); }
	};
	setInterval(look, 10);
})();`

type loadEntry struct {
	Loader string   `json:"loader"`
	Live   bool     `json:"live"`
	Stage  string   `json:"stage"`
	Bar    *float64 `json:"bar"`
	Ready  bool     `json:"ready"`
	Spin   string   `json:"spin"` // the loader's icon's animation, while it is shown
	T      float64  `json:"t"`
}

// TestFirstLoadSaysWhatLoads: go-app's loader counted app.wasm's bytes
// only, so a first visit showed "Loading LUPI Lab… 100%" and then waited
// for the compute engine (compute.wasm, fetched by a worker) without a
// word. Now the loader says it loads the interface, and once the
// interface is up, the page says "Loading the compute engine… N %" with a
// bar that follows compute.wasm's bytes (then "Starting the compute
// engine…"), until a worker is ready. compute.wasm comes through a slow
// proxy here, so that its loading is seen.
func TestFirstLoadSaysWhatLoads(t *testing.T) {
	up := startServer(t)
	proxy := startSlowProxy(t, up, func(p string) bool { return strings.HasSuffix(p, "/compute.wasm") }, 20*time.Millisecond)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(loadLog).Do(ctx)
		return err
	}))
	b.run(t, chromedp.Navigate(proxy+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm"))
	shot := false
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && !shot; time.Sleep(50 * time.Millisecond) {
		var pct float64
		b.tryEval(`(() => { const b = document.getElementById("compute-progress"); return b && b.hasAttribute("value") ? b.value : -1; })()`, &pct)
		if pct > 0.3 && pct < 0.9 {
			b.screenshot(t, "loading-compute-engine")
			shot = true
		}
	}
	b.waitFresh(t, 3*time.Minute)
	var log []loadEntry
	b.run(t, chromedp.Evaluate(`window.__loadLog`, &log))
	for _, e := range log {
		bar := "none"
		if e.Bar != nil {
			bar = strconv.FormatFloat(*e.Bar, 'f', 3, 64)
		}
		t.Logf("%6.0f ms  loader %q  live %v  stage %q  bar %s  ready %v", e.T, e.Loader, e.Live, e.Stage, bar, e.Ready)
	}

	interfacePct := regexp.MustCompile(`^Loading the interface… (\d+) %$`)
	enginePct := regexp.MustCompile(`^Loading the compute engine… (\d+) %$`)
	var sawInterface, sawStarting bool
	var percents []int
	for _, e := range log {
		if strings.Contains(e.Loader, "LUPI Lab") {
			t.Errorf("the loader says %q: it loads the interface only", e.Loader)
		}
		// go-app's loader spun its icon without end: each frame composited
		// anew, a core of software compositing (Lighthouse's Chromium)
		// beside the interface's start on the main thread
		if e.Spin != "" && e.Spin != "none" {
			t.Errorf("at %.0f ms the loader's icon runs the animation %q", e.T, e.Spin)
		}
		if interfacePct.MatchString(e.Loader) {
			sawInterface = true
		}
		if m := enginePct.FindStringSubmatch(e.Stage); m != nil {
			p, _ := strconv.Atoi(m[1])
			percents = append(percents, p)
			if e.Bar == nil || *e.Bar < 0 || int(*e.Bar*100+1e-9) != p {
				t.Errorf("the line says %d %%, the bar %v", p, e.Bar)
			}
		}
		sawStarting = sawStarting || e.Stage == "Starting the compute engine…"
		// Once the interface is live and before a worker is ready, the
		// page says that the compute engine loads.
		if e.Live && !e.Ready && e.Loader == "" && !strings.Contains(e.Stage, "the compute engine…") {
			t.Errorf("at %.0f ms the interface was up, the compute engine not ready, and the page said %q", e.T, e.Stage)
		}
	}
	if !sawInterface {
		t.Error(`the loader never said "Loading the interface… N %"`)
	}
	mid := 0
	for i, p := range percents {
		if i > 0 && p < percents[i-1] {
			t.Errorf("the compute engine's percentage went back: %v", percents)
			break
		}
		if p > 0 && p < 100 {
			mid++
		}
	}
	t.Logf("compute engine percentages shown: %v", percents)
	if mid < 3 {
		t.Errorf("the compute engine's loading showed %d percentages between 0 and 100 (%v); want it followed", mid, percents)
	}
	if !sawStarting {
		t.Error(`never "Starting the compute engine…" between the bytes and the ready engine`)
	}
	if b.exists(t, "#compute-stage") {
		t.Error("the compute engine's line stays once the engine is ready")
	}
	noConsoleErrors(t, b)
}

// TestPapersSaysWhatLoads: opened straight on the Papers tab, a first
// visit shows the compute engine's loading with a percentage and its bar,
// as the playground does (before, a bare "Loading the compute engine…"
// stayed until the list of experiments came), and the line goes once the
// experiments are listed.
func TestPapersSaysWhatLoads(t *testing.T) {
	up := startServer(t)
	proxy := startSlowProxy(t, up, func(p string) bool { return strings.HasSuffix(p, "/compute.wasm") }, 20*time.Millisecond)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.Navigate(proxy+"/?tab=papers"))
	enginePct := regexp.MustCompile(`^Loading the compute engine… (\d+) %$`)
	var seen []int
	shot := false
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var st struct {
			Stage string  `json:"stage"`
			Bar   float64 `json:"bar"`
			Runs  int     `json:"runs"`
		}
		b.tryEval(`(() => { const s = document.getElementById("compute-stage"), p = document.getElementById("compute-progress");
			return {stage: s ? s.textContent : "", bar: p && p.hasAttribute("value") ? p.value : -1,
				runs: document.querySelectorAll("[id^=exp-run-]").length}; })()`, &st)
		if m := enginePct.FindStringSubmatch(st.Stage); m != nil {
			p, _ := strconv.Atoi(m[1])
			if int(st.Bar*100+1e-9) != p {
				t.Errorf("the line says %d %%, the bar %v", p, st.Bar)
			}
			if len(seen) == 0 || seen[len(seen)-1] != p {
				seen = append(seen, p)
			}
			if p > 30 && p < 90 && !shot {
				b.screenshot(t, "papers-loading-compute-engine")
				shot = true
			}
		}
		if st.Runs > 0 {
			break
		}
	}
	t.Logf("percentages shown on the Papers tab: %v", seen)
	mid := 0
	for _, p := range seen {
		if p > 0 && p < 100 {
			mid++
		}
	}
	if mid < 3 {
		t.Errorf("the Papers tab showed %d percentages between 0 and 100 (%v) while the compute engine loaded", mid, seen)
	}
	b.waitJS(t, `document.querySelectorAll("[id^=exp-run-]").length > 0`, 2*time.Minute)
	if b.exists(t, "#compute-stage") {
		t.Error("the compute engine's line stays once the experiments are listed")
	}
	noConsoleErrors(t, b)
}
