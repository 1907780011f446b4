//go:build !linux

package multiview

func threadCPU() (float64, bool) { return 0, false }
