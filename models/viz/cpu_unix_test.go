//go:build unix

package viz_test

import "syscall"

// cpuSeconds is the process's user + system CPU time: on a shared machine it
// is a steadier measure than wall time.
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)*1e-6
}
