//go:build linux

package cputime

import (
	"syscall"
	"unsafe"
)

// Linux's CPU-time clocks (not exported by package syscall).
const (
	clockProcessCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID
	clockThreadCPUTime  = 3 // CLOCK_THREAD_CPUTIME_ID
)

// Thread returns the calling OS thread's CPU time in seconds. Pin the
// goroutine to its thread (runtime.LockOSThread, or a Stopwatch) for the
// difference of two readings to be the goroutine's CPU time.
//
// It reads clock_gettime(CLOCK_THREAD_CPUTIME_ID), the scheduler's
// nanosecond count. getrusage(RUSAGE_THREAD) is not fine enough for single
// fits: the kernel splits that count into user and system time by ticks and
// keeps each part monotonic, so a busy millisecond often reads as a few
// microseconds and short fits showed 0 s (TestShortWorkIsMeasured).
func Thread() (float64, bool) { return clock(clockThreadCPUTime) }

// processCPU is Process on Linux: the same nanosecond clock for the whole
// process.
func processCPU() (float64, bool) { return clock(clockProcessCPUTime) }

func clock(id int) (float64, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9, true
}
