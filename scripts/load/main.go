// Command load sends a bounded burst of requests to a LUPI Lab server on
// this machine and reports errors, throughput and latency percentiles.
//
// Usage:
//
//	go run ./scripts/load -url http://127.0.0.1:8080 [-n 10000] [-c 64] [-timeout 5m] [-json out.json]
//	go run ./scripts/load -start bin/lupi-server [-web web] ...
//
// With -start it runs that server binary on 127.0.0.1:0 itself (reading the
// "listening on http://…" line it prints) and stops it afterwards. The
// request mix cycles through the app's static assets (/, /app.js,
// /wasm_exec.js, /web/style.css, /web/datasets/index.json, /web/app.wasm
// with Accept-Encoding: gzip) and every dataset file the index lists. Only
// loopback addresses are accepted (the URL's host and every dialled
// address), the request count is capped at 1,000,000 and the run at -timeout.
//
// An error is a transport failure, a status other than 200, a body whose
// length differs from the first response for that path, or app.wasm served
// without gzip. The report is printed as text, then as one JSON object.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const maxRequests = 1_000_000

// target is one path of the mix.
type target struct {
	Path string `json:"path"`
	Gzip bool   `json:"gzip,omitempty"`
}

// pathStats is the per-path part of the report.
type pathStats struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	Bytes    int64   `json:"bytes"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	lat      []time.Duration
}

// Report is the JSON printed at the end.
type Report struct {
	URL          string                `json:"url"`
	Requests     int                   `json:"requests"`
	Concurrency  int                   `json:"concurrency"`
	Errors       int                   `json:"errors"`
	ErrorSamples []string              `json:"error_samples,omitempty"`
	Seconds      float64               `json:"seconds"`
	RPS          float64               `json:"requests_per_second"`
	MBps         float64               `json:"megabytes_per_second"`
	Bytes        int64                 `json:"bytes"`
	P50ms        float64               `json:"p50_ms"`
	P90ms        float64               `json:"p90_ms"`
	P99ms        float64               `json:"p99_ms"`
	Maxms        float64               `json:"max_ms"`
	TimedOut     bool                  `json:"timed_out,omitempty"`
	Paths        map[string]*pathStats `json:"paths"`
}

func main() {
	base := flag.String("url", "", "base URL of a running server on this machine, e.g. http://127.0.0.1:8080")
	start := flag.String("start", "", "server binary to start on 127.0.0.1:0 instead of -url (e.g. bin/lupi-server)")
	web := flag.String("web", "", "with -start: the server's -web directory (default: the server's own default)")
	n := flag.Int("n", 10000, "number of requests")
	c := flag.Int("c", 64, "concurrent clients")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	jsonOut := flag.String("json", "", "also write the JSON report to this file")
	flag.Parse()
	if err := run(*base, *start, *web, *n, *c, *timeout, *jsonOut); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// checkArgs refuses request counts and concurrency out of range and asks
// for exactly one of -url and -start.
func checkArgs(base, start string, n, c int) error {
	if n < 1 || n > maxRequests {
		return fmt.Errorf("-n %d: must be in [1, %d]", n, maxRequests)
	}
	if c < 1 || c > 1024 {
		return fmt.Errorf("-c %d: must be in [1, 1024]", c)
	}
	if (base == "") == (start == "") {
		return errors.New("give exactly one of -url and -start")
	}
	return nil
}

// newClient is an HTTP client for c concurrent requests that dials loopback
// addresses only, follows no redirects and leaves gzip bodies compressed.
func newClient(c int) *http.Client {
	return &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			DialContext:         loopbackDialer,
			MaxIdleConns:        c,
			MaxIdleConnsPerHost: c,
			DisableCompression:  true, // we ask for gzip ourselves and count the compressed bytes
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func run(base, start, web string, n, c int, timeout time.Duration, jsonOut string) error {
	if err := checkArgs(base, start, n, c); err != nil {
		return err
	}
	if start != "" {
		u, stop, err := startServer(start, web)
		if err != nil {
			return err
		}
		defer stop()
		base = u
	}
	base = strings.TrimSuffix(base, "/")
	if err := checkLoopback(base); err != nil {
		return err
	}
	client := newClient(c)
	targets, err := mix(client, base)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	type result struct {
		t     int
		d     time.Duration
		bytes int64
		err   string
	}
	results := make([]result, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var wantLen sync.Map // path → first body length
	begin := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				tg := targets[i%len(targets)]
				t0 := time.Now()
				nb, err := fetch(ctx, client, base, tg)
				r := result{t: i % len(targets), d: time.Since(t0), bytes: nb}
				if err == nil {
					if prev, loaded := wantLen.LoadOrStore(tg.Path, nb); loaded && prev.(int64) != nb {
						err = fmt.Errorf("%s: %d bytes, earlier %d", tg.Path, nb, prev.(int64))
					}
				}
				if err != nil {
					r.err = err.Error()
				}
				results[i] = r
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)

	rep := &Report{URL: base, Concurrency: c, Seconds: elapsed.Seconds(), Paths: map[string]*pathStats{}}
	var lat []time.Duration
	done := int(min(next.Load(), int64(n)))
	for i := 0; i < done; i++ {
		r := results[i]
		if r.d == 0 && r.err == "" && r.bytes == 0 {
			continue // never started (timeout)
		}
		tg := targets[r.t]
		key := tg.Path
		if tg.Gzip {
			key += " (gzip)"
		}
		ps := rep.Paths[key]
		if ps == nil {
			ps = &pathStats{}
			rep.Paths[key] = ps
		}
		rep.Requests++
		ps.Requests++
		rep.Bytes += r.bytes
		ps.Bytes += r.bytes
		lat = append(lat, r.d)
		ps.lat = append(ps.lat, r.d)
		if r.err != "" {
			rep.Errors++
			ps.Errors++
			if len(rep.ErrorSamples) < 10 {
				rep.ErrorSamples = append(rep.ErrorSamples, r.err)
			}
		}
	}
	rep.TimedOut = ctx.Err() != nil && rep.Requests < n
	rep.RPS = float64(rep.Requests) / elapsed.Seconds()
	rep.MBps = float64(rep.Bytes) / 1e6 / elapsed.Seconds()
	rep.P50ms, rep.P90ms, rep.P99ms, rep.Maxms = pct(lat, 0.5), pct(lat, 0.9), pct(lat, 0.99), pct(lat, 1)
	for _, ps := range rep.Paths {
		ps.P50ms, ps.P99ms = pct(ps.lat, 0.5), pct(ps.lat, 0.99)
	}
	printText(os.Stdout, rep)
	js, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(js))
	if jsonOut != "" {
		if err := os.WriteFile(jsonOut, append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	if rep.TimedOut {
		return fmt.Errorf("timed out after %v with %d of %d requests", timeout, rep.Requests, n)
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d errors", rep.Errors)
	}
	return nil
}

// fetch GETs one target and reads the whole body.
func fetch(ctx context.Context, client *http.Client, base string, tg target) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+tg.Path, nil)
	if err != nil {
		return 0, err
	}
	if tg.Gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	nb, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return nb, fmt.Errorf("%s: reading the body: %w", tg.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nb, fmt.Errorf("%s: status %d", tg.Path, resp.StatusCode)
	}
	if tg.Gzip && resp.Header.Get("Content-Encoding") != "gzip" {
		return nb, fmt.Errorf("%s: asked for gzip, got Content-Encoding %q", tg.Path, resp.Header.Get("Content-Encoding"))
	}
	return nb, nil
}

// mix lists the request targets: the static assets, then every dataset file
// of the index.
func mix(client *http.Client, base string) ([]target, error) {
	ts := []target{{Path: "/"}, {Path: "/app.js"}, {Path: "/wasm_exec.js"}, {Path: "/web/style.css"},
		{Path: "/web/datasets/index.json"}, {Path: "/web/app.wasm", Gzip: true}}
	resp, err := client.Get(base + "/web/datasets/index.json")
	if err != nil {
		return nil, fmt.Errorf("reading the dataset index: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dataset index: status %d", resp.StatusCode)
	}
	var idx []struct {
		File string `json:"file"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&idx); err != nil {
		return nil, fmt.Errorf("dataset index: %w", err)
	}
	for _, d := range idx {
		if d.File == "" || strings.Contains(d.File, "..") || strings.ContainsAny(d.File, "?#") {
			continue
		}
		ts = append(ts, target{Path: "/web/datasets/" + url.PathEscape(d.File)})
	}
	return ts, nil
}

