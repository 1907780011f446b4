// Package browsertest drives the real app in headless Chromium (Debian's
// chromium) with chromedp: it starts the real server binary, clicks through
// the UI, reads the numbers the page shows and saves screenshots under
// browsertest/screenshots (git-ignored). It runs when LUPI_BROWSER_TESTS=1
// (make test sets it) and needs `make wasm` first.
package browsertest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var (
	repoRoot  string
	serverBin string
)

func TestMain(m *testing.M) {
	if os.Getenv("LUPI_BROWSER_TESTS") != "1" {
		fmt.Println("browser tests skipped: set LUPI_BROWSER_TESTS=1 (make test does)")
		os.Exit(0)
	}
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Dir(filepath.Dir(file))
	if _, err := os.Stat(filepath.Join(repoRoot, "web", "app.wasm")); err != nil {
		fmt.Println("web/app.wasm missing: run `make wasm` first")
		os.Exit(1)
	}
	tmp, err := os.MkdirTemp("", "lupi-browser")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(tmp, "lupi-server")
	build := exec.Command("go", "build", "-o", serverBin, ".")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Println("building the server failed:", err)
		os.Exit(1)
	}
	os.MkdirAll(filepath.Join(repoRoot, "browsertest", "screenshots"), 0o755)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// startServer runs the real server on a free port and returns its URL.
func startServer(t testing.TB, args ...string) string {
	t.Helper()
	url, _ := runServer(t, args...)
	return url
}

// runServer is startServer that also returns a function stopping the server
// (later flags override the defaults, e.g. "-addr", "-web").
func runServer(t testing.TB, args ...string) (string, func()) {
	t.Helper()
	cmd := exec.Command(serverBin, append([]string{"-addr", "127.0.0.1:0", "-web", filepath.Join(repoRoot, "web")}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				line <- strings.TrimSuffix(sc.Text()[i:], "/")
				return
			}
		}
	}()
	select {
	case u := <-line:
		return u, stop
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start")
	}
	return "", stop
}

// browser is a headless Chromium tab that records console errors.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
	logs   []string
}

// browserLife bounds a browser's whole session (tests); long benchmarks
// raise it before newBrowser.
var browserLife = 8 * time.Minute

func newBrowser(t testing.TB, width, height int) *browser {
	t.Helper()
	// Chromium may still be writing its profile when the test ends, so it
	// lives outside t.TempDir and is removed best-effort.
	profile, err := os.MkdirTemp("", "lupi-chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(width, height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, browserLife)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA(); os.RemoveAll(profile) })
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, strings.Trim(string(a.Value), `"`))
			}
			msg := string(e.Type) + ": " + strings.Join(parts, " ")
			b.logs = append(b.logs, msg)
			if e.Type == cdpruntime.APITypeError {
				b.errors = append(b.errors, msg)
			}
		case *cdpruntime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				b.errors = append(b.errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return b
}

func chromiumPath() string {
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "chromium"
}

func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

func (b *browser) run(t testing.TB, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.mu.Lock()
		t.Logf("console: %s", strings.Join(b.logs, "\n"))
		b.mu.Unlock()
		t.Fatal(err)
	}
}

func (b *browser) screenshot(t testing.TB, name string) {
	t.Helper()
	var buf []byte
	b.run(t, chromedp.FullScreenshot(&buf, 100))
	savePNG(t, name, buf)
}

