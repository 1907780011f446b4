// Command screenshots refreshes the screenshots in docs/: one per model
// family, at a desktop and a phone size, each taken once the fit on screen
// is current and its full-resolution map is drawn.
//
//	go run . -addr 127.0.0.1:8091 -web web &   # the app, built by make wasm
//	go run ./scripts/screenshots -url http://127.0.0.1:8091 -out docs/screens
//
// (`make screenshots` does both.) It needs Debian's chromium.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

// shot is one screen: a playground link and a file name.
type shot struct{ name, query string }

var shots = []shot{
	{"svm", "?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm"},
	{"svm2plus", "?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=svm2plus"},
	{"gpcplus", "?data=gen:lupi2d&n=200&noise=0.2&seed=1&train=70&model=gpcplus"},
	{"mpwtsvm", "?data=gen:twoview2d&n=200&noise=0.1&seed=1&train=70&model=mpwtsvm"},
	{"twsvm", "?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=twsvm&p.kernel=rbf"},
	{"jointsvm", "?data=gen:multilabel2d&n=300&noise=0.05&seed=1&train=70&model=jointsvm"},
}

var sizes = []struct {
	name string
	w, h int
}{{"desktop", 1280, 900}, {"phone", 390, 844}}

func main() {
	url := flag.String("url", "http://127.0.0.1:8091", "the running app")
	out := flag.String("out", "docs/screens", "directory for the PNG files")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the browser")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, sz := range sizes {
		if err := take(*chromium, *url, *out, sz.name, sz.w, sz.h); err != nil {
			log.Fatal(err)
		}
	}
}

func take(chromium, url, out, size string, w, h int) error {
	profile, err := os.MkdirTemp("", "lupi-shots")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(profile), chromedp.WindowSize(w, h))
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 10*time.Minute)
	defer cancelT()
	for _, s := range shots {
		// fresh: the result is for the settings on screen; full: every
		// figure shows its full-resolution map (or has none to show)
		const ready = `(() => { const r = document.getElementById("result"); if (!r || r.dataset.state != "fresh") return false;
			const f = window.__lupiFigures || {}; const ks = Object.keys(f); return ks.length > 0 && ks.every(k => !f[k].hasMap || !f[k].preview); })()`
		var buf []byte
		err := chromedp.Run(ctx, chromedp.Navigate(url+"/"+s.query), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery),
			chromedp.Poll(ready, nil, chromedp.WithPollingTimeout(3*time.Minute)),
			chromedp.Sleep(300*time.Millisecond),
			chromedp.FullScreenshot(&buf, 100)) // 100: PNG
		if err != nil {
			return fmt.Errorf("%s at %s: %w", s.name, size, err)
		}
		p := filepath.Join(out, s.name+"-"+size+".png")
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return err
		}
		fmt.Println(p)
	}
	return nil
}
