package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

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
