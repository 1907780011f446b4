//go:build linux

package cputime

// rusageThread is Linux's RUSAGE_THREAD (not exported by package syscall).
const rusageThread = 1

// Thread returns the calling OS thread's user + system CPU time in seconds.
// Pin the goroutine to its thread (runtime.LockOSThread, or a Stopwatch)
// for the difference of two readings to be the goroutine's CPU time.
func Thread() (float64, bool) { return rusage(rusageThread) }
