package qp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBenchDump backs testdata/bench_vs_cvxopt.sh: when QP_BENCH_DIR is set it
// solves the benchmark problems (svmLike, n = 100, 400, 1200), records the
// best-of-3 wall and CPU times and objective, and writes the problems' raw data so
// that the script can time cvxopt on the same problems in the same run.
// Without QP_BENCH_DIR it is skipped.
func TestBenchDump(t *testing.T) {
	dir := os.Getenv("QP_BENCH_DIR")
	if dir == "" {
		t.Skip("QP_BENCH_DIR not set")
	}
	type rec struct {
		N       int       `json:"n"`
		P       []float64 `json:"P"`
		Y       []float64 `json:"y"`
		C       float64   `json:"C"`
		Seconds float64   `json:"go_seconds"`
		CPU     float64   `json:"go_cpu_seconds"`
		Obj     float64   `json:"go_obj"`
		Iter    int       `json:"go_iter"`
	}
	var out []rec
	for _, n := range []int{100, 400, 1200} {
		p := svmLike(n, 3)
		best, bestCPU := 0.0, 0.0
		var r *Result
		for k := 0; k < 3; k++ {
			t0, c0 := time.Now(), cpuSeconds()
			var err error
			r, err = Solve(context.Background(), p, Options{})
			if err != nil || !r.Converged {
				t.Fatalf("n=%d: %v", n, err)
			}
			if s := time.Since(t0).Seconds(); k == 0 || s < best {
				best = s
			}
			if c := cpuSeconds() - c0; k == 0 || c < bestCPU {
				bestCPU = c
			}
		}
		P := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				P[i*n+j] = p.P.At(i, j)
			}
		}
		out = append(out, rec{N: n, P: P, Y: p.E.RawRowView(0), C: p.Upper[0], Seconds: best, CPU: bestCPU, Obj: r.Obj, Iter: r.Iter})
		t.Logf("n=%d: %.3fs wall, %.3fs CPU, %d iterations, obj %.10g", n, best, bestCPU, r.Iter, r.Obj)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qp_bench.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
