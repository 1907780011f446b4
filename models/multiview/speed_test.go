package multiview

import (
	"testing"

	"lupilab/models/internal/progressbench"
)

// BenchmarkMCPKSpeed times one MCPK fit with default parameters (RBF) on
// twoview2d, and reports the largest gap between two progress callbacks
// (the browser yields only there) as maxgap-ms, and the objective (for
// before/after comparisons: it must not change).
func BenchmarkMCPKSpeed(b *testing.B) {
	progressbench.Run(b, "mcpk", []int{70, 140, 200}, "ccp_steps", "steps_in_6n", "rounds_10", "rounds_11")
}
