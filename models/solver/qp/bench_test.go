package qp

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSVMLike solves RBF-kernel SVM duals (box 0 ≤ α ≤ 10 plus one
// equality yᵀα = 0) at n = 100, 400, 1200.
func BenchmarkSVMLike(b *testing.B) {
	for _, n := range []int{100, 400, 1200} {
		p := svmLike(n, 3)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			iters := 0
			for i := 0; i < b.N; i++ {
				r, err := Solve(context.Background(), p, Options{})
				if err != nil || !r.Converged {
					b.Fatalf("%v converged=%v", err, r != nil && r.Converged)
				}
				iters = r.Iter
			}
			b.ReportMetric(float64(iters), "iters")
		})
	}
}
