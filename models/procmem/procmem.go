// Package procmem reads this process's memory figures from the operating
// system: the resident set (VmRSS), its peak (VmHWM) and the reserved
// address space (VmSize) of Linux's /proc/self/status, and the machine's
// available memory (MemAvailable of /proc/meminfo). The CLI budgets a fit
// against what the address-space limit leaves (cmd/lupi) and the cost
// calibration measures a fit's peak (scripts/cost); both read the figures
// here. Where the platform has no /proc (other systems, js/wasm) the
// readings report ok = false and callers fall back to what they know.
//
// CPU time lives in package cputime.
package procmem

import (
	"strconv"
	"strings"
)

// Resident is the resident set size in bytes (VmRSS).
func Resident() (float64, bool) { return Status("VmRSS") }

// Peak is the peak resident set size in bytes since the process started or
// since the last ResetPeak (VmHWM).
func Peak() (float64, bool) { return Status("VmHWM") }

// AddressSpace is the reserved virtual address space in bytes (VmSize): what
// the address-space limit (ulimit -v) counts, reserved or not touched.
func AddressSpace() (float64, bool) { return Status("VmSize") }

// parseStatus finds the line "field: N kB" in the text of a
// /proc/<pid>/status or /proc/meminfo file and returns N·1024 bytes; ok is false when the
// field is absent or its value is not a number.
func parseStatus(text, field string) (float64, bool) {
	for _, l := range strings.Split(text, "\n") {
		rest, found := strings.CutPrefix(l, field+":")
		if !found {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
		if err != nil {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}
