package browsertest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestUpdatePrompt deploys the app, visits it, deploys a new version on the
// same address (a changed asset changes the version) and checks that the
// next visit offers to reload into the new version.
func TestUpdatePrompt(t *testing.T) {
	web := t.TempDir()
	src := filepath.Join(repoRoot, "web")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(web, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// A fixed free port, so both versions share one origin.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	url, stop := runServer(t, "-addr", addr, "-web", web)
	b := newBrowser(t, 1280, 800)
	b.run(t, chromedp.Navigate(url+"/"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	waitController(t, b)
	stop()

	css := filepath.Join(web, "style.css")
	old, _ := os.ReadFile(css)
	os.WriteFile(css, append(old, []byte("\n/* new version */\n")...), 0o644)
	url2, _ := runServer(t, "-addr", addr, "-web", web)
	if url2 != url {
		t.Fatalf("second server at %s, first at %s", url2, url)
	}
	b.run(t, chromedp.Reload())
	// The new service worker may finish installing before or after
	// app.wasm starts (web/boot.js keeps the notice in the first case).
	b.waitJS(t, `document.getElementById("update")`, 2*time.Minute)
	msg := b.text(t, "#update")
	if !strings.Contains(msg, "new version") {
		t.Errorf("update banner: %q", msg)
	}
	b.screenshot(t, "update-prompt")
	// Click through the element's own handler: a coordinate click raced the
	// page's layout while the first map was still arriving (the banner
	// stayed because the click landed elsewhere). The marker tells the
	// reloaded page from this one.
	var clicked bool
	b.run(t, chromedp.Evaluate(`window.lupiBeforeReload = true; document.getElementById("update-reload").click(); true`, &clicked))
	deadline := time.Now().Add(2 * time.Minute)
	var state map[string]any
	for time.Now().Before(deadline) {
		state = nil
		b.tryEval(`({reloaded: !window.lupiBeforeReload, live: document.body.hasAttribute("data-lupi-ready"), banner: !!document.getElementById("update"),
			controller: navigator.serviceWorker && navigator.serviceWorker.controller ? navigator.serviceWorker.controller.state : "none", ready: document.readyState})`, &state)
		if state != nil && state["reloaded"] == true && state["live"] == true && state["banner"] == false {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.screenshot(t, "update-after-reload")
	t.Fatalf("after Reload to update, the page is not the new version without the notice: %v", state)
}

func waitController(t *testing.T, b *browser) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var ok bool
		b.run(t, chromedp.Evaluate(`!!navigator.serviceWorker.controller`, &ok))
		if ok {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the service worker never took control")
}
