package main

import "lupilab/models/procmem"

// rss is the resident set in bytes (0 when unknown).
func rss() float64 {
	v, _ := procmem.Resident()
	return v
}

// peak is the peak resident set in bytes since the last resetPeak.
func peak() float64 {
	v, _ := procmem.Peak()
	return v
}

// resetPeak resets the peak resident set size (Linux ≥ 4.0).
func resetPeak() { procmem.ResetPeak() }
