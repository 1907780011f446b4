//go:build linux

package procmem

import "os"

// Status reads a "kB" field of /proc/self/status (VmRSS, VmHWM, VmSize, …)
// in bytes; ok is false when the file or the field cannot be read.
func Status(field string) (float64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	return parseStatus(string(b), field)
}

// Available is the memory the machine can give new work without swapping,
// in bytes (MemAvailable of /proc/meminfo, Linux ≥ 3.14).
func Available() (float64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseStatus(string(b), "MemAvailable")
}

// ResetPeak makes Peak start again from the current resident set (writes 5
// to /proc/self/clear_refs, Linux ≥ 4.0); it reports whether the kernel
// took it.
func ResetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}
