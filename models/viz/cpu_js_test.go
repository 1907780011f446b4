//go:build js && wasm

package viz_test

import "syscall/js"

// cpuSeconds is node's process.cpuUsage() (user + system) under
// WebAssembly: on a shared machine a steadier measure than wall time. It
// includes V8's own threads (compilation, GC), a small part of a benchmark's
// iterations after the first.
func cpuSeconds() float64 {
	proc := js.Global().Get("process")
	if proc.IsUndefined() {
		return 0
	}
	u := proc.Call("cpuUsage")
	return (u.Get("user").Float() + u.Get("system").Float()) * 1e-6
}
