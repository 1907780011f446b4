//go:build linux || darwin

package qp

import "syscall"

// cpuSeconds is the process's user+system CPU time (for the side-by-side
// benchmark, which is less sensitive to other load than wall time).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}
