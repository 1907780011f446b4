//go:build unix

package main

import "syscall"

// addressSpaceLimit is RLIMIT_AS (ulimit -v) in bytes, 0 when unlimited.
func addressSpaceLimit() float64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) || r.Cur > 1<<62 {
		return 0
	}
	return float64(r.Cur)
}
