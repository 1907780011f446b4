//go:build js && wasm

// Command compute is LUPI Lab's compute worker (GOOS=js GOARCH=wasm, run by
// web/worker.js inside a Web Worker): every model, solver and data reader,
// and no UI. It moves messages between JavaScript and the engine of package
// compute, one job at a time; a Cancel or a Pace message reaches a running
// job whenever the job yields (compute.Engine.Yield) or sleeps.
package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"syscall/js"

	_ "lupilab/models/all" // registers every model
	"lupilab/models/compute"
	"lupilab/models/wire"
)

func main() {
	e := compute.New(fetchShipped)
	e.Yield = yielder()
	e.Build = runtime.Version()
	in := make(chan wire.Message, 256)
	var mu sync.Mutex
	cancels := map[int64]context.CancelFunc{}
	receive := func(v js.Value) {
		m := fromJS(v)
		if m.Kind == wire.KindCancel {
			mu.Lock()
			if c, ok := cancels[m.ID]; ok {
				c()
			}
			mu.Unlock()
			return
		}
		if m.Kind == wire.KindPace {
			// a running (or queued) watched fit's new pace, which it
			// reads between two snapshots
			var p wire.Pace
			if _, err := m.Decode(&p); err == nil {
				e.Pace(m.ID, p)
			}
			return
		}
		select {
		case in <- m:
		default:
			go func() { in <- m }()
		}
	}
	js.Global().Set("onmessage", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) > 0 {
			receive(args[0].Get("data"))
		}
		return nil
	}))
	if p := js.Global().Get("lupiPending"); p.Truthy() {
		for i := 0; i < p.Length(); i++ {
			receive(p.Index(i))
		}
		js.Global().Set("lupiPending", js.Undefined())
	}
	post(e.Hello())
	for m := range in {
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		cancels[m.ID] = cancel
		mu.Unlock()
		e.Handle(ctx, m, post)
		mu.Lock()
		delete(cancels, m.ID)
		mu.Unlock()
		cancel()
	}
}

// fromJS reads a message {v, id, kind, body, bin} sent by the page.
func fromJS(v js.Value) wire.Message {
	m := wire.Message{V: v.Get("v").Int(), ID: int64(v.Get("id").Float()), Kind: v.Get("kind").String()}
	if b := v.Get("body"); b.Type() == js.TypeString {
		m.Body = []byte(b.String())
	}
	if bin := v.Get("bin"); bin.Truthy() {
		u8 := js.Global().Get("Uint8Array")
		for i := 0; i < bin.Length(); i++ {
			a := u8.New(bin.Index(i))
			b := make([]byte, a.Length())
			js.CopyBytesToGo(b, a)
			m.Bin = append(m.Bin, b)
		}
	}
	return m
}

// post sends a message to the page, transferring its binary arrays.
func post(m wire.Message) {
	obj := js.Global().Get("Object").New()
	obj.Set("v", m.V)
	obj.Set("id", float64(m.ID))
	obj.Set("kind", m.Kind)
	obj.Set("body", string(m.Body))
	bins := js.Global().Get("Array").New()
	u8 := js.Global().Get("Uint8Array")
	for _, b := range m.Bin {
		a := u8.New(len(b))
		js.CopyBytesToJS(a, b)
		bins.Call("push", a.Get("buffer"))
	}
	obj.Set("bin", bins)
	js.Global().Call("postMessage", obj, bins)
}

// yielder returns a function that blocks until the worker's event loop has
// run a task: a MessageChannel message is delivered only in a later task,
// after pending messages (a Cancel) were handled.
func yielder() func() {
	mc := js.Global().Get("MessageChannel")
	if !mc.Truthy() {
		return nil
	}
	ch := mc.New()
	ready := make(chan struct{}, 1)
	ch.Get("port1").Set("onmessage", js.FuncOf(func(this js.Value, args []js.Value) any {
		select {
		case ready <- struct{}{}:
		default:
		}
		return nil
	}))
	port := ch.Get("port2")
	return func() {
		port.Call("postMessage", 0)
		<-ready
	}
}

// fetchShipped reads web/datasets/<name> next to the worker's script (so a
// static export under a sub-path works), from the service worker's cache
// when offline.
func fetchShipped(name string) ([]byte, error) {
	url := js.Global().Get("URL").New("datasets/"+name, js.Global().Get("location").Get("href")).Call("toString").String()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	var onResp, onBuf, onErr js.Func
	onErr = js.FuncOf(func(this js.Value, args []js.Value) any {
		msg := "network error"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		if nav := js.Global().Get("navigator"); nav.Truthy() && !nav.Get("onLine").Bool() {
			msg = "this browser is offline and has not kept " + name + " (a sample dataset is kept once it has been opened online, or all of them with Advanced settings → Keep all sample datasets for offline use)"
		} else {
			msg = "could not download " + name + ": " + msg
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	onBuf = js.FuncOf(func(this js.Value, args []js.Value) any {
		a := js.Global().Get("Uint8Array").New(args[0])
		b := make([]byte, a.Length())
		js.CopyBytesToGo(b, a)
		done <- result{b: b}
		return nil
	})
	onResp = js.FuncOf(func(this js.Value, args []js.Value) any {
		r := args[0]
		if !r.Get("ok").Bool() {
			done <- result{err: fmt.Errorf("%s: HTTP %d", name, r.Get("status").Int())}
			return nil
		}
		r.Call("arrayBuffer").Call("then", onBuf, onErr)
		return nil
	})
	js.Global().Call("fetch", url).Call("then", onResp, onErr)
	res := <-done
	onResp.Release()
	onBuf.Release()
	onErr.Release()
	return res.b, res.err
}
