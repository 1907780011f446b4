//go:build !(js && wasm)

package viz_test

import "lupilab/models/cputime"

// cpuSeconds is the process's user + system CPU time: on a shared machine it
// is a steadier measure than wall time (0 where the platform has none).
func cpuSeconds() float64 {
	c, _ := cputime.Process()
	return c
}
