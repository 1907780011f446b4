//go:build !unix

package multiview

// processCPU is unavailable here (e.g. js/wasm): callers fall back to wall time.
func processCPU() (float64, bool) { return 0, false }
