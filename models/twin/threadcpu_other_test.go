//go:build !linux

package twin

func threadCPU() (float64, bool) { return 0, false }
