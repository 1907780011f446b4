// Command server is LUPI Lab's tiny web server: it serves the go-app shell
// (pre-rendered pages, app.js, the service worker), the static assets in web/
// (the compiled app.wasm and compute.wasm, styles, the sample datasets) and nothing else. All
// computation happens in the browser. With -static it instead writes the whole
// site as plain files that work from any static host, under a sub-path too,
// and offline after the first visit.
//
// Safety: only GET and HEAD; no directory listings; paths with "..", back
// slashes or NUL bytes are rejected before any file system access, and files
// are read through an os.Root opened on web/ (sealed: a symbolic link that
// leaves it is refused, so a link web/x.csv → /etc/passwd or a directory
// link to / serves nothing), and only regular files are served; -static
// copies only regular files from inside web/; read, write
// and idle timeouts and a header size limit; security headers including a CSP
// that allows WebAssembly but no inline script; the wasm builds compressed for
// browsers that accept it.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	ui "lupilab/app"
)

func main() {
	addr := flag.String("addr", envOr("LUPI_ADDR", "localhost:8080"), "listen address (env LUPI_ADDR)")
	webDir := flag.String("web", envOr("LUPI_WEB", "web"), "directory with app.wasm, wasm_exec.js, styles and datasets")
	static := flag.String("static", "", "write the whole site as plain files into this directory and exit")
	base := flag.String("base", "/", "with -static: the URL sub-path the site will be served under, e.g. /lupi/")
	flag.Parse()
	if *static != "" {
		if err := exportStatic(*static, *webDir, *base); err != nil {
			log.Fatalf("static export: %v", err)
		}
		log.Printf("static site written to %s (base %s)", *static, *base)
		return
	}
	site, err := newSite(*webDir, "/")
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Handler:           site,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	// The browser tests read this line to find the port.
	fmt.Printf("LUPI Lab %s listening on http://%s/\n", site.version, ln.Addr())
	log.Fatal(srv.Serve(ln))
}

// The server pre-renders the same routes the browser runs.
func init() { ui.Register() }

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// site is the whole HTTP surface.
type site struct {
	web     fs.FS // the web directory, sealed (see openWeb)
	goapp   *app.Handler
	version string
	// wasm holds the two builds: app.wasm (the UI) and compute.wasm (the
	// models, run by the compute workers), each gzip-compressed once at
	// start and with its Brotli copy when `make wasm` made a fresh one.
	wasm map[string]*wasmAsset
	// gz caches gzip-compressed copies of text files (CSV, JSON, JS, CSS).
	gzMu sync.Mutex
	gz   map[string]gzEntry
	// pages are the paths the go-app handler answers; anything else is 404.
	pages map[string]bool
}

// openWeb opens the web directory as a sealed file system: every name is
// resolved inside it by an os.Root, which refuses symbolic links (and ".."
// steps) that would leave it.
func openWeb(webDir string) (fs.FS, error) {
	root, err := os.OpenRoot(webDir)
	if err != nil {
		return nil, fmt.Errorf("web directory: %w", err)
	}
	return root.FS(), nil
}

