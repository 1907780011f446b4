//go:build !unix && !(js && wasm)

package viz_test

// cpuSeconds is not available here: benchmarks report wall time only.
func cpuSeconds() float64 { return 0 }
