//go:build !linux

package procmem

// Status is unavailable without Linux's /proc: ok is false.
func Status(field string) (float64, bool) { return 0, false }

// Available is unavailable without Linux's /proc: ok is false.
func Available() (float64, bool) { return 0, false }

// ResetPeak is unavailable without Linux's /proc: it reports false.
func ResetPeak() bool { return false }
