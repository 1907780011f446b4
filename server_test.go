package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testWeb builds a minimal web directory: a fake app.wasm, wasm_exec.js, a
// stylesheet and a dataset index with one file.
func testWeb(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"app.wasm":            strings.Repeat("\x00asm wasm bytes ", 4096),
		"compute.wasm":        strings.Repeat("\x00asm compute bytes ", 4096),
		"wasm_exec.js":        "// wasm_exec for tests\n",
		"warm-fit.json":       `{"v":1,"jobs":{}}`,
		"style.css":           "body{}",
		"datasets/index.json": `[{"name":"toy","file":"toy.csv"}]`,
		"datasets/toy.csv":    "y,x_1\na,1\nb,2\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	dir := testWeb(t)
	s, err := newSite(dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(s)
	srv.Config.MaxHeaderBytes = 32 << 10
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, dir
}

// rawGet sends a request line exactly as given (clients would clean it).
func rawGet(t *testing.T, addr, method, target string, extra string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: test\r\n%sConnection: close\r\n\r\n", method, target, extra)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServesAppAndHeaders(t *testing.T) {
	srv, _ := testServer(t)
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("app.js")) {
		t.Fatalf("GET /: %d, body without app.js", resp.StatusCode)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"'wasm-unsafe-eval'", "default-src 'self'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
		t.Errorf("CSP too permissive: %q", csp)
	}
	for _, h := range []string{"X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
	for _, p := range []string{"/app.js", "/app-worker.js", "/manifest.webmanifest", "/wasm_exec.js", "/web/datasets/index.json", "/web/datasets/toy.csv", "/web/style.css"} {
		r, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, r.StatusCode)
		}
	}
}

