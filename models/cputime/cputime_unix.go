//go:build unix

package cputime

import "syscall"

// Process returns the process's CPU time in seconds (every thread, the
// garbage collector's included): Linux's process CPU-time clock, else
// getrusage's user + system time.
func Process() (float64, bool) {
	if c, ok := processCPU(); ok {
		return c, true
	}
	return rusage(syscall.RUSAGE_SELF)
}

func rusage(who int) (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)*1e-6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}