// checkLoopback refuses any URL whose host is not a loopback address.
func checkLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("-url %q: scheme must be http or https", base)
	}
	host := u.Hostname()
	ips, err := net.LookupIP(host)
	if err != nil {
		return fmt.Errorf("-url host %q: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("-url host %q resolves to %s, which is not a loopback address: this tool only loads servers on this machine", host, ip)
		}
	}
	if len(ips) == 0 {
		return fmt.Errorf("-url host %q does not resolve", host)
	}
	return nil
}

// loopbackDialer dials only loopback addresses (defence in depth for
// redirects and DNS changes).
func loopbackDialer(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	for _, ip := range ips {
		if ip.IP.IsLoopback() {
			return d.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
		}
	}
	return nil, fmt.Errorf("refusing to dial %s: not a loopback address", addr)
}

// startServer runs the server binary on a free loopback port.
func startServer(bin, web string) (string, func(), error) {
	args := []string{"-addr", "127.0.0.1:0"}
	if web != "" {
		args = append(args, "-web", web)
	}
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				found <- strings.Fields(sc.Text()[i:])[0]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case u := <-found:
		return u, stop, nil
	case <-time.After(60 * time.Second):
		stop()
		return "", nil, fmt.Errorf("%s did not print its address within 60 s", bin)
	}
}

// pct is the q-quantile (nearest rank) in milliseconds.
func pct(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(q*float64(len(s))+0.999999) - 1
	k = max(0, min(k, len(s)-1))
	return float64(s[k].Microseconds()) / 1000
}

func printText(w io.Writer, r *Report) {
	fmt.Fprintf(w, "load: %d requests to %s at concurrency %d in %.2f s\n", r.Requests, r.URL, r.Concurrency, r.Seconds)
	fmt.Fprintf(w, "errors: %d\n", r.Errors)
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	fmt.Fprintf(w, "throughput: %.0f requests/s, %.1f MB/s (%d bytes)\n", r.RPS, r.MBps, r.Bytes)
	fmt.Fprintf(w, "latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", r.P50ms, r.P90ms, r.P99ms, r.Maxms)
	keys := make([]string, 0, len(r.Paths))
	for k := range r.Paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := r.Paths[k]
		fmt.Fprintf(w, "  %-40s %6d req %4d err  %10d bytes/req  p50 %8.2f ms  p99 %8.2f ms\n", k, p.Requests, p.Errors, p.Bytes/int64(max(1, p.Requests)), p.P50ms, p.P99ms)
	}
}
