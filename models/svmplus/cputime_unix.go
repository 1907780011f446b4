//go:build unix

package svmplus

import "syscall"

// cpuSeconds returns the process's CPU time (user + system), the measure of
// paper 000's Table 3; ok is false where it is not available.
func cpuSeconds() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)*1e-6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}