func newSite(webDir, base string) (*site, error) {
	web, err := openWeb(webDir)
	if err != nil {
		return nil, err
	}
	assets := map[string]*wasmAsset{}
	h := sha256.New()
	for _, name := range wasmBuilds {
		a, err := loadWasm(web, name)
		if err != nil {
			return nil, fmt.Errorf("%s/%s is missing: build it first with `make wasm` (%v)", webDir, name, err)
		}
		assets[name] = a
		h.Write(a.raw)
	}
	if _, err := fs.Stat(web, "wasm_exec.js"); err != nil {
		return nil, fmt.Errorf("%s/wasm_exec.js is missing: `make wasm` copies it from $(go env GOROOT)/lib/wasm", webDir)
	}
	if _, err := fs.Stat(web, "warm-fit.json"); err != nil {
		return nil, fmt.Errorf("%s/warm-fit.json is missing: `make wasm` records it (scripts/warmfit)", webDir)
	}
	// The version is a hash of what the browser runs, so a restart is not an
	// update and a new build is.
	for _, f := range []string{"style.css", "datasets/index.json", "wasm_exec.js", "boot.js", "pool.js", "draw.js", "worker.js", "compile.js", "warm.js", "warm-fit.json"} {
		b, _ := fs.ReadFile(web, f)
		h.Write(b)
	}
	h.Write([]byte(lupiInstantiate)) // app.js's patch (appjs.go)
	version := hex.EncodeToString(h.Sum(nil))[:12]
	s := &site{web: web, version: version, wasm: assets, gz: map[string]gzEntry{}}
	s.goapp = handler(version, datasetResources(web), base)
	s.pages = map[string]bool{"/": true, "/app.js": true, "/app-worker.js": true,
		"/manifest.webmanifest": true, "/app.css": true, "/manifest.json": true}
	for _, p := range ui.Pages() {
		s.pages[p] = true
	}
	// app.js is patched to compile app.wasm in a worker (appjs.go): check
	// now that go-app's text still matches, rather than on a visitor's load.
	rec := httptest.NewRecorder()
	s.goapp.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app.js", nil))
	if _, err := patchAppJS(rec.Body.Bytes()); err != nil {
		return nil, err
	}
	return s, nil
}

// handler is the go-app handler shared by the server and the static export.
func handler(version string, cacheable []string, base string) *app.Handler {
	h := &app.Handler{
		Name:        "LUPI Lab",
		ShortName:   "LUPI Lab",
		Title:       "LUPI Lab — learning using privileged information, in your browser",
		Description: "Train, see and compare kernel classifiers that learn from privileged information, two views or correlated tags, entirely in the browser.",
		Author:      "LUPI Lab",
		Lang:        "en",
		Icon: app.Icon{
			Default: "/web/icon-192.png",
			Large:   "/web/icon-512.png",
			SVG:     "/web/icon.svg",
		},
		BackgroundColor: "#ffffff",
		ThemeColor:      "#1f4e79",
		// the UI build only: the compute engine's loading follows in the
		// page (app/results.go's Status)
		LoadingLabel: "Loading the interface… {progress} %",
		Styles:       []string{"/web/style.css"},
		// pool.js runs the compute workers (web/worker.js with compute.wasm).
		Scripts: []string{"/web/boot.js", "/web/pool.js", "/web/draw.js"},
		CacheableResources: append([]string{
			"/web/style.css", "/web/icon.svg", "/web/boot.js", "/web/pool.js", "/web/draw.js", "/web/worker.js", "/web/compile.js", "/web/warm.js", "/web/warm-fit.json", "/web/wasm_exec.js", "/web/compute.wasm",
		}, cacheable...),
		Version:                 version,
		WasmContentLengthHeader: "X-Wasm-Content-Length",
		ServiceWorkerTemplate:   serviceWorker,
	}
	if b := strings.Trim(base, "/"); b != "" {
		h.Resources = app.CustomProvider("", b)
	}
	return h
}

// datasetResources lists the shipped datasets so that the service worker
// caches them for offline use.
func datasetResources(web fs.FS) []string {
	out := []string{"/web/datasets/index.json"}
	b, err := fs.ReadFile(web, "datasets/index.json")
	if err != nil {
		return out
	}
	var idx []struct {
		File string `json:"file"`
	}
	if json.Unmarshal(b, &idx) != nil {
		return out
	}
	for _, d := range idx {
		if d.File != "" && fs.ValidPath(d.File) {
			out = append(out, "/web/datasets/"+d.File)
		}
	}
	return out
}

var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
		"style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
		"worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'self'; " +
		"frame-ancestors 'none'; form-action 'self'",
	"X-Content-Type-Options":       "nosniff",
	"X-Frame-Options":              "DENY",
	"Referrer-Policy":              "no-referrer",
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Permissions-Policy":           "camera=(), microphone=(), geolocation=(), payment=()",
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if !safePath(p) || !safePath(r.URL.RawPath) {
		http.Error(w, "bad path", http.StatusBadRequest)
		return
	}
	switch {
	case p == "/wasm_exec.js":
		s.serveFile(w, r, "wasm_exec.js")
	case p == "/web/app.wasm" || p == "/app.wasm":
		s.serveWasm(w, r, "app.wasm")
	case p == "/web/compute.wasm":
		s.serveWasm(w, r, "compute.wasm")
	case strings.HasPrefix(p, "/web/"):
		s.serveFile(w, r, strings.TrimPrefix(p, "/web/"))
	case s.pages[p]:
		s.servePage(w, r)
	default:
		http.NotFound(w, r)
	}
}

