package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080", "http://[::1]:8080/", "http://localhost:1"} {
		if err := checkLoopback(u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	for _, u := range []string{"http://10.0.0.1:8080", "http://192.168.1.2", "http://[2001:db8::1]/", "ftp://127.0.0.1/", "http://0.0.0.0:80"} {
		if err := checkLoopback(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
}

func TestPct(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(101-i)*time.Millisecond)
	}
	if p50, p99, mx := pct(d, 0.5), pct(d, 0.99), pct(d, 1); p50 != 50 || p99 != 99 || mx != 100 {
		t.Errorf("p50 %v p99 %v max %v, want 50 99 100", p50, p99, mx)
	}
	if pct(nil, 0.5) != 0 {
		t.Error("empty")
	}
}

// fakeSite serves the paths of the mix; broken names a path that fails.
func fakeSite(t *testing.T, broken string) *httptest.Server {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("wasm"), 1000))
	zw.Close()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("method %s", r.Method)
		}
		switch {
		case r.URL.Path == broken:
			http.Error(w, "boom", http.StatusInternalServerError)
		case r.URL.Path == "/web/datasets/index.json":
			w.Write([]byte(`[{"name":"a","file":"a.csv"},{"name":"b","file":"b.csv"}]`))
		case r.URL.Path == "/web/app.wasm":
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				t.Error("wasm requested without gzip")
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		default:
			w.Write([]byte("ok " + r.URL.Path))
		}
	}))
}

func TestRunCountsRequestsAndErrors(t *testing.T) {
	srv := fakeSite(t, "")
	defer srv.Close()
	out := t.TempDir() + "/r.json"
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	err := run(srv.URL, "", "", 400, 8, time.Minute, out)
	os.Stdout = stdout
	if err != nil {
		t.Fatalf("clean run: %v", err)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), `"requests": 400`) || !strings.Contains(string(b), `"errors": 0`) || !strings.Contains(string(b), "/web/datasets/b.csv") {
		t.Errorf("report: %s", b)
	}

	bad := fakeSite(t, "/web/style.css")
	defer bad.Close()
	os.Stdout, _ = os.Open(os.DevNull)
	err = run(bad.URL, "", "", 80, 4, time.Minute, out)
	os.Stdout = stdout
	if err == nil || !strings.Contains(err.Error(), "errors") {
		t.Fatalf("a failing path should fail the run, got %v", err)
	}
	b, _ = os.ReadFile(out)
	if !strings.Contains(string(b), "status 500") {
		t.Errorf("error samples missing: %s", b)
	}
}
