package browsertest

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestScratch(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	link := os.Getenv("SCRATCH_LINK")
	b.run(t, chromedp.Navigate(url+link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	wait := 6 * time.Second
	if w := os.Getenv("SCRATCH_WAIT"); w != "" {
		wait, _ = time.ParseDuration(w)
	}
	b.run(t, chromedp.Sleep(wait))
	b.screenshot(t, "scratch")
	var stats, figs string
	b.run(t, chromedp.Evaluate(`JSON.stringify(lupiPool.stats())`, &stats), chromedp.Evaluate(`JSON.stringify(window.__lupiFigures||{})`, &figs))
	t.Logf("pool %s\nfigures %s\nconsole %v", stats, figs, b.consoleErrors())
}
