//go:build !linux

package cputime

// Thread is unavailable on this platform: ok is false.
func Thread() (float64, bool) { return 0, false }

// processCPU: no nanosecond process clock here; Process uses getrusage.
func processCPU() (float64, bool) { return 0, false }
