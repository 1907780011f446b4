package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	_ "lupilab/models/all"
	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
)

// metricText is what the app shows as its headline test metric.
func metricText(o *run.Outcome) (sel, want string) {
	if o.TestTags != nil {
		return "#m-test-f1", fmt.Sprintf("%.3f", o.TestTags.Micro.F1)
	}
	return "#m-test-acc", fmt.Sprintf("%.1f %%", 100*o.TestAcc)
}

// TestEveryModelInTheBrowser trains every registered model through the UI on
// the generator the app picks for it and checks that the numbers the page
// shows equal those of the native pipeline on the same data and seed (the
// wasm and native builds run the same code; this checks they agree), and
// saves a screenshot per model.
func TestEveryModelInTheBrowser(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	b.run(t, chromedp.Navigate(url+"/"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	for _, spec := range model.All() {
		gen := run.DefaultGenerator(spec)
		ds, err := data.GenerateByName(gen, 100, 0.2, 1)
		if err != nil {
			t.Fatal(err)
		}
		// A link with the state: the app restores it and trains.
		link := fmt.Sprintf("%s/?data=gen:%s&n=100&noise=0.2&seed=1&train=70&model=%s", url, gen, spec.ID)
		start := time.Now()
		b.run(t, chromedp.Navigate(link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		sel := "#m-test-acc"
		if spec.Task == model.MultiLabel {
			sel = "#m-test-f1"
		}
		b.waitFresh(t, 5*time.Minute)
		got := b.text(t, sel)
		elapsed := time.Since(start)
		shown := b.text(t, "#metrics caption")
		// The same parameters as the app used (the URL carries every
		// non-default value; on 2-D data no width is adapted).
		params := urlParams(t, b)
		want, err := run.Do(context.Background(), run.Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard", Model: spec.ID, Params: params}, nil)
		if err != nil {
			t.Errorf("%s: native run: %v", spec.ID, err)
			continue
		}
		_, wantText := metricText(want)
		if got != wantText || !strings.HasSuffix(strings.TrimSpace(shown), spec.Name) {
			t.Errorf("%s: the app shows %s %q (caption %q), the native pipeline %q with %v", spec.ID, sel, got, shown, wantText, params)
		}
		// At rest every model's map is at full resolution: a cell per two
		// CSS pixels of the plot at least.
		views := []string{"a"}
		if spec.Z == model.ZView {
			views = append(views, "b")
		}
		for _, v := range views {
			info := b.waitMap(t, v, 2*time.Minute)
			side, _ := info["mapSide"].(float64)
			pw, _ := info["plotWidth"].(float64)
			if side*2 < pw {
				t.Errorf("%s: plot-%s map of %v cells for a plot %v CSS pixels wide", spec.ID, v, side, pw)
			}
		}
		// Read without a manual: a legend and named axes on every figure.
		var legend int
		var label string
		b.run(t, chromedp.Evaluate(`document.querySelectorAll("#fig-a .legend li").length`, &legend),
			chromedp.Evaluate(`document.getElementById("plot-a").getAttribute("aria-label")`, &label))
		if legend < 3 || !strings.Contains(label, "Horizontal axis: ") || !strings.Contains(label, "Background: ") {
			t.Errorf("%s: legend of %d entries; canvas description %q", spec.ID, legend, label)
		}
		t.Logf("%-9s %-13s %s = %s (native %s); load+train+map %.2f s, fit %s, map %s", spec.ID, gen, sel, got, wantText,
			elapsed.Seconds(), b.text(t, "#m-time"), b.text(t, "#m-grid-time"))
		b.screenshot(t, "model-"+spec.ID)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestAppMatchesCLI writes the app's split of a dataset to files, runs the
// CLI on them and checks the CLI's test accuracy equals what the app shows.
func TestAppMatchesCLI(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "lupi")
	build := exec.Command("go", "build", "-o", cli, "./cmd/lupi")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	for _, c := range []struct{ model, gen string }{{"svm", "moons"}, {"svm2plus", "lupi2d"}, {"gpc", "xor"}} {
		ds, err := data.GenerateByName(c.gen, 200, 0.2, 1)
		if err != nil {
			t.Fatal(err)
		}
		train, test, err := run.Prepare(run.Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard"})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for name, d := range map[string]*data.Dataset{"train.csv": train, "test.csv": test} {
			f, err := os.Create(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := data.WriteCSV(f, d); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		link := fmt.Sprintf("%s/?data=gen:%s&n=200&noise=0.2&seed=1&train=70&model=%s", url, c.gen, c.model)
		b.run(t, chromedp.Navigate(link), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
		b.waitFresh(t, 3*time.Minute)
		got := b.text(t, "#m-test-acc")
		args := []string{"fit", "-model", c.model, "-train", filepath.Join(dir, "train.csv"), "-test", filepath.Join(dir, "test.csv"), "-seed", "1"}
		for k, v := range urlParams(t, b) {
			args = append(args, "-set", k+"="+v)
		}
		out, err := exec.Command(cli, args...).Output()
		if err != nil {
			t.Fatalf("%s: lupi fit %v: %v", c.model, args, err)
		}
		var res struct {
			TestMetrics map[string]float64 `json:"test_metrics"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v\n%s", c.model, err, out)
		}
		cliAcc := fmt.Sprintf("%.1f %%", 100*res.TestMetrics["accuracy"])
		if got != cliAcc {
			t.Errorf("%s on %s: app %s, CLI %s", c.model, c.gen, got, cliAcc)
		}
		t.Logf("%s on %s: app %s, CLI %s", c.model, c.gen, got, cliAcc)
	}
}

// urlParams returns the parameters the result on screen used: what the
// link carries, completed by the app with data-dependent defaults (the
// window.__lupiResult hook).
func urlParams(t *testing.T, b *browser) model.Values {
	t.Helper()
	var params map[string]string
	b.run(t, chromedp.Evaluate(`window.__lupiResult ? window.__lupiResult.params : {}`, &params))
	var search string
	b.run(t, chromedp.Evaluate(`location.search`, &search))
	q, err := url.ParseQuery(strings.TrimPrefix(search, "?"))
	if err != nil {
		t.Fatal(err)
	}
	for k, vals := range q {
		if name, ok := strings.CutPrefix(k, "p."); ok && len(vals) > 0 && params[name] != vals[0] {
			t.Errorf("the link sets %s = %s, the result used %s", name, vals[0], params[name])
		}
	}
	return model.Values(params)
}

// TestModelErrorShown: a fit the model refuses shows its error in the page,
// and the app recovers when the setting is changed back. SVM2+ with a
// sigmoid privileged kernel (not positive semi-definite, so dual (4) is not
// convex) must say so instead of training, panicking or showing NaN; the
// same link with an RBF privileged kernel trains.
func TestModelErrorShown(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	link := url + "/?data=gen:lupi2d&n=100&noise=0.2&seed=1&train=70&model=svm2plus&p.zkernel="
	b.run(t, chromedp.Navigate(link+"sigmoid"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	b.waitJS(t, `(document.getElementById("error")||{}).textContent?.includes("not positive semi-definite")`, time.Minute)
	msg := b.errorText(t, "error")
	if !strings.Contains(msg, "privileged kernel sigmoid") || !strings.Contains(msg, "RBF") {
		t.Errorf("error %q should name the kernel and suggest a positive semi-definite one", msg)
	}
	if acc := b.jsString(t, `(document.getElementById("m-test-acc")||{}).textContent`); acc != "" {
		t.Errorf("a refused fit shows a test accuracy %q", acc)
	}
	t.Logf("shown: %s", msg)
	b.screenshot(t, "error-svm2plus-sigmoid")
	b.run(t, chromedp.Navigate(link+"rbf"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	acc := b.waitText(t, "#m-test-acc", time.Minute, func(s string) bool { return strings.HasSuffix(s, "%") })
	if e := b.errorText(t, "error"); e != "" {
		t.Errorf("error %q still shown after a fit that worked (test accuracy %s)", e, acc)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
