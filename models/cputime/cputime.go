// Package cputime measures CPU time, the measure of the papers' timing
// tables (paper 000's Table 3 reports CPU seconds): on a shared machine it is
// steadier than the wall clock, and when several fits run at once it is the
// only per-fit measure that does not count the others' work.
//
// Thread is the calling OS thread's user + system time (Linux); Process is
// the whole process's (any Unix). A Stopwatch locks its goroutine to one OS
// thread from Start to Stop, so that the thread's CPU time is the
// goroutine's: the fits it times run on the calling goroutine only (no model
// starts goroutines), so their CPU time is measured exactly while other
// goroutines fit in parallel. Where no CPU clock exists (js/wasm, in the
// browser) the functions report ok = false and callers use the wall clock.
package cputime

import (
	"runtime"
	"time"
)

// Stopwatch times one piece of work: wall clock always, CPU time of the
// goroutine's thread where the platform has it (Linux), else the process's
// CPU time where it has that (other Unix systems: exact only when nothing
// else runs in the process meanwhile).
type Stopwatch struct {
	wall  time.Time
	cpu   float64
	cpuOK bool
}

// Start locks the calling goroutine to its OS thread and starts the clocks.
// Every Start must be followed by Stop on the same goroutine.
func Start() *Stopwatch {
	runtime.LockOSThread()
	s := &Stopwatch{wall: time.Now()}
	s.cpu, s.cpuOK = goroutineCPU()
	return s
}

// Stop stops the clocks, unlocks the goroutine from its thread and returns
// the CPU seconds (ok = false where no CPU clock exists) and the wall
// seconds since Start.
func (s *Stopwatch) Stop() (cpu float64, ok bool, wall float64) {
	c, cok := goroutineCPU()
	wall = time.Since(s.wall).Seconds()
	runtime.UnlockOSThread()
	if !cok || !s.cpuOK {
		return 0, false, wall
	}
	return c - s.cpu, true, wall
}

// goroutineCPU is Thread where it exists, else Process.
func goroutineCPU() (float64, bool) {
	if c, ok := Thread(); ok {
		return c, true
	}
	return Process()
}
