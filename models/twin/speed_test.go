package twin

import (
	"testing"

	"lupilab/models/internal/progressbench"
)

// BenchmarkMPWTSVMSpeed times one MPWTSVM fit with default parameters
// (RBF, C = 1) on twoview2d, and reports the largest gap between two
// progress callbacks (the browser yields only there) as maxgap-ms, and the
// objective (for before/after comparisons: it must not change).
func BenchmarkMPWTSVMSpeed(b *testing.B) {
	progressbench.Run(b, "mpwtsvm", []int{70, 400}, "ccp_steps", "steps_in_6n", "rounds_10", "rounds_11")
}
