package ep

import (
	"context"
	"math"
	"reflect"
	"testing"
)

// The stall rule (stallSweeps): a geometric decrease, even a slow one
// (halving every 40 sweeps) or a noisy one, never stalls; a run whose site
// changes stop shrinking (a cycle, or a plateau) stalls stallSweeps sweeps
// after its last record low.
func TestStallWatch(t *testing.T) {
	run := func(moved func(k int) float64, sweeps int) int {
		var w stallWatch
		for k := 1; k <= sweeps; k++ {
			if w.observe(k, moved(k)) {
				return k
			}
		}
		return 0
	}
	for name, c := range map[string]struct {
		moved func(k int) float64
		want  int
	}{
		"fast":  {func(k int) float64 { return math.Pow(0.5, float64(k)) }, 0},
		"slow":  {func(k int) float64 { return math.Pow(0.5, float64(k)/40) }, 0},
		"noisy": {func(k int) float64 { return math.Pow(0.8, float64(k)) * (1 + 0.9*math.Sin(float64(k))) }, 0},
		// a cycle of period 10 from sweep 1: the low of sweep 1 is never halved
		"cycle": {func(k int) float64 { return 0.1 + 0.02*math.Sin(2*math.Pi*float64(k)/10) }, 1 + stallSweeps},
		// progress until sweep 20, then a plateau
		"plateau": {func(k int) float64 { return math.Pow(0.4, float64(min(k, 20))) }, 20 + stallSweeps},
	} {
		if got := run(c.moved, 400); got != c.want {
			t.Errorf("%s: stalled at sweep %d, want %d", name, got, c.want)
		}
	}
}

// Retries change nothing for a run that converges: the result is the same,
// bit for bit, as without them.
func TestRetriesLeaveConvergingRunsUnchanged(t *testing.T) {
	x := []float64{0.1, 0.8, 1.7, 2.2, 3.5, 4.1, 5.0}
	y := []float64{1, 1, -1, 1, -1, -1, 1}
	K := seGram(x, 2.5, 0.9)
	var res [2]*Result
	for k, retries := range []int{0, 3} {
		r, err := Run(context.Background(), []Block{{K: K}}, probitSite(y), Options{Tol: 1e-12, Retries: retries})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || len(r.Retried) != 0 || r.Damping != 1 || r.TotalSweeps() != r.Sweeps {
			t.Fatalf("retries %d: converged %v, damping %g, retried %v", retries, r.Converged, r.Damping, r.Retried)
		}
		res[k] = r
	}
	if res[0].LogZ != res[1].LogZ || !reflect.DeepEqual(res[0].Sites, res[1].Sites) || !reflect.DeepEqual(res[0].Mu, res[1].Mu) || !reflect.DeepEqual(res[0].Var, res[1].Var) {
		t.Error("a converging run differs with retries enabled")
	}
}
