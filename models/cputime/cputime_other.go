//go:build !unix

package cputime

// Process is unavailable on this platform (e.g. js/wasm): ok is false.
func Process() (float64, bool) { return 0, false }
