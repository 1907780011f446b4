// Package scratch reuses the solvers' large float64 arrays between solves.
//
// A process that solves many problems of similar size — a grid search, the
// convex–concave steps of MCPK, an experiment's repeats and folds —
// otherwise allocates gigabytes of n×n arrays that live for one solve
// each. With fits running on every core, the garbage collector that frees
// them takes a share of the cores and caps the speed-up (docs/
// PERFORMANCE.md §8). Floats keeps freed arrays in power-of-two size
// classes, in sync.Pools (so the collector can still reclaim them when
// memory is short, and concurrent solves do not contend on one lock).
package scratch

import (
	"math/bits"
	"sync"
)

// minPooled is the smallest array worth pooling: below it allocation is
// cheaper than the pool's bookkeeping.
const minPooled = 1 << 10

var classes [bits.UintSize]sync.Pool

// Floats returns a zeroed slice of length n. Give it back with Put when
// nothing refers to it any more (or never: then it is garbage as usual).
func Floats(n int) []float64 {
	if n < minPooled {
		return make([]float64, n)
	}
	k := bits.Len(uint(n - 1)) // 1<<k ≥ n
	if p, ok := classes[k].Get().(*[]float64); ok {
		b := (*p)[:n]
		clear(b)
		return b
	}
	return make([]float64, n, 1<<k)
}

// Put gives back a slice from Floats; b must not be used afterwards. Slices
// that do not come from Floats (their capacity is not a pooled size class)
// are left to the garbage collector.
func Put(b []float64) {
	c := cap(b)
	if c < minPooled || c&(c-1) != 0 {
		return
	}
	b = b[:c]
	classes[bits.Len(uint(c-1))].Put(&b)
}