// savePNG writes a picture the test took as browsertest/screenshots/name.png.
func savePNG(t testing.TB, name string, png []byte) {
	t.Helper()
	p := filepath.Join(repoRoot, "browsertest", "screenshots", name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// text reads an element's text content.
func (b *browser) text(t testing.TB, sel string) string {
	t.Helper()
	var s string
	b.run(t, chromedp.TextContent(sel, &s, chromedp.ByQuery))
	return strings.TrimSpace(s)
}

// waitText waits until the element's text satisfies ok.
func (b *browser) waitText(t testing.TB, sel string, timeout time.Duration, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		if err := b.ctx.Err(); err != nil {
			t.Fatalf("waiting for %s: the browser session ended (%v; browserLife %v)", sel, err, browserLife)
		}
		var s string
		var nodes []*cdp.Node
		if err := chromedp.Run(b.ctx, chromedp.Nodes(sel, &nodes, chromedp.ByQuery, chromedp.AtLeast(0))); err == nil && len(nodes) > 0 {
			if err := chromedp.Run(b.ctx, chromedp.TextContent(sel, &s, chromedp.ByQuery)); err == nil {
				last = strings.TrimSpace(s)
				if ok(last) {
					return last
				}
			}
		}
		var errText string
		chromedp.Run(b.ctx, chromedp.Evaluate(`(document.getElementById("error")||{}).textContent||""`, &errText))
		if errText != "" && errText != "Training cancelled." {
			t.Fatalf("the app shows an error: %s", errText)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.mu.Lock()
	t.Logf("console:\n%s", strings.Join(b.logs, "\n"))
	b.mu.Unlock()
	b.screenshot(t, "timeout-"+strings.Trim(sel, "#."))
	t.Fatalf("timed out waiting for %s (last text %q)", sel, last)
	return ""
}

// logPool logs the compute pool's counters and its last events (what a
// job that never started or never ended was waiting for).
func (b *browser) logPool(t testing.TB) {
	t.Helper()
	var dump string
	b.tryEval(`JSON.stringify({stats: window.lupiPool && lupiPool.stats(), log: (window.__lupiPoolLog||[]).slice(-60)})`, &dump)
	t.Logf("pool: %s", dump)
}

// tryEval evaluates a JS expression for a failure's report, giving up after
// 15 s (a page stuck in a navigation does not answer, and a report must not
// hang the suite until the browser's deadline).
func (b *browser) tryEval(expr string, out any) {
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	chromedp.Run(ctx, chromedp.Evaluate(expr, out))
}

// waitFresh waits until the playground shows a result computed with the
// current settings (#result[data-state=fresh]) and fails on an error.
func (b *browser) waitFresh(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var state, errText string
		chromedp.Run(b.ctx, chromedp.Evaluate(`(document.getElementById("result")||{dataset:{}}).dataset.state||""`, &state),
			chromedp.Evaluate(`(document.getElementById("error")||{}).textContent||""`, &errText))
		switch state {
		case "fresh":
			return
		case "error":
			t.Fatalf("the app shows an error: %s", errText)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot(t, "timeout-fresh")
	b.logPool(t)
	t.Fatalf("no fresh result within %v", timeout)
}

// waitEditsFitted waits until the result on screen was trained on the point
// edits the address shows, and figure A painted from it (the address
// changes at once, the result a fit later and the picture a paint after
// that: a plain waitFresh could still see the previous result, and a click
// placed from the figure's previous frame could hit another point).
func (b *browser) waitEditsFitted(t testing.TB, timeout time.Duration) {
	t.Helper()
	const edits = `(new URLSearchParams(location.search).get("edits")||"")`
	b.waitJS(t, `(window.__lupiResult||{}).edits === `+edits, timeout)
	b.waitFresh(t, timeout)
	b.waitJS(t, `(() => { const f = (window.__lupiFigures||{})["plot-a"]; return !!f && f.edits === `+edits+` && f.hasMap && !f.preview && !f.stale; })()`, timeout)
}

// waitMap waits until the figure plot-<view> shows its full-resolution map.
func (b *browser) waitMap(t testing.TB, view string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var info map[string]any
	for time.Now().Before(deadline) {
		info = nil
		chromedp.Run(b.ctx, chromedp.Evaluate(`(window.__lupiFigures||{})["plot-`+view+`"]||null`, &info))
		if info != nil && info["hasMap"] == true && info["preview"] == false && info["stale"] == false {
			return info
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot(t, "timeout-map-"+view)
	var page map[string]any
	b.tryEval(`(() => { const f = document.getElementById("fig-`+view+`");
		return {figClass: f ? f.className : "(none)", refining: !!(f && f.querySelector(".refining")), state: (document.getElementById("result")||{dataset:{}}).dataset.state,
			pool: window.lupiPool ? lupiPool.stats() : null, poolLog: (window.__lupiPoolLog||[]).slice(-12)}; })()`, &page)
	delete(info, "frame")
	t.Fatalf("no full-resolution map in plot-%s within %v; the figure's last paint: %v; the page: %v", view, timeout, info, page)
	return nil
}
