package gp

import (
	"testing"

	"lupilab/models/solver/ep"
)

// epRuns counts every run's sweeps, abandoned attempts included, and
// warm-starts from the last converged run only.
func TestEPRunsNote(t *testing.T) {
	var r epRuns
	first := &ep.Result{Sweeps: 7, Converged: true, Sites: ep.Sites{Tau: [][]float64{{1, 2}}, Nu: [][]float64{{0.5, -0.5}}}}
	r.note(first)
	if r.sweeps != 7 || r.retries != 0 || r.warm == nil || r.warm.Tau[0][1] != 2 || r.warm.Nu[0][0] != 0.5 {
		t.Fatalf("after a converged run: %+v", r)
	}
	stalled := &ep.Result{Sweeps: 30, Retried: []ep.Attempt{{Sweeps: 20}, {Sweeps: 25}}, Sites: ep.Sites{Tau: [][]float64{{9, 9}}, Nu: [][]float64{{9, 9}}}}
	r.note(stalled)
	if r.sweeps != 7+30+20+25 || r.retries != 2 || r.warm.Tau[0][0] != 1 {
		t.Errorf("after an unconverged run: sweeps %d, retries %d, warm τ̃ %v", r.sweeps, r.retries, r.warm.Tau)
	}
}
