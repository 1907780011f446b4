//go:build linux

package twin

import "syscall"

// threadCPU returns the calling thread's user + system CPU time in seconds
// (RUSAGE_THREAD), so that progress gaps can be measured without the time
// the thread spent descheduled on a shared machine.
func threadCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6, true
}
