//go:build !(linux || darwin)

package qp

// cpuSeconds is unavailable on this platform.
func cpuSeconds() float64 { return 0 }
