//go:build !unix

package viz_test

// cpuSeconds is not available here (WebAssembly): benchmarks report wall
// time only.
func cpuSeconds() float64 { return 0 }
