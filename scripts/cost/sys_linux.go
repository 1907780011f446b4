package main

import (
	"os"
	"strconv"
	"strings"
)

// status reads a "kB" field of /proc/self/status in bytes.
func status(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

func rss() float64  { return status("VmRSS") }
func peak() float64 { return status("VmHWM") }

// resetPeak resets the peak resident set size (Linux ≥ 4.0).
func resetPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
