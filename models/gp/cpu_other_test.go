//go:build !unix

package gp

func cpuSeconds() float64 { return 0 }
