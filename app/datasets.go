package ui

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
)

// generators are the synthetic datasets (models/data), by name.
var generators = []struct{ id, label, about string }{
	{"moons", "Two moons", "Two interleaved half circles; noise blurs them."},
	{"xor", "XOR", "Four blobs in a chequerboard: no line separates the classes."},
	{"circles", "Circles", "A disc inside a ring."},
	{"spirals", "Spirals", "Two interleaved spirals: hard for wide kernels."},
	{"blobs", "Blobs", "Gaussian blobs, one per class (3 classes)."},
	{"lupi2d", "LUPI 2-D", "X is a noisy view of a latent point; the privileged Z tells which samples are hard."},
	{"twoview2d", "Two views 2-D", "Two different noisy non-linear maps of one latent point: view A and view B."},
	{"multilabel2d", "Tags 2-D", "Overlapping regions with correlated tags."},
}

// shippedInfo is one entry of web/datasets/index.json.
type shippedInfo = data.IndexEntry

// loadIndex fetches the dataset index from the server (or the service
// worker's cache when offline).
func loadIndex(base string) ([]shippedInfo, error) {
	b, err := fetch(base+"/web/datasets/"+data.IndexFile, 1<<20)
	if err != nil {
		return nil, err
	}
	return data.ParseIndex(b)
}

// loadShipped fetches and parses one shipped dataset.
func loadShipped(base string, info shippedInfo) (*data.Dataset, error) {
	if strings.Contains(info.File, "/") || strings.Contains(info.File, "..") {
		return nil, fmt.Errorf("bad dataset file name %q", info.File)
	}
	b, err := fetch(base+"/web/datasets/"+info.File, 64<<20)
	if err != nil {
		return nil, err
	}
	return data.FromIndex(info, b)
}

// fetch GETs a same-origin resource with the browser's fetch (answered by
// the service worker's cache when offline), up to limit bytes. It calls the
// JavaScript API directly rather than net/http, which keeps net/http's
// client (and the TLS code it would link) out of app.wasm.
func fetch(url string, limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	var onResp, onBuf, onErr app.Func
	release := func() {
		for _, f := range []app.Func{onResp, onBuf, onErr} {
			if f != nil {
				f.Release()
			}
		}
	}
	onErr = app.FuncOf(func(this app.Value, args []app.Value) any {
		msg := "network error"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: fmt.Errorf("%s: %s", url, msg)}
		return nil
	})
	onBuf = app.FuncOf(func(this app.Value, args []app.Value) any {
		arr := app.Window().Get("Uint8Array").New(args[0])
		n := arr.Length()
		if int64(n) > limit {
			done <- result{err: fmt.Errorf("%s is larger than %d bytes", url, limit)}
			return nil
		}
		b := make([]byte, n)
		app.CopyBytesToGo(b, arr)
		done <- result{b: b}
		return nil
	})
	onResp = app.FuncOf(func(this app.Value, args []app.Value) any {
		resp := args[0]
		if !resp.Get("ok").Bool() {
			done <- result{err: fmt.Errorf("%s: HTTP %d %s", url, resp.Get("status").Int(), resp.Get("statusText").String())}
			return nil
		}
		resp.Call("arrayBuffer").Call("then", onBuf, onErr)
		return nil
	})
	app.Window().Call("fetch", url).Call("then", onResp, onErr)
	r := <-done
	release()
	return r.b, r.err
}