// go-app's pages forbid zooming (maximum-scale=1, user-scalable=0); people
// who need larger text must be able to zoom, so the server lets them.
const (
	lockedViewport = "width=device-width, initial-scale=1, maximum-scale=1, user-scalable=0, viewport-fit=cover"
	zoomViewport   = "width=device-width, initial-scale=1, viewport-fit=cover"
)

// falseBooleanAttr matches a boolean HTML attribute that go-app's
// pre-rendering writes with the value "false" (Selected(false) becomes
// selected="false"): a browser reads any value of such an attribute as
// true, so before the app started, the page showed the last option of
// every list selected and every checkbox ticked.
var falseBooleanAttr = regexp.MustCompile(` (?:checked|selected|disabled|hidden|readonly|required|multiple|open|autofocus|novalidate|default|reversed|ismap|async|defer|loop|muted|controls|autoplay)="false"`)

// fixPage mends a pre-rendered page: the viewport allows zooming, and
// boolean attributes that are false are left out.
func fixPage(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(lockedViewport), []byte(zoomViewport))
	return falseBooleanAttr.ReplaceAll(b, nil)
}

// servePage serves go-app's pre-rendered pages (and its other files) with
// the viewport fixed to allow zooming.
func (s *site) servePage(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.goapp.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if r.URL.Path == "/app.js" && rec.Code == http.StatusOK {
		b, err := patchAppJS(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		body = b
		rec.Header().Del("Content-Length")
	}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		body = fixPage(body)
		rec.Header().Del("Content-Length")
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if rec.Header().Get("Content-Length") != "" {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	}
	w.WriteHeader(rec.Code)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// safePath rejects traversal and oddities before anything touches a file.
func safePath(p string) bool {
	if strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." {
			return false
		}
	}
	// Encoded dots or slashes left in a raw path are never legitimate here.
	lp := strings.ToLower(p)
	return !strings.Contains(lp, "%2e") && !strings.Contains(lp, "%2f") && !strings.Contains(lp, "%5c")
}

func (s *site) serveFile(w http.ResponseWriter, r *http.Request, name string) {
	if !fs.ValidPath(name) || name == "." {
		http.NotFound(w, r)
		return
	}
	f, err := s.web.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() || !st.Mode().IsRegular() {
		http.NotFound(w, r) // no directory listings
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	} else if strings.HasSuffix(name, ".csv") {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Header().Set("Cache-Control", "no-cache")
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		http.Error(w, "cannot read file", http.StatusInternalServerError)
		return
	}
	if compressible(name, st.Size()) {
		w.Header().Set("Vary", "Accept-Encoding")
		if accepts(r.Header.Get("Accept-Encoding"), "gzip") && r.Header.Get("Range") == "" {
			if z, err := s.gzipped(name, st, rs); err == nil {
				etag := fmt.Sprintf(`"%x-%x-gz"`, st.ModTime().UnixNano(), st.Size())
				w.Header().Set("ETag", etag)
				if r.Header.Get("If-None-Match") == etag {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Length", fmt.Sprint(len(z)))
				if r.Method != http.MethodHead {
					w.Write(z)
				}
				return
			}
			rs.Seek(0, io.SeekStart)
		}
	}
	http.ServeContent(w, r, name, st.ModTime(), rs)
}

// wasmBuilds are the two WebAssembly builds the site serves.
var wasmBuilds = []string{"app.wasm", "compute.wasm"}

// wasmAsset is one wasm build, with its compressed copies.
type wasmAsset struct {
	raw, gz, br []byte
}

// loadWasm reads a wasm build, gzips it, and takes its Brotli copy when that
// is not older than the build.
func loadWasm(web fs.FS, name string) (*wasmAsset, error) {
	raw, err := fs.ReadFile(web, name)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	a := &wasmAsset{raw: raw, gz: gz.Bytes()}
	if br, err := fs.ReadFile(web, name+".br"); err == nil {
		stW, errW := fs.Stat(web, name)
		stB, errB := fs.Stat(web, name+".br")
		if errW == nil && errB == nil && !stB.ModTime().Before(stW.ModTime()) {
			a.br = br
		}
	}
	return a, nil
}

func (s *site) serveWasm(w http.ResponseWriter, r *http.Request, name string) {
	a := s.wasm[name]
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	etag := `"` + s.version + "-" + name + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("X-Wasm-Content-Length", fmt.Sprint(len(a.raw)))
	if a.br != nil && accepts(r.Header.Get("Accept-Encoding"), "br") {
		w.Header().Set("Content-Encoding", "br")
		w.Header().Set("Content-Length", fmt.Sprint(len(a.br)))
		if r.Method != http.MethodHead {
			w.Write(a.br)
		}
		return
	}
	if accepts(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(a.gz)))
		if r.Method != http.MethodHead {
			w.Write(a.gz)
		}
		return
	}
	s.serveFile(w, r, name)
}

