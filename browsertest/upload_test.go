package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"lupilab/models/data"
)

// netRecorder keeps every request the page sends.
type netRecorder struct {
	mu   sync.Mutex
	reqs []*network.Request
}

func recordNetwork(t *testing.T, b *browser) *netRecorder {
	t.Helper()
	r := &netRecorder{}
	chromedp.ListenTarget(b.ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			r.mu.Lock()
			r.reqs = append(r.reqs, e.Request)
			r.mu.Unlock()
		}
	})
	b.run(t, network.Enable())
	// Control: a request the page makes must show up, or the check proves nothing.
	b.run(t, chromedp.Evaluate(`fetch("/web/datasets/index.json?recorder-control").then(() => 1)`, nil))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, q := range r.all() {
			if strings.Contains(q.URL, "recorder-control") {
				return r
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the network recorder saw no request: it would miss an upload too")
	return r
}

func (r *netRecorder) all() []*network.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*network.Request(nil), r.reqs...)
}

// assertNoUpload fails when any request could carry the file: a method other
// than GET or HEAD, a request body, or the file's name in the URL.
func assertNoUpload(t *testing.T, r *netRecorder, fileName string) {
	t.Helper()
	stem := strings.TrimSuffix(fileName, filepath.Ext(fileName))
	reqs := r.all()
	for _, q := range reqs {
		if q.Method != "GET" && q.Method != "HEAD" {
			t.Errorf("request %s %s: only GET/HEAD expected", q.Method, q.URL)
		}
		if q.HasPostData || len(q.PostDataEntries) > 0 {
			t.Errorf("request %s %s carries a body", q.Method, q.URL)
		}
		if strings.Contains(q.URL, stem) {
			t.Errorf("request %s %s names the uploaded file", q.Method, q.URL)
		}
	}
	t.Logf("%d requests recorded since the upload began (incl. the recorder control), none carries %s", len(reqs), fileName)
}

// openApp loads the playground and waits for the live app; it opens every
// <details> so the upload and export controls are reachable.
func openApp(t *testing.T, b *browser, url string) {
	t.Helper()
	b.run(t, chromedp.Navigate(url+"/"), chromedp.WaitVisible("body[data-lupi-ready]", chromedp.ByQuery))
	// Close Chromium before the harness removes its profile directory, so
	// late writes do not fail the TempDir cleanup.
	t.Cleanup(func() {
		chromedp.Cancel(b.ctx)
		time.Sleep(500 * time.Millisecond)
	})
	b.waitJS(t, `document.getElementById("upload-input")`, 20*time.Second)
	b.run(t, chromedp.Evaluate(`document.querySelectorAll("details").forEach(d=>d.open=true)`, nil))
}

// waitJS polls a JS expression until it is true.
func (b *browser) waitJS(t testing.TB, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var ok bool
		// Each probe has its own deadline: a page that is navigating or
		// busy may not answer one evaluation, and the next probe retries.
		ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
		err := chromedp.Run(ctx, chromedp.Evaluate(`!!(`+expr+`)`, &ok))
		cancel()
		if err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot(t, "timeout-js")
	var stage string
	b.tryEval(`String((document.querySelector(".stage")||{}).textContent || "") + " | pool " + (window.lupiPool ? JSON.stringify(lupiPool.stats()) : "") + " | " + location.href + " " + document.readyState`, &stage)
	var stacks string
	b.tryEval(`window.__lupiGoroutines ? window.__lupiGoroutines() : ""`, &stacks)
	b.mu.Lock()
	t.Logf("stage: %s\nconsole:\n%s\ngoroutines:\n%s", stage, strings.Join(b.logs, "\n"), stacks)
	b.mu.Unlock()
	t.Fatalf("timed out waiting for %s", expr)
}

// jsString evaluates a JS expression that yields a string ("" for null).
func (b *browser) jsString(t *testing.T, expr string) string {
	t.Helper()
	var s string
	b.run(t, chromedp.Evaluate(`String((`+expr+`) ?? "")`, &s))
	return s
}

