//go:build !linux

package main

import "runtime"

// Under WebAssembly the linear memory only grows: the runtime's Sys is the
// peak.
func rss() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.Sys)
}
func peak() float64 { return rss() }
func resetPeak()    {}