// accepts reports whether an Accept-Encoding header (RFC 9110 §12.5.3)
// accepts the coding: listed by name, or covered by "*", with a quality
// above 0. A q parameter (any case, anywhere among the parameters) of 0 —
// "gzip;q=0", "gzip; Q=0.000" — refuses it, as does an unparsable one; the
// named coding takes precedence over "*".
func accepts(h, coding string) bool {
	named, star := -1.0, -1.0
	for _, part := range strings.Split(h, ",") {
		fields := strings.Split(part, ";")
		enc := strings.TrimSpace(fields[0])
		q := 1.0
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 || f != f {
					f = 0
				}
				q = f
			}
		}
		switch {
		case strings.EqualFold(enc, coding):
			named = math.Max(named, q)
		case enc == "*":
			star = math.Max(star, q)
		}
	}
	if named >= 0 {
		return named > 0
	}
	return star > 0
}

type gzEntry struct {
	mod  time.Time
	size int64
	data []byte
}

// compressible says whether a file is text worth compressing.
func compressible(name string, size int64) bool {
	if size < 1024 {
		return false
	}
	switch path.Ext(name) {
	case ".csv", ".json", ".js", ".css", ".svg", ".md", ".txt", ".arff", ".libsvm":
		return true
	}
	return false
}

// gzipped returns a cached gzip copy of a text file (made on first use,
// remade when the file changes).
func (s *site) gzipped(name string, st fs.FileInfo, rs io.ReadSeeker) ([]byte, error) {
	s.gzMu.Lock()
	defer s.gzMu.Unlock()
	if e, ok := s.gz[name]; ok && e.mod.Equal(st.ModTime()) && e.size == st.Size() {
		return e.data, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := io.Copy(zw, rs); err != nil {
		return nil, err
	}
	zw.Close()
	s.gz[name] = gzEntry{mod: st.ModTime(), size: st.Size(), data: buf.Bytes()}
	return buf.Bytes(), nil
}

// exportStatic writes the site as plain files into dir for a static host,
// with every URL under base.
func exportStatic(dir, webDir, base string) error {
	if !strings.HasPrefix(base, "/") {
		return errors.New("-base must start with /")
	}
	s, err := newSite(webDir, base)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := app.GenerateStaticWebsite(dir, s.goapp, ui.Pages()...); err != nil {
		return err
	}
	appJS := filepath.Join(dir, "app.js")
	b, err := os.ReadFile(appJS)
	if err != nil {
		return err
	}
	if b, err = patchAppJS(b); err != nil {
		return err
	}
	if err := os.WriteFile(appJS, b, 0o644); err != nil {
		return err
	}
	// The same mends as the served pages (fixPage: zoom, boolean attributes).
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, fixPage(b), 0o644)
	})
	if err != nil {
		return err
	}
	// Copy web/ (go-app only creates the empty folder), and replace go-app's
	// bundled wasm_exec.js with the one matching this Go toolchain. Only
	// regular files inside web/ are copied: a symbolic link is followed
	// only when its target stays inside (the sealed s.web resolves it), and
	// links that leave web/ or name anything but a regular file are skipped
	// with a warning.
	err = fs.WalkDir(s.web, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "web", filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := readRegular(s.web, p)
		if err != nil {
			log.Printf("static export: skipping web/%s: %v", p, err)
			return nil
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return err
	}
	b, err = fs.ReadFile(s.web, "wasm_exec.js")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".nojekyll"), nil, 0o644)
}

