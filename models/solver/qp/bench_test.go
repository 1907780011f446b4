package qp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lupilab/models/cputime"
)

// dumpDir, when set (go test -bench SVMLike ./models/solver/qp -args
// -qp.dump=DIR), makes BenchmarkSVMLike write each problem it solves and its
// result as DIR/svmlike_n=N.json, so that testdata/bench_vs_cvxopt.sh can time
// cvxopt on the same problems in the same run.
var dumpDir = flag.String("qp.dump", "", "BenchmarkSVMLike writes its problems and results to this directory")

// BenchmarkSVMLike solves RBF-kernel SVM duals (box 0 ≤ α ≤ 10 plus one
// equality yᵀα = 0) at n = 100, 400, 1200. Besides wall time per solve it
// reports process CPU seconds per solve (cpu-s/op: steadier on a shared
// machine; the solver may use several threads) and the iterations.
func BenchmarkSVMLike(b *testing.B) {
	for _, n := range []int{100, 400, 1200} {
		p := svmLike(n, 3)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var r *Result
			c0, cpuOK := cputime.Process()
			for i := 0; i < b.N; i++ {
				var err error
				r, err = Solve(context.Background(), p, Options{})
				if err != nil || !r.Converged {
					b.Fatalf("%v converged=%v", err, r != nil && r.Converged)
				}
			}
			if c1, ok := cputime.Process(); cpuOK && ok {
				b.ReportMetric((c1-c0)/float64(b.N), "cpu-s/op")
			}
			b.ReportMetric(float64(r.Iter), "iters")
			if *dumpDir != "" {
				dumpSVMLike(b, p, r)
			}
		})
	}
}

// dumpSVMLike writes an SVM-like problem (dense P, labels, box bound) and
// our solution's objective and iterations as JSON for the cvxopt script.
func dumpSVMLike(b *testing.B, p *Problem, r *Result) {
	n := len(p.Q)
	P := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			P[i*n+j] = p.P.At(i, j)
		}
	}
	raw, err := json.Marshal(struct {
		N    int       `json:"n"`
		P    []float64 `json:"P"`
		Y    []float64 `json:"y"`
		C    float64   `json:"C"`
		Obj  float64   `json:"go_obj"`
		Iter int       `json:"go_iter"`
	}{n, P, p.E.RawRowView(0), p.Upper[0], r.Obj, r.Iter})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dumpDir, fmt.Sprintf("svmlike_n=%d.json", n)), raw, 0o644); err != nil {
		b.Fatal(err)
	}
}
