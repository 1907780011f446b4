//go:build !linux

package main

import "runtime"

// Under WebAssembly the linear memory only grows: the runtime's Sys is the
// peak. CPU time is not available; the wall time stands for it.
func rss() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.Sys)
}
func peak() float64       { return rss() }
func resetPeak()          {}
func cpuSeconds() float64 { return 0 }