// readRegular reads a regular file of the sealed web file system (through
// a symbolic link only when it stays inside).
func readRegular(web fs.FS, name string) ([]byte, error) {
	f, err := web.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	return io.ReadAll(f)
}

// serviceWorker replaces go-app's default worker. Like it, it pre-caches the
// app shell, the wasm and the datasets under a cache named after the version
// (so a new deployment installs a new cache and the app can offer an update),
// but it also serves navigations with a query string (?tab=…, shared links)
// and the sub-path root with or without its trailing slash from the cache, so
// the app starts offline from any link. The compute build is cached once the
// app is live, a dataset when it is first used, all datasets on request
// (see deferred below).
const serviceWorker = `const cacheName = "lupilab-{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};

// The compute build and the shipped datasets are cached after the app is
// live, not while it loads: on a first visit they would otherwise compete
// with the UI build for the network and the CPU. The page (web/pool.js)
// asks for the compute build with the message "lupi-precache" once it is
// compiled. A dataset is cached when it is first used (as it passes, like
// everything deferred the page fetches), and all of them only when the user
// asks to keep them for offline use (Advanced), with "lupi-precache-datasets":
// 0.6 MB most visits never need.
const dataset = (url) => /\/web\/datasets\//.test(url) && !/\/index\.json$/.test(url);
const deferred = (url) => /\/compute\.wasm$/.test(url) || dataset(url);
const deferredResources = resourcesToCache.filter(deferred);
const shellResources = resourcesToCache.filter((u) => !deferred(u));

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(cacheName)
      .then((cache) => cache.addAll(shellResources))
      .then(() => self.skipWaiting())
  );
});

// precacheDeferred caches the deferred resources which selects and returns
// how many of them are in the cache afterwards.
async function precacheDeferred(which) {
  const cache = await caches.open(cacheName);
  let cached = 0;
  for (const url of deferredResources.filter(which)) {
    if (!(await cache.match(url))) {
      try {
        await cache.add(url);
      } catch (err) {
        continue; // offline or gone: the next visit tries again
      }
    }
    cached++;
  }
  return cached;
}

self.addEventListener("message", (event) => {
  if (event.data === "lupi-precache") {
    event.waitUntil(precacheDeferred((u) => !dataset(u)));
  } else if (event.data === "lupi-precache-datasets") {
    event.waitUntil(precacheDeferred(dataset).then((cached) => {
      if (event.source) {
        event.source.postMessage({ kind: "lupi-datasets-kept", cached: cached });
      }
    }));
  }
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.map((k) => (k !== cacheName ? caches.delete(k) : undefined))))
      .then(() => self.clients.claim())
  );
});

// A response cached after a redirect (a static host answering "/sub" with
// "/sub/") may not answer a navigation: copy it into a plain response.
async function plain(r) {
  if (!r || !r.redirected) {
    return r;
  }
  const body = await r.blob();
  return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
}

async function fromCache(request) {
  const cache = await caches.open(cacheName);
  let hit = await cache.match(request, { ignoreSearch: true });
  if (hit) {
    return plain(hit);
  }
  if (request.mode === "navigate") {
    const scope = new URL(self.registration.scope).pathname;
    for (const p of [scope, scope.replace(/\/$/, ""), "/"]) {
      if (p === "") {
        continue;
      }
      hit = await cache.match(p);
      if (hit) {
        return plain(hit);
      }
    }
  }
  return undefined;
}

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") {
    return;
  }
  event.respondWith(
    fromCache(event.request).then((hit) => hit || fetch(event.request).then((r) => {
      if (r.ok && deferred(new URL(event.request.url).pathname)) {
        const copy = r.clone();
        caches.open(cacheName).then((cache) => cache.put(event.request, copy));
      }
      return r;
    }))
  );
});
`