// choose sets a <select> and fires its change event as a user would.
func (b *browser) choose(t *testing.T, id, value string) {
	t.Helper()
	b.run(t, chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.getElementById(%q); s.value = %q;
		s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); })()`, id, value), nil))
}

func (b *browser) upload(t *testing.T, sel, path string) {
	t.Helper()
	b.run(t, chromedp.SetUploadFiles(sel, []string{path}, chromedp.ByQuery))
}

// errorText is the upload error, "" when none is shown.
func (b *browser) errorText(t *testing.T, id string) string {
	return b.jsString(t, fmt.Sprintf(`(document.getElementById(%q)||{}).textContent`, id))
}

// writeMoonsCSV writes two moons with an id column first and the class in a
// column named "cls" (which the reader's name rule makes a feature; the
// upload panel proposes it as the class because its cells are text).
func writeMoonsCSV(t *testing.T, path string, n int) {
	t.Helper()
	ds, err := data.GenerateByName("moons", n, 0.15, 7)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("id,f1,f2,cls\n")
	for i := 0; i < ds.Rows(); i++ {
		fmt.Fprintf(&sb, "%d,%g,%g,%s\n", 1000+i, ds.X.At(i, 0), ds.X.At(i, 1), "moon_"+ds.Classes[ds.Y[i]])
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trainAndExportCSV clicks Train, waits for the metrics, and returns the
// results CSV the app exports once its header satisfies ok.
func trainAndExportCSV(t *testing.T, b *browser, ok func(header string) bool) (acc, csv string) {
	t.Helper()
	// A change of data may start a training by itself after a short pause:
	// let it, then train unless its results are already the expected ones.
	time.Sleep(800 * time.Millisecond)
	b.waitJS(t, `document.getElementById("train") && !document.getElementById("train").disabled`, 90*time.Second)
	clicked := false
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		acc = b.jsString(t, `(document.getElementById("m-test-acc")||{}).textContent`)
		busy := b.jsString(t, `document.getElementById("train").disabled`) == "true"
		if strings.HasSuffix(strings.TrimSpace(acc), "%") && !busy && b.jsString(t, `document.getElementById("export-csv") && !document.getElementById("export-csv").disabled`) == "true" {
			b.run(t, chromedp.Evaluate(`window.__lupiLastDownloadText = ""`, nil), chromedp.Click("#export-csv", chromedp.ByID))
			b.waitJS(t, `window.__lupiLastDownloadText`, 10*time.Second)
			csv = b.jsString(t, `window.__lupiLastDownloadText`)
			if header, _, _ := strings.Cut(csv, "\n"); ok(header) {
				return strings.TrimSpace(acc), csv
			}
		}
		if !clicked && !busy {
			b.run(t, chromedp.Click("#train", chromedp.ByID))
			clicked = true
		}
		if e := b.errorText(t, "error"); e != "" && e != "Training cancelled." {
			t.Fatalf("the app shows an error: %s", e)
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.mu.Lock()
	t.Logf("console:\n%s", strings.Join(b.logs, "\n"))
	b.mu.Unlock()
	b.screenshot(t, "timeout-train-export")
	t.Fatalf("no results for the expected data (last accuracy %q)", acc)
	return "", ""
}

func TestUploadCSVRolesTrain(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	openApp(t, b, url)
	rec := recordNetwork(t, b)

	const name = "lupi-upload-probe-7f3a.csv"
	path := filepath.Join(t.TempDir(), name)
	writeMoonsCSV(t, path, 200)
	b.upload(t, "#upload-input", path)
	b.waitJS(t, `document.getElementById("role-3")`, 20*time.Second)

	// The header names no class column: the column of text (cls) is
	// proposed as the class. Made a feature, its texts are not numbers —
	// reported with line and column.
	if got := b.jsString(t, `document.getElementById("role-3").value`); got != "class" {
		t.Errorf("proposed role of cls: %q, want class", got)
	}
	b.choose(t, "role-3", "main")
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("not a number")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); !strings.Contains(e, "line 2, column 4") {
		t.Errorf("with cls as a feature the error should point at line 2, column 4: %q", e)
	}
	if rows := b.jsString(t, `document.querySelectorAll("#upload-preview tbody tr").length`); rows != "5" {
		t.Errorf("preview rows: %s, want 5", rows)
	}
	b.choose(t, "role-3", "class")
	b.choose(t, "role-0", "ignore")
	b.waitJS(t, `(document.getElementById("upload-summary")||{}).textContent?.includes("2 classes")`, 10*time.Second)
	if e := b.errorText(t, "upload-error"); e != "" {
		t.Fatalf("error after choosing roles: %s", e)
	}
	t.Logf("summary: %s", b.jsString(t, `document.getElementById("upload-summary").textContent`))
	b.run(t, chromedp.Click("#upload-use", chromedp.ByID))

	acc, csv := trainAndExportCSV(t, b, func(h string) bool { return strings.Contains(h, "x:f1") })
	t.Logf("uploaded moons (n=200): test accuracy %s", acc)
	if a := parsePct(acc); a < 0.85 {
		t.Errorf("test accuracy %s < 85 %% on the uploaded two moons", acc)
	}
	header, _, _ := strings.Cut(csv, "\n")
	if strings.Contains(header, "x:id") || strings.Contains(header, "x:cls") {
		t.Errorf("ignored / class columns used as features: %s", header)
	}
	if rows := strings.Count(strings.TrimSpace(csv), "\n"); rows != 200 {
		t.Errorf("results CSV has %d rows, the upload had 200", rows)
	}
	if !strings.Contains(csv, ",moon_") {
		t.Errorf("class names of the upload missing from the results: %.200s", csv)
	}
	b.screenshot(t, "upload-csv-trained")
	assertNoUpload(t, rec, name)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

func TestUploadErrors(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	openApp(t, b, url)
	rec := recordNetwork(t, b)
	dir := t.TempDir()

	bad := filepath.Join(dir, "lupiprobe-malformed.csv")
	os.WriteFile(bad, []byte("a,b,y\n1,2,p\n3,oops,q\n4,5,p\n"), 0o644)
	b.upload(t, "#upload-input", bad)
	b.waitJS(t, `document.getElementById("upload-error")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); !strings.Contains(e, "line 3") || !strings.Contains(e, "column 2") {
		t.Errorf("malformed CSV: error %q should name line 3, column 2", e)
	} else {
		t.Logf("malformed CSV: %s", e)
	}
	if d := b.jsString(t, `document.getElementById("upload-use").disabled`); d != "true" {
		t.Errorf("\"Use this data\" is enabled while the file has parse errors")
	}

	ragged := filepath.Join(dir, "lupiprobe-ragged.csv")
	os.WriteFile(ragged, []byte("x1,x2,label\n1,2,a\n3,4\n"), 0o644)
	b.upload(t, "#upload-input", ragged)
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("ragged")`, 20*time.Second)
	t.Logf("ragged CSV: %s", b.errorText(t, "upload-error"))

	big := filepath.Join(dir, "lupiprobe-huge.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(33 << 20) // sparse: the browser sees the size, nothing is read
	f.Close()
	b.upload(t, "#upload-input", big)
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("limit")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); !strings.Contains(e, "file is 33.0 MB, the limit is 32 MB") {
		t.Errorf("over-limit error: %q", e)
	} else {
		t.Logf("over-limit file: %s", e)
	}

	unknown := filepath.Join(dir, "lupiprobe-notes.xyz")
	os.WriteFile(unknown, []byte("hello"), 0o644)
	b.upload(t, "#upload-input", unknown)
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("unknown file type")`, 20*time.Second)

	// LIBSVM with a Z file, and ARFF with a named label attribute.
	lib := filepath.Join(dir, "lupiprobe-two.libsvm")
	os.WriteFile(lib, []byte("1 1:0.5 2:1\n-1 1:-0.5 2:-1\n1 1:0.7\n-1 2:-0.3\n"), 0o644)
	zf := filepath.Join(dir, "lupiprobe-two-z.libsvm")
	os.WriteFile(zf, []byte("1 1:2\n-1 1:-2\n1 1:1.5\n-1 1:-1\n"), 0o644)
	b.upload(t, "#upload-input", lib)
	b.waitJS(t, `document.getElementById("upload-z")`, 20*time.Second)
	b.upload(t, "#upload-z", zf)
	b.waitJS(t, `(document.getElementById("upload-summary")||{}).textContent?.includes("1 privileged")`, 20*time.Second)
	t.Logf("LIBSVM + Z: %s", b.jsString(t, `document.getElementById("upload-summary").textContent`))

	arff := filepath.Join(dir, "lupiprobe-w.arff")
	os.WriteFile(arff, []byte("@relation w\n@attribute a numeric\n@attribute kind {u,v}\n@attribute b numeric\n@data\n1,u,2\n2,v,3\n3,u,1\n"), 0o644)
	b.upload(t, "#upload-input", arff)
	b.waitJS(t, `document.getElementById("upload-arff-labels")`, 20*time.Second)
	b.waitJS(t, `(document.getElementById("upload-summary")||{}).textContent?.includes("2 classes (u, v)")`, 20*time.Second)
	b.run(t, chromedp.SetValue("#upload-arff-labels", "nosuch", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("upload-arff-labels").dispatchEvent(new Event("change", {bubbles: true}))`, nil))
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("nosuch")`, 20*time.Second)
	t.Logf("ARFF unknown label: %s", b.errorText(t, "upload-error"))

	// Drag and drop: a file dropped on the zone is read like a picked one.
	b.run(t, chromedp.Evaluate(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["x_1,x_2,label\n0,1,a\n1,0,b\n0.5,0.5,a\n"], "lupiprobe-dropped.csv", {type: "text/csv"}));
		const zone = document.getElementById("upload-drop");
		zone.dispatchEvent(new DragEvent("dragenter", {dataTransfer: dt, bubbles: true, cancelable: true}));
		zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`, nil))
	b.waitJS(t, `(document.getElementById("upload-summary")||{}).textContent?.includes("3 rows, 2 main features, 2 classes (a, b)")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); e != "" {
		t.Errorf("dropped file: %s", e)
	}

	for _, n := range []string{"lupiprobe-dropped.csv", "lupiprobe-malformed.csv", "lupiprobe-ragged.csv", "lupiprobe-huge.csv", "lupiprobe-two.libsvm", "lupiprobe-two-z.libsvm", "lupiprobe-w.arff"} {
		assertNoUpload(t, rec, n)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
