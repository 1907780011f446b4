package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

func awaitPromise(p *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams {
	return p.WithAwaitPromise(true)
}

// TestStaticSiteWorksOffline exports the site with `-static DIR -base /sub/`,
// serves it from a plain file server under /sub/ (GitHub-Pages style), visits
// it once, stops the server, and checks that the app still starts and trains
// from the service worker's cache.
func TestStaticSiteWorksOffline(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(serverBin, "-static", dir, "-base", "/sub/", "-web", filepath.Join(repoRoot, "web"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("static export: %v\n%s", err, out)
	}
	mux := http.NewServeMux()
	mux.Handle("/sub/", http.StripPrefix("/sub", http.FileServer(http.Dir(dir))))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := newBrowser(t, 1280, 800)
	b.run(t, chromedp.Navigate(srv.URL+"/sub/"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	// Wait until the service worker controls the page and has cached everything.
	deadline := time.Now().Add(90 * time.Second)
	for {
		var cached int
		b.run(t, chromedp.Evaluate(`(async () => {
			if (!navigator.serviceWorker.controller) return -1;
			const keys = await caches.keys();
			if (keys.length === 0) return -2;
			const c = await caches.open(keys[0]);
			const got = await c.keys();
			// the compute build is cached once the app is live
			return got.some((r) => r.url.endsWith("/web/compute.wasm")) ? got.length : -3;
		})()`, &cached, awaitPromise))
		if cached > 5 {
			t.Logf("service worker cached %d resources", cached)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("service worker never took control / cached (state %d)", cached)
		}
		time.Sleep(250 * time.Millisecond)
	}
	// The sample datasets are not downloaded unless asked for (0.6 MB most
	// visits never need): none is cached yet.
	cachedCSV := func() int {
		var n int
		b.run(t, chromedp.Evaluate(`(async () => {
			const c = await caches.open((await caches.keys())[0]);
			return (await c.keys()).filter((r) => /\/web\/datasets\/.*\.csv$/.test(r.url)).length;
		})()`, &n, awaitPromise))
		return n
	}
	if n := cachedCSV(); n != 0 {
		t.Errorf("%d sample datasets were cached without being asked for", n)
	}
	// Keep them for offline use (Advanced settings).
	b.run(t, chromedp.Evaluate(`document.querySelector("details.advanced").open = true`, nil))
	b.run(t, chromedp.Click("#offline-data", chromedp.ByQuery))
	b.waitText(t, "#offline-note", time.Minute, func(s string) bool { return strings.Contains(s, "are kept in this browser") })
	var shipped int
	b.run(t, chromedp.Evaluate(`document.querySelectorAll("#dataset optgroup")[1].children.length`, &shipped))
	if n := cachedCSV(); n != shipped || n == 0 {
		t.Errorf("kept %d sample datasets offline; %d are shipped", n, shipped)
	}
	srv.Close() // the network is gone

	b.run(t, chromedp.Navigate(srv.URL+"/sub/?tab=play"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 2*time.Minute)
	acc := b.text(t, "#m-test-acc")
	t.Logf("offline: trained, test accuracy %s", acc)
	// The shipped datasets come from the cache too.
	var n int
	b.run(t, chromedp.Evaluate(`document.querySelectorAll("#dataset optgroup")[1] ? document.querySelectorAll("#dataset optgroup")[1].children.length : 0`, &n))
	if n == 0 {
		t.Error("offline: the shipped datasets are not listed")
	}
	// … and open without a network.
	b.run(t, chromedp.Navigate(srv.URL+"/sub/?tab=play&data=ds:wdbc&seed=1&train=70&model=svm"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitFresh(t, 2*time.Minute)
	t.Logf("offline: wdbc trained, test accuracy %s", b.text(t, "#m-test-acc"))
	b.screenshot(t, "offline-static-subpath")
}
