//go:build !js

// Command benchweb drives the in-browser SMO benchmark: it serves a directory
// holding index.html, wasm_exec.js, lupi.wasm (scripts/benchweb/wasm) and
// libsvm-js's browser build (libsvm.js + libsvm.wasm), opens the page in
// headless Chromium through chromedp, waits for both solvers to train on the
// same data at each size, and prints the times and the ratio ours / libsvm-js.
// scripts/bench-web.sh assembles the directory and runs it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

type row struct {
	N         int     `json:"n"`
	Ours      float64 `json:"ours_ms"`
	Theirs    float64 `json:"libsvmjs_ms"`
	Ratio     float64 `json:"ratio"`
	NSVOurs   int     `json:"nsv_ours"`
	NSVTheirs int     `json:"nsv_libsvmjs"`
	ObjOurs   float64 `json:"obj_ours"`
	IterOurs  int     `json:"iter_ours"`
}

func main() {
	dir := flag.String("dir", "", "directory to serve")
	sizes := flag.String("sizes", "1000,2000,5000", "comma-separated n")
	repeats := flag.Int("repeats", 2, "best of this many runs per size")
	timeout := flag.Duration("timeout", 20*time.Minute, "give up after")
	flag.Parse()
	if err := run(*dir, *sizes, *repeats, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "benchweb:", err)
		os.Exit(1)
	}
}

func chromium() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return "chromium"
}

func run(dir, sizes string, repeats int, timeout time.Duration) error {
	if dir == "" {
		return fmt.Errorf("-dir is required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go srv.Serve(ln)
	defer srv.Close()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium()), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	defer cancelT()

	url := fmt.Sprintf("http://%s/index.html?sizes=%s&repeats=%d", ln.Addr(), sizes, repeats)
	var version string
	var res []row
	var errText string
	err = chromedp.Run(ctx,
		chromedp.Navigate(url),
		chromedp.Evaluate(`navigator.userAgent`, &version),
		chromedp.Poll(`window.benchDone === true`, nil, chromedp.WithPollingInterval(500*time.Millisecond), chromedp.WithPollingTimeout(timeout)),
		chromedp.Evaluate(`window.benchError || ""`, &errText),
	)
	if err != nil {
		return err
	}
	if errText != "" {
		return fmt.Errorf("page: %s", errText)
	}
	var raw json.RawMessage
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.benchResult`, &raw)); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	fmt.Printf("bench-web: RBF gamma=0.1 C=1 eps=1e-3 cache=100MB, best of %d, %s\n", repeats, version)
	fmt.Printf("%7s | %10s %12s | %6s | %8s %8s\n", "n", "ours_ms", "libsvmjs_ms", "ratio", "nSV_ours", "nSV_js")
	for _, r := range res {
		fmt.Printf("%7d | %10.1f %12.1f | %6.2f | %8d %8d\n", r.N, r.Ours, r.Theirs, r.Ratio, r.NSVOurs, r.NSVTheirs)
	}
	return nil
}