func TestWasmCompressedWhenAccepted(t *testing.T) {
	srv, dir := testServer(t)
	want, _ := os.ReadFile(filepath.Join(dir, "app.wasm"))
	tr := &http.Transport{DisableCompression: true}
	cl := &http.Client{Transport: tr}
	req, _ := http.NewRequest("GET", srv.URL+"/web/app.wasm", nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Fatalf("headers: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if !bytes.Equal(got, want) {
		t.Fatal("gzip body does not decompress to app.wasm")
	}
	req2, _ := http.NewRequest("GET", srv.URL+"/web/app.wasm", nil)
	resp2, err := cl.Do(req2)
	if err != nil {
		t.Fatal(err)
	}
	got2, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if resp2.Header.Get("Content-Encoding") != "" || !bytes.Equal(got2, want) {
		t.Fatal("uncompressed wasm wrong")
	}
}

func TestBadRequests(t *testing.T) {
	srv, _ := testServer(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	secret := "root:x:0:0"
	cases := []struct{ method, target string }{
		{"GET", "/../etc/passwd"},
		{"GET", "/web/../../etc/passwd"},
		{"GET", "/web/%2e%2e/%2e%2e/etc/passwd"},
		{"GET", "/%2e%2e/%2e%2e/etc/passwd"},
		{"GET", "/web/..%2f..%2fetc/passwd"},
		{"GET", "/web/datasets/..%5c..%5cserver.go"},
		{"GET", "/web/datasets/"},
		{"GET", "/web/"},
		{"GET", "/web/datasets"},
		{"GET", "/etc/passwd"},
		{"GET", "/web/%00"},
		{"POST", "/"},
		{"PUT", "/web/datasets/toy.csv"},
		{"DELETE", "/web/app.wasm"},
		{"OPTIONS", "/"},
	}
	for _, c := range cases {
		code, body := rawGet(t, addr, c.method, c.target, "")
		if code < 400 || code >= 500 {
			t.Errorf("%s %s: status %d, want 4xx", c.method, c.target, code)
		}
		if strings.Contains(body, secret) || strings.Contains(body, "package main") || strings.Contains(body, "<a href") {
			t.Errorf("%s %s leaked: %.80q", c.method, c.target, body)
		}
	}
	huge := "X-Huge: " + strings.Repeat("a", 100<<10) + "\r\n"
	if code, _ := rawGet(t, addr, "GET", "/", huge); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("huge header: %d, want 431", code)
	}
}

func TestStaticExportUnderSubPath(t *testing.T) {
	dir := testWeb(t)
	out := t.TempDir()
	if err := exportStatic(out, dir, "/lupi/"); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/lupi/app.js", "/lupi/wasm_exec.js", "/lupi/web/style.css"} {
		if !bytes.Contains(index, []byte(want)) {
			t.Errorf("index.html does not reference %s", want)
		}
	}
	for _, f := range []string{"app.js", "app-worker.js", "manifest.webmanifest", "web/app.wasm", "web/datasets/toy.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	we, _ := os.ReadFile(filepath.Join(out, "wasm_exec.js"))
	if string(we) != "// wasm_exec for tests\n" {
		t.Error("wasm_exec.js is not the toolchain's copy")
	}
	worker, _ := os.ReadFile(filepath.Join(out, "app-worker.js"))
	if !bytes.Contains(worker, []byte("/lupi/web/datasets/toy.csv")) {
		t.Error("service worker does not cache the datasets")
	}
}

func TestMissingWasmIsAClearError(t *testing.T) {
	_, err := newSite(t.TempDir(), "/")
	if err == nil || !strings.Contains(err.Error(), "make wasm") {
		t.Fatalf("err = %v", err)
	}
}

func TestBrotliAndTextCompression(t *testing.T) {
	dir := testWeb(t)
	// A .br copy newer than app.wasm is served to browsers that accept br.
	br := []byte("pretend-brotli")
	if err := os.WriteFile(filepath.Join(dir, "app.wasm.br"), br, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newSite(dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cl := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(p, enc string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+p, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := get("/web/app.wasm", "gzip, br")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(body, br) {
		t.Errorf("br: encoding %q", resp.Header.Get("Content-Encoding"))
	}
	resp = get("/web/app.wasm", "gzip;q=1, br;q=0")
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("br;q=0 still got %q", resp.Header.Get("Content-Encoding"))
	}
	// Text files are gzipped when accepted, and identical once decompressed.
	big := strings.Repeat("y,x_1\na,1\n", 500)
	os.WriteFile(filepath.Join(dir, "datasets", "big.csv"), []byte(big), 0o644)
	resp = get("/web/datasets/big.csv", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("csv not compressed: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	resp.Body.Close()
	if string(got) != big {
		t.Error("gzipped csv differs")
	}
	resp = get("/web/datasets/big.csv", "")
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" || string(got) != big {
		t.Error("plain csv wrong")
	}
}

// TestWebRootIsSealed: symbolic links that leave the web directory serve
// nothing (a file link to a secret outside, a directory link to the file
// system's root), one that stays inside serves its target, and the static
// export copies neither outside target.
func TestWebRootIsSealed(t *testing.T) {
	dir := testWeb(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.csv")
	if err := os.WriteFile(secret, []byte("y,x_1\ntop,secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"datasets/leak.csv":  secret,                            // a file outside
		"datasets/root":      "/",                               // the whole file system
		"datasets/up":        "../../" + filepath.Base(outside), // relative, leaving the root
		"datasets/alias.csv": "toy.csv",                         // inside: allowed
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	s, err := newSite(dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, p := range []string{"/web/datasets/leak.csv", "/web/datasets/root/etc/passwd", "/web/datasets/root/etc/hostname",
		"/web/datasets/up/secret.csv", "/web/datasets/root"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("secret")) || bytes.Contains(body, []byte("root:")) {
			t.Errorf("GET %s: %d %q, want 404", p, resp.StatusCode, body)
		}
	}
	resp, err := http.Get(srv.URL + "/web/datasets/alias.csv")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "y,x_1\na,1\nb,2\n" {
		t.Errorf("a link inside the root: %d %q", resp.StatusCode, body)
	}

	out := t.TempDir()
	if err := exportStatic(out, dir, "/"); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			t.Errorf("the export holds a link: %s", p)
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte("top,secret")) {
				t.Errorf("the export copied a file from outside the web root: %s", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "web", "datasets", "alias.csv")); err != nil || string(b) != "y,x_1\na,1\nb,2\n" {
		t.Errorf("the link inside the root was not exported as its file: %q %v", b, err)
	}
	for _, name := range []string{"leak.csv", "root", "up"} {
		if _, err := os.Lstat(filepath.Join(out, "web", "datasets", name)); err == nil {
			t.Errorf("exported %s", name)
		}
	}
}

// TestAcceptEncodingQualities: a coding refused with q=0 (any spelling of
// the parameter, or through "*;q=0") is never sent, for text files and for
// app.wasm alike.
func TestAcceptEncodingQualities(t *testing.T) {
	for _, c := range []struct {
		header string
		gzip   bool
	}{
		{"gzip", true},
		{"gzip;q=0", false},
		{"gzip; q=0", false},
		{"gzip;Q=0", false},
		{"gzip;q=0.000", false},
		{"gzip;level=9;q=0", false},
		{"gzip;q=0, *", false},
		{"*;q=0", false},
		{"*", true},
		{"deflate, *;q=0.5", true},
		{"gzip;q=0.001", true},
		{"gzip;q=nonsense", false},
		{"identity", false},
		{"", false},
	} {
		if got := accepts(c.header, "gzip"); got != c.gzip {
			t.Errorf("accepts(%q, gzip) = %v, want %v", c.header, got, c.gzip)
		}
	}
	srv, dir := testServer(t)
	big := strings.Repeat("y,x_1\na,1\n", 500)
	os.WriteFile(filepath.Join(dir, "datasets", "big.csv"), []byte(big), 0o644)
	cl := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, p := range []string{"/web/datasets/big.csv", "/web/app.wasm", "/app.wasm"} {
		for _, h := range []string{"gzip;q=0", "gzip; Q=0.0", "*;q=0", "br;q=0, gzip;q=0"} {
			req, _ := http.NewRequest("GET", srv.URL+p, nil)
			req.Header.Set("Accept-Encoding", h)
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if enc := resp.Header.Get("Content-Encoding"); enc != "" || resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s with Accept-Encoding %q: %d, Content-Encoding %q", p, h, resp.StatusCode, enc)
			}
		}
	}
}

// TestPagesAllowZoom: the pages must not forbid zooming (WCAG 1.4.4).
func TestPagesAllowZoom(t *testing.T) {
	s, err := newSite(testWeb(t), "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/learn/svm2plus"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		body := rec.Body.String()
		if rec.Code != 200 || strings.Contains(body, "user-scalable=0") || !strings.Contains(body, zoomViewport) {
			t.Errorf("%s: status %d, viewport locked: %v", p, rec.Code, strings.Contains(body, "user-scalable=0"))
		}
	}
}

// TestComputeWasmServed: the compute build is served compressed like the UI
// build, and both are listed for the service worker.
func TestComputeWasmServed(t *testing.T) {
	s, err := newSite(testWeb(t), "/")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/web/compute.wasm", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	s.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Type") != "application/wasm" {
		t.Errorf("compute.wasm: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/app-worker.js", nil))
	for _, want := range []string{"/web/compute.wasm", "/web/worker.js", "/web/boot.js", "/web/pool.js", "/web/draw.js", "/web/wasm_exec.js"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the service worker does not cache %s", want)
		}
	}
}

// TestAppJSCompilesInAWorker: the served and the exported app.js load
// app.wasm through lupiInstantiate (compiled by web/compile.js in a worker),
// with the address under the site's base, and keep go-app's own loading as
// the fallback; the loader worker is cached for offline use.
func TestAppJSCompilesInAWorker(t *testing.T) {
	s, err := newSite(testWeb(t), "/")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/app.js", nil))
	served := rec.Body.String()
	out := t.TempDir()
	if err := exportStatic(out, testWeb(t), "/lupi/"); err != nil {
		t.Fatal(err)
	}
	exported, _ := os.ReadFile(filepath.Join(out, "app.js"))
	worker, _ := os.ReadFile(filepath.Join(out, "app-worker.js"))
	for name, c := range map[string]struct{ js, url string }{"served": {served, `"/web/app.wasm"`}, "exported": {string(exported), `"/lupi/web/app.wasm"`}} {
		if want := "const wasm = await lupiInstantiate(" + c.url + ", showProgress, go.importObject, instantiateStreaming);"; !strings.Contains(c.js, want) {
			t.Errorf("%s app.js does not load app.wasm through lupiInstantiate (want %s)", name, want)
		}
		if !strings.Contains(c.js, "async function lupiInstantiate(") || !strings.Contains(c.js, `new URL("compile.js", wasmURL)`) {
			t.Errorf("%s app.js lacks lupiInstantiate", name)
		}
		if strings.Count(c.js, "fetchWithProgress(") != 2 { // go-app's definition, and lupiInstantiate's fallback
			t.Errorf("%s app.js calls fetchWithProgress %d times", name, strings.Count(c.js, "fetchWithProgress("))
		}
	}
	for _, f := range []string{"/lupi/web/compile.js", "/lupi/web/warm.js"} {
		if !bytes.Contains(worker, []byte(f)) {
			t.Errorf("the service worker does not cache %s", f)
		}
	}
	if _, err := patchAppJS([]byte("go-app changed")); err == nil {
		t.Error("patchAppJS accepted an app.js without go-app's loading code")
	}
}

// TestPrerenderedFormShowsItsSettings: the pre-rendered page, shown until
// the app starts, selects the settings' options and ticks only the ticked
// boxes: go-app writes selected="false" and checked="false", which a
// browser reads as selected and checked (a newcomer's first frame showed
// the last dataset and model of each list and "Watch it learn" ticked).
// The static export is mended the same way.
func TestPrerenderedFormShowsItsSettings(t *testing.T) {
	s, err := newSite(testWeb(t), "/")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	out := t.TempDir()
	if err := exportStatic(out, testWeb(t), "/"); err != nil {
		t.Fatal(err)
	}
	exported, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"served": rec.Body.String(), "exported": string(exported)} {
		if m := falseBooleanAttr.FindString(body); m != "" {
			t.Errorf("%s page: %q", name, m)
		}
		sel := regexp.MustCompile(`<select[^>]*id="dataset"[^>]*>(?s:.*?)</select>`).FindString(body)
		var selected []string
		for _, o := range regexp.MustCompile(`<option[^>]*>`).FindAllString(sel, -1) {
			if regexp.MustCompile(` selected[ >]`).MatchString(o) {
				selected = append(selected, o)
			}
		}
		if len(selected) != 1 || !strings.Contains(selected[0], `value="gen:moons"`) {
			t.Errorf("%s page: the dataset list selects %q (want the default, gen:moons, alone)", name, selected)
		}
		if regexp.MustCompile(`<input[^>]*id="watch"[^>]*checked`).MatchString(body) {
			t.Errorf("%s page: Watch it learn is ticked", name)
		}
	}
}
